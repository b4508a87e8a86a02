// The NCCL_* table of one host from the rail map (host_nccl_env.h).
#include "formats/host_nccl_env.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "formats/measured_env.h"
#include "formats/nccl_if_list.h"

namespace railtune::formats {
namespace {

namespace fs = std::filesystem;

std::string withHost(std::string pattern, const std::string& host) {
  for (size_t at = pattern.find("{host}"); at != std::string::npos; at = pattern.find("{host}", at + host.size()))
    pattern.replace(at, 6, host);
  return pattern;
}

std::string absolutePath(const std::string& path) {
  return fs::absolute(fs::path(path)).lexically_normal().string();
}

// The host's rail NICs in rail then plane order (the fabric model's order of a host's NICs; the map lists them GPU
// by GPU), each once.
std::vector<const RailMapNic*> railNics(const RailMapHost& host, int onlyGpu) {
  std::vector<const RailMapNic*> nics;
  for (const RailMapGpu& gpu : host.gpus)
    if (onlyGpu < 0 || gpu.index == onlyGpu)
      for (const RailMapNic& nic : gpu.nics) nics.push_back(&nic);
  std::stable_sort(nics.begin(), nics.end(), [](const RailMapNic* a, const RailMapNic* b) {
    return a->rail != b->rail ? a->rail < b->rail : a->plane < b->plane;
  });
  if (nics.empty())
    throw std::invalid_argument(onlyGpu >= 0
                                    ? "host '" + host.name + "' has no rail NIC next to GPU " + std::to_string(onlyGpu)
                                    : "host '" + host.name + "' has no NIC on a rail");
  if (nics.size() > kMaxIbHcaEntries)  // NCCL's NCCL_IB_HCA parser keeps at most that many
    throw std::invalid_argument("host '" + host.name + "' has " + std::to_string(nics.size()) +
                                " rail NICs; NCCL_IB_HCA holds at most " + std::to_string(kMaxIbHcaEntries));
  return nics;
}

// With several trays in one NVLink domain NCCL must use MNNVL, which needs cuMem. MNNVL_ENABLE=1 runs NCCL's MNNVL
// check even where it would skip it, and still falls back quietly when the fabric registration is not complete.
// NCCL_NVLS_ENABLE stays at NCCL's default (2: use NVLS where the GPU reports multicast support): "1" skips that
// check, so a tray whose fabric is not ready fails at init with a CUDA error instead of running without NVLS.
void addNvlinkDomainVars(const RailMap& map, const RailMapHost& host, NcclEnvVars& vars) {
  if (host.domain.empty()) return;
  const auto trays = std::count_if(map.hosts.begin(), map.hosts.end(),
                                   [&](const RailMapHost& other) { return other.domain == host.domain; });
  if (trays < 2) return;
  vars.emplace_back("NCCL_MNNVL_ENABLE", "1");
  vars.emplace_back("NCCL_CUMEM_ENABLE", "1");
}

// The QP policy's choices that differ from NCCL's defaults. Every one of these variables means the same in NCCL
// 2.28 and 2.30 (docs/qp-policy.md), so the version does not enter.
void addQpPolicyVars(const qp::QpPolicy& policy, NcclEnvVars& vars) {
  for (const qp::Decision& decision : policy.why)
    if (decision.changed) vars.emplace_back(decision.variable, decision.value);
}

// The measured variables outside the QP policy: NCCL_CROSS_NIC replaces the rail policy's 0 in place, the others
// follow; one this function sets from the rail map keeps the map's value.
void addMeasuredVars(const qp::MeasuredNet& measured, EnvLookup env, NcclEnvVars& vars) {
  for (const qp::Decision& d : measuredNcclDecisions(measured, env)) {
    if (!d.changed) continue;
    const auto it = std::find_if(vars.begin(), vars.end(), [&](const auto& v) { return v.first == d.variable; });
    if (it == vars.end())
      vars.emplace_back(d.variable, d.value);
    else if (d.variable == "NCCL_CROSS_NIC")
      it->second = d.value;
  }
}

void addPluginVars(const PluginChoice& plugins, NcclEnvVars& vars) {
  if (plugins.dir.empty()) return;
  const fs::path dir = fs::absolute(fs::path(plugins.dir)).lexically_normal();
  if (plugins.net) vars.emplace_back("NCCL_NET_PLUGIN", (dir / "libnccl-net-railtune.so").string());
  if (plugins.tuner) vars.emplace_back("NCCL_TUNER_PLUGIN", (dir / "libnccl-tuner-railtune.so").string());
  if (plugins.profiler) vars.emplace_back("NCCL_PROFILER_PLUGIN", (dir / "libnccl-profiler-railtune.so").string());
}

}  // namespace

std::string ibHcaList(const std::vector<const RailMapNic*>& nics, int ncclMinor) {
  std::string list = "=";
  for (const RailMapNic* nic : nics) {
    if (list.size() > 1) list += ',';
    list += nic->hca + ":" + std::to_string(nic->port);
    // 2.30 reads <hca>:<port>:<rail>:<plane>; older versions stop after the port.
    if (ncclMinor >= 30) list += ":" + std::to_string(nic->rail);
    if (ncclMinor >= 30 && nic->plane >= 0) list += ":" + std::to_string(nic->plane);
  }
  return list;
}

std::vector<qp::Decision> measuredNcclDecisions(const qp::MeasuredNet& measured, EnvLookup env) {
  std::vector<std::pair<std::string, std::string>> vars;
  if (measured.crossNic) vars.emplace_back("NCCL_CROSS_NIC", std::to_string(*measured.crossNic));
  if (measured.channelsPerNetPeer)
    vars.emplace_back("NCCL_NCHANNELS_PER_NET_PEER", std::to_string(*measured.channelsPerNetPeer));
  vars.insert(vars.end(), measured.others.begin(), measured.others.end());
  std::vector<qp::Decision> out;
  for (const auto& [name, value] : vars) {
    const std::optional<std::string> user = env ? env(name.c_str()) : std::nullopt;
    if (user && !user->empty())  // NCCL takes an empty value for unset
      out.push_back({name, *user,
                     "set in the environment (" + name + "), which NCCL reads itself; the measured " + value +
                         " is not used (" + measured.source + ")",
                     false});
    else
      out.push_back({name, value, measured.source, true});
  }
  return out;
}

NcclEnvVars hostNcclEnv(const RailMap& map, const RailMapHost& host, const HostNcclEnvOptions& options) {
  if (options.ncclMinor < 28)
    throw std::invalid_argument("NCCL 2." + std::to_string(options.ncclMinor) +
                                " is older than 2.28, the oldest supported");
  const qp::FabricShape shape = options.shape ? *options.shape : fabricShapeOf(map, &host);
  NcclEnvVars vars;
  if (!options.topoFile.empty())
    vars.emplace_back("NCCL_TOPO_FILE", absolutePath(withHost(options.topoFile, host.name)));
  vars.emplace_back("NCCL_IB_HCA", ibHcaList(railNics(host, options.onlyGpu), options.ncclMinor));
  vars.emplace_back("NCCL_CROSS_NIC", "0");
  if (options.ncclMinor >= 30) vars.emplace_back("NCCL_NET_MERGE_POLICY", "RAIL");
  addQpPolicyVars(qp::chooseQpPolicy(shape, options.env), vars);
  addNvlinkDomainVars(map, host, vars);
  addPluginVars(options.plugins, vars);
  addMeasuredVars(shape.measured, options.env, vars);  // last of NCCL's: it sees every variable set above
  return vars;
}

}  // namespace railtune::formats
