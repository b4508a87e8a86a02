#include "fabric/rail_map_write.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "formats/rail_map.h"

namespace railtune::fabric {
namespace {

using ordered = nlohmann::ordered_json;

ordered nicRecord(const Nic& nic) {
  ordered record{{"hca", nic.hca},   {"netdev", nic.netdev}, {"bus_id", nic.busId},
                 {"port", nic.port}, {"rail", nic.rail},     {"plane", nic.plane}};
  if (nic.speedMbps > 0) record["speed_mbps"] = nic.speedMbps;  // what the tuner's model sizes the network by
  return record;
}

void requireMapped(const Host& host) {
  for (const Nic& nic : host.nics) {
    if (nic.rail < 0) throw std::invalid_argument("host " + host.name + ": NIC " + nic.hca + " has no rail");
    const bool hasGpu =
        std::any_of(host.gpus.begin(), host.gpus.end(), [&](const Gpu& g) { return g.index == nic.nearestGpu; });
    if (!hasGpu)
      throw std::invalid_argument("host " + host.name + ": NIC " + nic.hca +
                                  " has no nearest GPU, so the rail map cannot give it to one");
  }
}

ordered hostRecord(const Host& host) {
  requireMapped(host);
  ordered gpus = ordered::array();
  for (const Gpu& gpu : host.gpus) {
    std::vector<const Nic*> nics;
    for (const Nic& nic : host.nics)
      if (nic.nearestGpu == gpu.index) nics.push_back(&nic);
    std::stable_sort(nics.begin(), nics.end(), [](const Nic* a, const Nic* b) {
      return a->rail != b->rail ? a->rail < b->rail : a->plane < b->plane;
    });
    ordered list = ordered::array();
    for (const Nic* nic : nics) list.push_back(nicRecord(*nic));
    gpus.push_back(ordered{{"index", gpu.index}, {"bus_id", gpu.busId}, {"nics", list}});
  }
  return ordered{{"name", host.name}, {"domain", host.domain}, {"gpus", gpus}};
}

}  // namespace

std::string writeRailMap(const Fabric& fabric) {
  ordered hosts = ordered::array();
  for (const Host& host : fabric.hosts) hosts.push_back(hostRecord(host));
  const ordered doc{{"schema", formats::kRailMapSchema},
                    {"cluster", fabric.name},
                    {"rails", fabric.network.rails},
                    {"planes", fabric.network.planes},
                    {"hosts", hosts}};
  return doc.dump(2) + "\n";
}

}  // namespace railtune::fabric
