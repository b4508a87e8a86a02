// The launcher environment for one rank: the NCCL_* settings (and RAILTUNE_RAIL_MAP) that make NCCL
// use this host's topology file, keep each ring/tree on its rail, and load railtune's plugins by
// absolute path. The NCCL_* table is formats::hostNcclEnv's, computed from the rail map written from the
// fabric model: the same function the env plugin (NCCL_ENV_PLUGIN=railtune) answers NCCL with. It never sets NCCL_NET:
// naming a transport turns a plugin that steps aside into a failed job, where without it NCCL falls back to its own IB
// transport.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/params.h"
#include "common/qp_policy.h"
#include "fabric/model.h"

namespace railtune::topo {

struct LauncherEnvOptions {
  std::string host;            // required: a Host::name of the fabric
  int localRank = -1;          // -1 = not known (then --isolate-gpu and --one-hca-per-rank fail)
  bool isolateGpu = false;     // set CUDA_VISIBLE_DEVICES to the local rank's GPU
  bool oneHcaPerRank = false;  // NCCL_IB_HCA lists only the local rank's GPU's NICs
  int ncclMinor = 30;          // NCCL 2.<minor>: 28 or later; 30+ adds the rail merge policy and rail ids
  std::string topoFile;        // NCCL_TOPO_FILE; "{host}" is replaced by the host name; "" = not set
  std::string railMap;         // RAILTUNE_RAIL_MAP; "" = not set
  std::string pluginDir;       // folder of libnccl-{net,tuner,profiler}-railtune.so; "" = not set
  EnvLookup env = nullptr;     // where RAILTUNE_NET_QPS and the user's NCCL_IB_* come from; null = none
  qp::MeasuredNet measured;    // settings measured on this fabric (topo_gen/measured_net.h); none by default
};

using EnvVars = std::vector<std::pair<std::string, std::string>>;

// In a fixed order (formats/host_nccl_env.h), then RAILTUNE_RAIL_MAP and CUDA_VISIBLE_DEVICES; the QP policy's
// NCCL_IB_* variables (those that differ from NCCL's defaults, the same policy the net plugin's verbs transport
// follows) come after NCCL_CROSS_NIC. Measured settings (options.measured) go into the QP policy, replace
// NCCL_CROSS_NIC's 0, and add NCCL_NCHANNELS_PER_NET_PEER and the entry's other variables after the plugins', each
// unless the user's environment sets it; a measured variable this function sets from the fabric (NCCL_IB_HCA, ...)
// keeps the fabric's value. Throws std::invalid_argument naming the problem (unknown host, local rank out of range or
// missing where an option needs it, more than NCCL's 32 HCAs, a host without rail NICs).
EnvVars launcherEnv(const fabric::Fabric& fabric, const LauncherEnvOptions& options);

// The fabric shape of a host's rail NICs (link layer, rails, planes, slowest port, the GID index they
// all share) and the fabric's switch settings, for the QP policy. Throws like launcherEnv.
qp::FabricShape fabricShape(const fabric::Fabric& fabric, const std::string& host);

// The QP policy for options.host with options.env and options.measured, as launcherEnv applies it.
qp::QpPolicy launcherQpPolicy(const fabric::Fabric& fabric, const LauncherEnvOptions& options);

// "export NAME=<shell-quoted value>" lines.
std::string exportLines(const EnvVars& vars);

}  // namespace railtune::topo
