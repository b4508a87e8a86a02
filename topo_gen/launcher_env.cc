#include "topo_gen/launcher_env.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include "fabric/rail_map_write.h"
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

// The rail map of the fabric's hosts that share `host`'s NVLink domain (the host alone outside one), written and
// read back as the plugins read it: what formats::hostNcclEnv, the table's one function, computes from. Throws
// std::invalid_argument like writeRailMap (a NIC without rail or nearest GPU).
formats::RailMap railMapAround(const fabric::Fabric& fabric, const fabric::Host& host) {
  fabric::Fabric domain = fabric;
  domain.hosts.clear();
  for (const fabric::Host& other : fabric.hosts)
    if (other.name == host.name || (!host.domain.empty() && other.domain == host.domain)) domain.hosts.push_back(other);
  return formats::parseRailMap(fabric::writeRailMap(domain), "rail map of " + host.name);
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
