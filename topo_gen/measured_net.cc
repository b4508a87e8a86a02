// Measured network settings for a cluster (measured_net.h).
#include "topo_gen/measured_net.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "formats/host_nccl_env.h"
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
  return formats::measuredNcclDecisions(measured, env);  // the one the NCCL_* table (host_nccl_env.h) applies
}

}  // namespace railtune::topo
