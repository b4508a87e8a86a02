// `railtune profile hangs` output: a table for people, JSON (railtune.profile_hangs.v1,
// docs/formats/profile-hangs.schema.json) for tools.
#pragma once

#include <string>

#include "cli/profile/hangs.h"

namespace railtune::cli::profile {

std::string renderHangsTable(const HangReport& report);
std::string renderHangsJson(const HangReport& report);

}  // namespace railtune::cli::profile
