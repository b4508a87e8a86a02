#include "fabric/rail_map_write.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
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

// The network facts the QP policy reads (formats::RailMapNetwork): the switch settings the description
// states, and the link layer and GID index of the rail NICs when all of them agree. Empty (and then not
// written, so that a map of a fabric that states none reads byte for byte as before) when the fabric states
// no switch setting, its rail NICs share no known GID index and they are all InfiniBand (the model's
// default, which a reader that finds no `network` assumes as well).
ordered networkRecord(const Fabric& fabric, const formats::MeasuredEnv& measured, const std::string& source) {
  std::set<std::string> linkLayers;
  std::set<int> gidIndexes;
  for (const Host& host : fabric.hosts)
    for (const Nic& nic : host.nics) {
      if (nic.rail < 0) continue;
      linkLayers.insert(nic.linkLayer);
      gidIndexes.insert(nic.gidIndex);
    }
  const Network& net = fabric.network;
  const bool gidKnown = gidIndexes.size() == 1 && *gidIndexes.begin() >= 0;
  const bool stated = net.adaptiveRouting || net.trafficClass >= 0 || net.serviceLevel >= 0 || gidKnown ||
                      linkLayers.count("Ethernet") != 0 || !measured.empty();
  ordered record = ordered::object();
  if (!stated) return record;
  if (linkLayers.size() == 1) record["link_layer"] = *linkLayers.begin();
  if (net.adaptiveRouting) record["adaptive_routing"] = *net.adaptiveRouting;
  if (net.trafficClass >= 0) record["traffic_class"] = net.trafficClass;
  if (net.serviceLevel >= 0) record["service_level"] = net.serviceLevel;
  if (gidKnown) record["gid_index"] = *gidIndexes.begin();
  if (measured.empty()) return record;
  formats::MeasuredEnv env = measured;
  std::sort(env.begin(), env.end());  // byte order, as the reader returns them
  ordered vars = ordered::object();
  for (const auto& [name, value] : env) vars[name] = value;
  record["measured"] = ordered{{"source", source}, {"env", std::move(vars)}};
  return record;
}

// The GPU model as NCCL names the device (cudaDeviceProp.name, which nccl-tests prints and a fitted model's
// `applies_to.gpu` holds), when every GPU of the fabric is one model; "" otherwise. A GPU model from discovery
// is NVML's name less "NVIDIA " ("GB300"); a hardware profile names the chip ("B300"), and a Blackwell chip
// attached to Grace over C2C is the superchip NCCL reports ("NVIDIA GB300").
std::string deviceName(const Fabric& fabric) {
  std::set<std::string> models;
  const Gpu* first = nullptr;
  for (const Host& host : fabric.hosts)
    for (const Gpu& gpu : host.gpus) {
      models.insert(gpu.model);
      if (first == nullptr) first = &gpu;
    }
  if (models.size() != 1 || first->model.empty()) return "";
  const bool graceSuperchip = first->c2cLinks > 0 && first->model[0] == 'B';
  return "NVIDIA " + std::string(graceSuperchip ? "G" : "") + first->model;
}

}  // namespace

std::string writeRailMap(const Fabric& fabric, const formats::MeasuredEnv& measured,
                         const std::string& measuredSource) {
  ordered hosts = ordered::array();
  for (const Host& host : fabric.hosts) hosts.push_back(hostRecord(host));
  ordered doc{{"schema", formats::kRailMapSchema}, {"cluster", fabric.name}};
  if (const std::string gpu = deviceName(fabric); !gpu.empty()) doc["gpu"] = gpu;
  doc["rails"] = fabric.network.rails;
  doc["planes"] = fabric.network.planes;
  ordered network = networkRecord(fabric, measured, measuredSource);
  if (!network.empty()) doc["network"] = std::move(network);
  doc["hosts"] = std::move(hosts);
  return doc.dump(2) + "\n";
}

}  // namespace railtune::fabric
