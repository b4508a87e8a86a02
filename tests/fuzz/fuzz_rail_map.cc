// libFuzzer target for the rail-map reader (formats/rail_map.h), which the plugins run on a file named by
// RAILTUNE_RAIL_MAP. Besides crashes and sanitizer reports it checks the reader's promises: every
// rejection names the source, and an accepted map has unique hosts, rails and planes in range, network facts in
// their ranges and a fabric shape (fabricShapeOf) within the map's counts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>

#include "formats/rail_map.h"

namespace {

void require(bool promise) {
  if (!promise) std::abort();
}

void checkAccepted(const railtune::formats::RailMap& map) {
  const railtune::formats::RailMapNetwork& net = map.network;
  require(net.trafficClass >= -1 && net.trafficClass <= 255 && net.serviceLevel >= -1 && net.serviceLevel <= 15 &&
          net.gidIndex >= -1 && net.gidIndex <= 65535);
  std::set<std::string> names;
  for (const railtune::formats::RailMapHost& host : map.hosts) {
    require(!host.name.empty() && names.insert(host.name).second);
    require(map.findHost(host.name) == &host);
    const railtune::qp::FabricShape shape = railtune::formats::fabricShapeOf(map, &host);
    require(shape.rails >= 1 && shape.rails <= map.rails && shape.planes >= 1 && shape.planes <= map.planes + 1);
    for (const railtune::formats::RailMapGpu& gpu : host.gpus)
      for (const railtune::formats::RailMapNic& nic : gpu.nics)
        require(!nic.hca.empty() && nic.rail >= 0 && nic.rail < map.rails && nic.plane >= -1 &&
                nic.plane < map.planes && nic.port >= 1 && nic.hca.find('\0') == std::string::npos);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    checkAccepted(railtune::formats::parseRailMap(text, "fuzz.json"));
  } catch (const railtune::formats::RailMapError& e) {
    require(std::string(e.what()).rfind("fuzz.json:", 0) == 0);  // "fuzz.json:LINE:COLUMN: " or "fuzz.json: "
  }
  return 0;
}
