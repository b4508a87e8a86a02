// The `--rail-map FILE` option the analysis commands share (`paths check`, `paths render`, `profile
// stragglers`, `profile hangs`): the file given, else RAILTUNE_RAIL_MAP, else no rail map.
#pragma once

#include <optional>
#include <string>

#include "formats/rail_map.h"

namespace railtune::cli {

// Throws formats::RailMapError naming the file and the field when the file is bad, and
// std::invalid_argument naming the variable when RAILTUNE_RAIL_MAP's value is rejected.
std::optional<formats::RailMap> railMapFromOptionOrEnv(const std::string& path);

}  // namespace railtune::cli
