#include "cli/rail_map_option.h"

#include <stdexcept>

#include "common/params.h"

namespace railtune::cli {

std::optional<formats::RailMap> railMapFromOptionOrEnv(const std::string& path) {
  std::string chosen = path;
  if (chosen.empty()) {
    const ParamValue<std::string> fromEnv = readString("RAILTUNE_RAIL_MAP");
    if (!fromEnv.error.empty()) throw std::invalid_argument(fromEnv.error);
    chosen = fromEnv.value;
  }
  if (chosen.empty()) return std::nullopt;
  return formats::readRailMapFile(chosen);
}

}  // namespace railtune::cli
