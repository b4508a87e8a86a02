#include "topo_gen/launcher_env.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include "formats/nccl_if_list.h"
#include "topo_gen/measured_net.h"
#include "topo_gen/sched_common.h"

namespace railtune::topo {
namespace {

namespace fs = std::filesystem;

std::string absolutePath(const std::string& path) {
  return fs::absolute(fs::path(path)).lexically_normal().string();
}

std::string withHost(std::string pattern, const std::string& host) {
  for (size_t at = pattern.find("{host}"); at != std::string::npos; at = pattern.find("{host}", at + host.size()))
    pattern.replace(at, 6, host);
  return pattern;
}

const fabric::Gpu& localGpu(const fabric::Host& host, int localRank, const std::string& why) {
  if (localRank < 0) throw std::invalid_argument(why + " needs the local rank (--local-rank)");
  for (const fabric::Gpu& gpu : host.gpus)
    if (gpu.index == localRank) return gpu;
  throw std::invalid_argument("local rank " + std::to_string(localRank) + " has no GPU on host '" + host.name +
                              "' (it has " + std::to_string(host.gpus.size()) + ")");
}

std::vector<const fabric::Nic*> railNics(const fabric::Host& host, const LauncherEnvOptions& options) {
  std::vector<const fabric::Nic*> nics;
  const int gpu = options.oneHcaPerRank ? localGpu(host, options.localRank, "--one-hca-per-rank").index : -1;
  for (const fabric::Nic& nic : host.nics)
    if (nic.rail >= 0 && (gpu < 0 || nic.nearestGpu == gpu)) nics.push_back(&nic);
  if (nics.empty())
    throw std::invalid_argument(options.oneHcaPerRank
                                    ? "host '" + host.name + "' has no rail NIC next to GPU " + std::to_string(gpu)
                                    : "host '" + host.name + "' has no NIC on a rail");
  if (nics.size() > formats::kMaxIbHcaEntries)  // NCCL's NCCL_IB_HCA parser keeps at most that many
    throw std::invalid_argument("host '" + host.name + "' has " + std::to_string(nics.size()) +
                                " rail NICs; NCCL_IB_HCA holds at most " + std::to_string(formats::kMaxIbHcaEntries));
  return nics;
}

void addNvlinkDomainVars(const fabric::Fabric& fabric, const fabric::Host& host, EnvVars& vars) {
  // With several trays in one NVLink domain NCCL must use MNNVL, which needs cuMem. MNNVL_ENABLE=1
  // runs NCCL's MNNVL check even where it would skip it, and still falls back quietly when the
  // fabric registration is not complete. NCCL_NVLS_ENABLE stays at NCCL's default (2: use NVLS where
  // the GPU reports multicast support): "1" skips that check, so a tray whose fabric is not ready
  // fails at init with a CUDA error instead of running without NVLS, and any job with two ranks on
  // one GPU fails with ncclInvalidUsage. A tray that lost NVLinks is caught by `topo discover`.
  if (domainOf(fabric, host).hosts.size() < 2) return;
  vars.emplace_back("NCCL_MNNVL_ENABLE", "1");
  vars.emplace_back("NCCL_CUMEM_ENABLE", "1");
}

// The QP policy's choices that differ from NCCL's defaults. Every one of these variables means the
// same in NCCL 2.28 and 2.30 (docs/qp-policy.md), so the version does not enter.
void addQpPolicyVars(const qp::QpPolicy& policy, EnvVars& vars) {
  for (const qp::Decision& decision : policy.why)
    if (decision.changed) vars.emplace_back(decision.variable, decision.value);
}

// One GID index for every rail NIC, or -1 when one is unknown or they differ (then NCCL picks per port).
int commonGidIndex(const std::vector<const fabric::Nic*>& nics) {
  std::set<int> indexes;
  for (const fabric::Nic* nic : nics) indexes.insert(nic->gidIndex);
  return indexes.size() == 1 ? *indexes.begin() : -1;
}

// The measured variables outside the QP policy: NCCL_CROSS_NIC replaces the rail policy's 0 in place, the others
// follow; one this function sets from the fabric keeps the fabric's value.
void addMeasuredVars(const qp::MeasuredNet& measured, EnvLookup env, EnvVars& vars) {
  for (const qp::Decision& d : measuredNcclDecisions(measured, env)) {
    if (!d.changed) continue;
    const auto it = std::find_if(vars.begin(), vars.end(), [&](const auto& v) { return v.first == d.variable; });
    if (it == vars.end())
      vars.emplace_back(d.variable, d.value);
    else if (d.variable == "NCCL_CROSS_NIC")
      it->second = d.value;
  }
}

void addPluginVars(const std::string& pluginDir, EnvVars& vars) {
  if (pluginDir.empty()) return;
  const fs::path dir = fs::absolute(fs::path(pluginDir)).lexically_normal();
  vars.emplace_back("NCCL_NET_PLUGIN", (dir / "libnccl-net-railtune.so").string());
  vars.emplace_back("NCCL_TUNER_PLUGIN", (dir / "libnccl-tuner-railtune.so").string());
  vars.emplace_back("NCCL_PROFILER_PLUGIN", (dir / "libnccl-profiler-railtune.so").string());
}

}  // namespace

std::string ibHcaList(const std::vector<const fabric::Nic*>& nics, int ncclMinor) {
  std::string list = "=";
  for (const fabric::Nic* nic : nics) {
    if (list.size() > 1) list += ',';
    list += nic->hca + ":" + std::to_string(nic->port);
    // 2.30 reads <hca>:<port>:<rail>:<plane>; older versions stop after the port.
    if (ncclMinor >= 30) {
      list += ':';
      list += std::to_string(nic->rail);
    }
    if (ncclMinor >= 30 && nic->plane >= 0) {
      list += ':';
      list += std::to_string(nic->plane);
    }
  }
  return list;
}

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
  EnvVars vars;
  if (!options.topoFile.empty())
    vars.emplace_back("NCCL_TOPO_FILE", absolutePath(withHost(options.topoFile, host.name)));
  vars.emplace_back("NCCL_IB_HCA", ibHcaList(railNics(host, options), options.ncclMinor));
  vars.emplace_back("NCCL_CROSS_NIC", "0");
  if (options.ncclMinor >= 30) vars.emplace_back("NCCL_NET_MERGE_POLICY", "RAIL");
  addQpPolicyVars(launcherQpPolicy(fabric, options), vars);
  addNvlinkDomainVars(fabric, host, vars);
  addPluginVars(options.pluginDir, vars);
  addMeasuredVars(options.measured, options.env, vars);  // last of NCCL's: it sees every variable set above
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
