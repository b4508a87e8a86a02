// The rail map a tool reads (rail_map_choice.h).
#include "formats/rail_map_choice.h"

#include <stdexcept>

#include "common/params.h"

namespace railtune::formats {

std::string chosenRailMapPath(const std::string& option) {
  if (!option.empty()) return option;
  const ParamValue<std::string> fromEnv = readString("RAILTUNE_RAIL_MAP");
  if (!fromEnv.error.empty()) throw std::invalid_argument(fromEnv.error);
  return fromEnv.value;
}

std::optional<RailMap> readChosenRailMap(const std::string& option) {
  const std::string chosen = chosenRailMapPath(option);
  if (chosen.empty()) return std::nullopt;
  return readRailMapFile(chosen);
}

}  // namespace railtune::formats
