// Measured network settings for a cluster (measured_net.h).
#include "topo_gen/measured_net.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "topo_gen/sched_common.h"

namespace railtune::topo {

formats::NetEnvCluster netEnvClusterOf(const fabric::Fabric& fabric, const std::string& hostName) {
  const fabric::Host& host = hostNamed(fabric, hostName);
  formats::NetEnvCluster cluster;
  if (!host.gpus.empty()) {
    cluster.gpuModel = host.gpus.front().model;
    cluster.grace = host.gpus.front().c2cLinks > 0;  // GB200 / GB300: the GPU beside a Grace CPU
  }
  bool any = false;
  for (const fabric::Nic& nic : host.nics) {
    if (nic.rail < 0) continue;
    if (!any) cluster.linkLayer = nic.linkLayer == "Ethernet" ? "RoCE" : "IB";
    any = true;
    const int gbps = nic.speedMbps / 1000;
    if (gbps > 0) cluster.nicGbps = cluster.nicGbps == 0 ? gbps : std::min(cluster.nicGbps, gbps);
  }
  if (!any) throw std::invalid_argument("host '" + host.name + "' has no NIC on a rail");
  return cluster;
}

formats::NetEnvChoice measuredForHost(const fabric::Fabric& fabric, const std::string& host, const std::string& path) {
  const formats::NetEnvFile file = formats::readNetEnvFile(path);
  const std::string name = std::filesystem::path(path).filename().string();
  return formats::chooseNetEnv(file, netEnvClusterOf(fabric, host), name);
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

}  // namespace railtune::topo
