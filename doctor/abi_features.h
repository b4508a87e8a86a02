// What each plugin symbol version gives a job over the one before it, so that doctor can say what a job
// misses when NCCL binds an older symbol than the newest it tries (issue 31: "what a 2.31 job would miss").
// Read from NCCL's headers (src/include/plugin/<kind>/<kind>_vN.h) at the release that added each version.
#pragma once

#include <optional>
#include <string>

#include "doctor/check.h"
#include "doctor/elf_info.h"
#include "emulator/loader.h"

namespace railtune::doctor {

// What version `version` of `kind` adds over version-1, as one phrase; nullptr when doctor does not
// describe that step (the versions before the ones railtune exports).
const char* versionAdds(emu::PluginKind kind, int version);

// What a job misses when it binds `bound` while its NCCL would take up to `newestTried`: the phrases of
// bound+1..newestTried, joined with "; ". "" when bound >= newestTried. bound 0 (nothing bound) gives
// every step from version 1.
std::string missedText(emu::PluginKind kind, int bound, int newestTried);

// The plugin.<kind>.newest line: whether the release binds the newest symbol it tries from `lib`, and
// what the job misses otherwise (warn). Without NCCL here: for kNewestReferenceRelease.
Check newestCheck(emu::PluginKind kind, const std::string& fileName, const ElfInfo& lib,
                  std::optional<int> ncclVersionCode);

}  // namespace railtune::doctor
