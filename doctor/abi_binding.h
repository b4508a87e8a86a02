// Which plugin symbol version an NCCL release binds from a library, from the symbols the library
// defines (read from its ELF dynamic symbol table) and the release's try order
// (emulator/loader.h: symbolVersionsForNccl).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "doctor/check.h"
#include "doctor/elf_info.h"
#include "emulator/loader.h"

namespace railtune::doctor {

// Releases named when no NCCL is found here: the ones the plugins are written and tested against, and
// the newest of them, whose misses plugin.<kind>.newest describes.
inline constexpr int kReferenceNcclReleases[] = {22809, 23007, 23102};
inline constexpr int kNewestReferenceRelease = 23102;

// The newest version in the release's try order that `lib` defines; 0 when none.
int boundVersion(int ncclVersionCode, emu::PluginKind kind, const ElfInfo& lib);

// The versions of `kind` the library defines, as "v6..v12" or "v1, v3"; "none" when it defines none.
std::string definedVersionsText(emu::PluginKind kind, const ElfInfo& lib);

// The plugin.<kind>.abi line: with NCCL found, what that release binds (fail when nothing); without,
// what each reference release would bind (fail when none of them binds anything).
Check abiCheck(emu::PluginKind kind, const std::string& fileName, const ElfInfo& lib,
               std::optional<int> ncclVersionCode);

}  // namespace railtune::doctor
