// The rail map a tool reads: the file its `--rail-map` option names, else RAILTUNE_RAIL_MAP's (the variable the
// plugins read, docs/config.md), else none. One choice for every command that takes the option (`paths`,
// `profile`, `sweep`, `doctor`), so that each reads the map the plugins of the job would.
#pragma once

#include <optional>
#include <string>

#include "formats/rail_map.h"

namespace railtune::formats {

// OPTION "" = the option not given. Throws formats::RailMapError naming the file and the field when the file is
// bad, and std::invalid_argument naming the variable when RAILTUNE_RAIL_MAP's value is rejected.
std::optional<RailMap> readChosenRailMap(const std::string& option);

// The path readChosenRailMap reads ("" = none), without reading it.
std::string chosenRailMapPath(const std::string& option);

}  // namespace railtune::formats
