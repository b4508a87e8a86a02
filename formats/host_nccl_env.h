// The NCCL_* table of one host, computed from the rail map: what `railtune topo env` exports (topo_gen/launcher_env.h
// writes the map of the fabric model in memory and asks this function) and what the env plugin answers NCCL's getEnv
// with (env_plugin/, NCCL_ENV_PLUGIN=railtune). One function for both, so that the launcher's exports and the plugin's
// answers cannot drift apart; tests/unit/env_plugin holds them equal for every host of the default cluster.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/params.h"
#include "common/qp_policy.h"
#include "formats/rail_map.h"

namespace railtune::formats {

using NcclEnvVars = std::vector<std::pair<std::string, std::string>>;

// The railtune plugins whose NCCL_*_PLUGIN variable the table sets, each to <pluginDir>/libnccl-<kind>-railtune.so.
struct PluginChoice {
  std::string dir;  // "" = none of them
  bool net = false, tuner = false, profiler = false;
};

struct HostNcclEnvOptions {
  int ncclMinor = 30;    // NCCL 2.<minor>, 28 or later: 30+ adds the rail merge policy and :rail:plane in NCCL_IB_HCA
  std::string topoFile;  // NCCL_TOPO_FILE; "{host}" is replaced by the host name, made absolute; "" = not set
  int onlyGpu = -1;      // NCCL_IB_HCA lists only this GPU's NICs (one HCA per rank); -1 = every GPU's
  PluginChoice plugins;
  EnvLookup env = nullptr;  // the user's environment (RAILTUNE_NET_QPS, NCCL_IB_*) for the QP policy; null = none
  // The QP policy's fabric shape, measured settings included, where the caller knows it better than the map: `topo
  // env` passes the fabric model's (a GID index per host, where the map keeps only one every host shares; the
  // measured entry chosen for the host). nullopt: fabricShapeOf(map, &host), the map's `network.measured` included.
  std::optional<qp::FabricShape> shape;
};

// In a fixed order: NCCL_TOPO_FILE, NCCL_IB_HCA, NCCL_CROSS_NIC, NCCL_NET_MERGE_POLICY (2.30+), the QP policy's
// NCCL_IB_* values that differ from NCCL's defaults, NCCL_MNNVL_ENABLE and NCCL_CUMEM_ENABLE (an NVLink domain of
// several hosts), the plugins', then the measured variables outside the QP policy (NCCL_CROSS_NIC's measured value
// replaces the rail policy's 0 in place; one the user's environment sets is left out). Throws std::invalid_argument
// naming the problem: NCCL older than 2.28, a host (or GPU) without rail NICs, more than NCCL's 32 HCAs.
NcclEnvVars hostNcclEnv(const RailMap& map, const RailMapHost& host, const HostNcclEnvOptions& options);

// NCCL_IB_HCA's value: "=" (exact match, so mlx5_1 does not also pick mlx5_10..19), then hca:port (NCCL < 2.30)
// or hca:port:rail[:plane] (2.30+, which reads rail and plane from it).
std::string ibHcaList(const std::vector<const RailMapNic*>& nics, int ncclMinor);

// The measured variables the QP policy does not decide (NCCL_CROSS_NIC, NCCL_NCHANNELS_PER_NET_PEER and any other
// the measurement names), each a Decision with the measurement's source and changed = true where the table sets it;
// a variable the user's environment sets is kept as the user's (changed = false, the source says so).
std::vector<qp::Decision> measuredNcclDecisions(const qp::MeasuredNet& measured, EnvLookup env);

}  // namespace railtune::formats
