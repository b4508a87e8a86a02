// Which entry of a net-env file (net_env.h) applies to a cluster, and the measured settings it gives the QP policy
// and `railtune topo env`. Network settings are per process while the entries are per communicator shape, so one
// entry is chosen: among those for the cluster's GPU and fabric, the one with the most nodes (then ranks; then
// all-reduce; then file order), the others noted where their settings differ. docs/qp-policy.md, "Measured".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/qp_policy.h"
#include "formats/net_env.h"

namespace railtune::formats {

// The cluster as its fabric description states it: the GPU model as the description names it ("B300"), whether
// it sits beside a Grace CPU (NVIDIA then names the device "NVIDIA GB300"), the rail NICs' link layer in NCCL's
// words ("IB", "RoCE") and their slowest port in Gb/s (0 unknown).
struct NetEnvCluster {
  std::string gpuModel;
  bool grace = false;
  std::string linkLayer;
  int nicGbps = 0;
  std::string label() const;  // "B300 (Grace), RoCE 400 Gb/s"
};

struct NetEnvChoice {
  std::optional<NetEnvEntry> entry;  // the chosen entry; none: nothing applies (notes say why, in one line)
  qp::MeasuredNet measured;          // the entry's settings with their source; empty when entry is null
  std::vector<std::string> notes;    // for the user, each "FILE: ..."
};

// Whether a dataset's device name ("NVIDIA GB300", "NVIDIA H100 80GB HBM3") is of the fabric's GPU model: the
// model's words appear in it as whole words, in order ("H100", "H100 80GB HBM3": discovery's model is NVML's name
// less "NVIDIA "), or "G" + the model for a GPU beside Grace ("GB300" for B300). Case-insensitive.
bool gpuNameMatches(const std::string& deviceName, const std::string& model, bool grace);

// The entry for `cluster`, from `file` (fileName: how the sources name it, the path's last component).
NetEnvChoice chooseNetEnv(const NetEnvFile& file, const NetEnvCluster& cluster, const std::string& fileName);

// "measured: net-env.json, allreduce on 144 ranks on 2 nodes, +68% median (+52% to +71%) at 1M-16G, 3 runs
// against 3"; the source word is "measured".
std::string measuredSource(const std::string& fileName, const NetEnvEntry& entry);

}  // namespace railtune::formats
