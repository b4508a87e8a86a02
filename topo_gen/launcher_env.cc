#include "topo_gen/launcher_env.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include "formats/host_nccl_env.h"
#include "formats/rail_map.h"
#include "topo_gen/sched_common.h"

namespace railtune::topo {
namespace {

namespace fs = std::filesystem;

std::string absolutePath(const std::string& path) {
  return fs::absolute(fs::path(path)).lexically_normal().string();
}

const fabric::Gpu& localGpu(const fabric::Host& host, int localRank, const std::string& why) {
  if (localRank < 0) throw std::invalid_argument(why + " needs the local rank (--local-rank)");
  for (const fabric::Gpu& gpu : host.gpus)
    if (gpu.index == localRank) return gpu;
  throw std::invalid_argument("local rank " + std::to_string(localRank) + " has no GPU on host '" + host.name +
                              "' (it has " + std::to_string(host.gpus.size()) + ")");
}

// One GID index for every rail NIC, or -1 when one is unknown or they differ (then NCCL picks per port).
int commonGidIndex(const std::vector<const fabric::Nic*>& nics) {
  std::set<int> indexes;
  for (const fabric::Nic* nic : nics) indexes.insert(nic->gidIndex);
  return indexes.size() == 1 ? *indexes.begin() : -1;
}

// The host as the rail map holds it (fabric/rail_map_write.h: each GPU's NICs in rail then plane order), without the
// JSON round trip: one launcher env per rank of a large cluster stays cheap. Throws std::invalid_argument where the
// writer does (a NIC without rail or nearest GPU), so that topo env and the env plugin, which reads the written map,
// fail alike; tests/e2e/env_plugin_agreement_test.cc holds their answers equal.
formats::RailMapHost railMapHost(const fabric::Host& host) {
  formats::RailMapHost mapped{host.name, host.domain, {}};
  for (const fabric::Nic& nic : host.nics)
    if (nic.rail < 0 || std::none_of(host.gpus.begin(), host.gpus.end(),
                                     [&](const fabric::Gpu& g) { return g.index == nic.nearestGpu; }))
      throw std::invalid_argument("host " + host.name + ": NIC " + nic.hca +
                                  (nic.rail < 0 ? " has no rail" : " has no nearest GPU"));
  for (const fabric::Gpu& gpu : host.gpus) {
    formats::RailMapGpu& mappedGpu = mapped.gpus.emplace_back();
    mappedGpu.index = gpu.index;
    mappedGpu.busId = gpu.busId;
    for (const fabric::Nic& nic : host.nics)
      if (nic.nearestGpu == gpu.index)
        mappedGpu.nics.push_back({nic.hca, nic.netdev, nic.busId, nic.port, nic.rail, nic.plane, nic.speedMbps});
    std::stable_sort(mappedGpu.nics.begin(), mappedGpu.nics.end(), [](const auto& x, const auto& y) {
      return x.rail != y.rail ? x.rail < y.rail : x.plane < y.plane;
    });
  }
  return mapped;
}

// What formats::hostNcclEnv, the table's one function, reads of the map for `host`: the host itself, and the other
// hosts of its NVLink domain by name (their count decides MNNVL).
formats::RailMap railMapAround(const fabric::Fabric& fabric, const fabric::Host& host) {
  formats::RailMap map;
  map.cluster = fabric.name;
  map.rails = fabric.network.rails;
  map.planes = fabric.network.planes;
  map.hosts.push_back(railMapHost(host));
  if (host.domain.empty()) return map;
  for (const fabric::Host& other : fabric.hosts)
    if (other.domain == host.domain && other.name != host.name) map.hosts.push_back({other.name, other.domain, {}});
  return map;
}

formats::HostNcclEnvOptions tableOptions(const fabric::Fabric& fabric, const fabric::Host& host,
                                         const LauncherEnvOptions& options) {
  formats::HostNcclEnvOptions table;
  table.ncclMinor = options.ncclMinor;
  table.topoFile = options.topoFile;
  if (options.oneHcaPerRank) table.onlyGpu = localGpu(host, options.localRank, "--one-hca-per-rank").index;
  table.plugins = {options.pluginDir, true, true, true};
  table.env = options.env;
  table.shape = fabricShape(fabric, host.name);
  table.shape->measured = options.measured;
  return table;
}

}  // namespace

qp::FabricShape fabricShape(const fabric::Fabric& fabric, const std::string& hostName) {
  const fabric::Host& host = hostNamed(fabric, hostName);
  std::vector<const fabric::Nic*> nics;
  std::map<int, std::set<int>> planesByRail;
  for (const fabric::Nic& nic : host.nics) {
    if (nic.rail < 0) continue;
    nics.push_back(&nic);
    planesByRail[nic.rail].insert(nic.plane);
  }
  if (nics.empty()) throw std::invalid_argument("host '" + host.name + "' has no NIC on a rail");
  qp::FabricShape shape;
  shape.linkLayer = nics.front()->linkLayer == "Ethernet" ? qp::LinkLayer::Ethernet : qp::LinkLayer::InfiniBand;
  shape.rails = static_cast<int>(planesByRail.size());
  for (const auto& [rail, planes] : planesByRail)
    shape.planes = std::max(shape.planes, static_cast<int>(planes.size()));
  shape.speedMbps = nics.front()->speedMbps;
  for (const fabric::Nic* nic : nics) shape.speedMbps = std::min(shape.speedMbps, nic->speedMbps);
  shape.adaptiveRouting = fabric.network.adaptiveRouting;
  shape.gidIndex = commonGidIndex(nics);
  shape.trafficClass = fabric.network.trafficClass;
  shape.serviceLevel = fabric.network.serviceLevel;
  return shape;
}

qp::QpPolicy launcherQpPolicy(const fabric::Fabric& fabric, const LauncherEnvOptions& options) {
  qp::FabricShape shape = fabricShape(fabric, options.host);
  shape.measured = options.measured;
  return qp::chooseQpPolicy(shape, options.env);
}

EnvVars launcherEnv(const fabric::Fabric& fabric, const LauncherEnvOptions& options) {
  if (options.ncclMinor < 28)
    throw std::invalid_argument("NCCL 2." + std::to_string(options.ncclMinor) +
                                " is older than 2.28, the oldest supported");
  const fabric::Host& host = hostNamed(fabric, options.host);
  const formats::HostNcclEnvOptions table = tableOptions(fabric, host, options);
  const formats::RailMap map = railMapAround(fabric, host);
  EnvVars vars = formats::hostNcclEnv(map, *map.findHost(host.name), table);
  if (!options.railMap.empty()) vars.emplace_back("RAILTUNE_RAIL_MAP", absolutePath(options.railMap));
  if (options.isolateGpu)
    vars.emplace_back("CUDA_VISIBLE_DEVICES", std::to_string(localGpu(host, options.localRank, "--isolate-gpu").index));
  return vars;
}

std::string exportLines(const EnvVars& vars) {
  std::string text;
  for (const auto& [name, value] : vars)
    text += "export " + name + "=" + shellQuote(value, kSchedulerShellQuoting) + "\n";
  return text;
}

}  // namespace railtune::topo
