// Every output topo_gen produces for one cluster, written into one folder and then checked as
// `railtune topo check` would: what NCCL, the plugins and the schedulers would read, side by side (the topology
// half of `railtune demo`).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace railtune::topo {

struct ClusterOutputs {
  std::string clusterName;  // "the built-in cluster NAME", or the description's path
  size_t domains = 0, hosts = 0, gpus = 0;
  int rails = 0, planes = 0;
  int filesWritten = 0;
  std::string checkReport;  // the findings, then one verdict line (also written as check.txt)
  size_t errors = 0;        // 0: the outputs agree with each other and with NCCL's limits
};

// FABRIC_PATH "" = the embedded default cluster. Writes DIR/{fabric.yaml (the description as read),
// nccl-topo/<host>.xml, rail-map.json, labels.json, label-nodes.sh, hypernodes.yaml, kueue-topology.yaml,
// slurm-topology-{block,tree}.conf, env/<first host>.sh, check.txt}. A description the checks reject gets only
// fabric.yaml and check.txt. The launcher env points at the files written there and at the plugins in
// PLUGIN_DIR. Throws fabric::FabricError for a description that cannot be read, std::runtime_error when a file
// cannot be read or written.
ClusterOutputs writeClusterOutputs(const std::string& fabricPath, const std::filesystem::path& dir,
                                   const std::filesystem::path& pluginDir);

}  // namespace railtune::topo
