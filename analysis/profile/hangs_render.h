// `railtune profile hangs` output: a table for people, JSON (railtune.profile_hangs.v1,
// docs/formats/profile-hangs.schema.json) for tools.
#pragma once

#include <string>

#include "analysis/profile/hangs.h"

namespace railtune::analysis::profile {

// tagNames: --tag-names, what the hung collectives' user tags are called.
std::string renderHangsTable(const HangReport& report, const TagNames& tagNames = {});
// The sentence for one root cause, the table's first line under its job.
std::string rootCauseText(const RootCause& cause);
std::string renderHangsJson(const HangReport& report, const TagNames& tagNames = {});

}  // namespace railtune::analysis::profile
