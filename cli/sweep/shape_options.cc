// The NVLink-domain options of `railtune sweep` (shape_options.h).
#include "cli/sweep/shape_options.h"

#include "fabric/yaml_reader.h"
#include "formats/rail_map_choice.h"

namespace railtune::cli {

void ShapeOptions::add(CLI::App& app) {
  app.add_option("--rail-map", railMap, "rail map: each host's NVLink domain (default: RAILTUNE_RAIL_MAP)");
  app.add_option("--fabric", fabric, "cluster description (railtune topo): each host's NVLink domain");
  app.add_option("--nvl-domains", nvlDomains,
                 "the hosts form N NVLink domains, in the order the output lists them (no rail map or fabric)")
      ->check(CLI::PositiveNumber);
  app.add_option("--mnnvl", mnnvl,
                 "on|off: NCCL counted an NVLink domain of several hosts as one node (default: on "
                 "when a domain holds several hosts)")
      ->check(CLI::IsMember({"on", "off"}));
}

std::map<std::string, std::string> ShapeOptions::domainOfHost() const {
  std::map<std::string, std::string> out;
  if (!fabric.empty()) {
    for (const fabric::Host& host : fabric::loadFabricFile(fabric).hosts) out[host.name] = host.domain;
    return out;
  }
  if (nvlDomains > 0 && railMap.empty()) return out;  // --nvl-domains alone: RAILTUNE_RAIL_MAP is not wanted
  if (const std::optional<formats::RailMap> map = formats::readChosenRailMap(railMap))
    for (const formats::RailMapHost& host : map->hosts) out[host.name] = host.domain;
  return out;
}

}  // namespace railtune::cli
