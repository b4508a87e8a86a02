// One rules file is for one cluster: the tuner matches a communicator by collective, ranks, nodes and NVLink
// domains only (docs/formats/tuner-rules.schema.json), so groups of the same such key measured on different GPUs or
// fabrics (an H100 TCPXO sweep and an H200 InfiniBand sweep, both "16 ranks, 2 nodes") cannot share a file.
// `sweep rules` refuses them, naming both, unless --gpu / --fabric picks the rows of one.
#pragma once

#include <string>

#include "nccl-tests-integration/rules/aggregate.h"

namespace railtune::sweep {

// The rows `sweep rules --gpu NAME --fabric TRANSPORT` keeps. gpu: the device lines' name, or a part of it, case
// ignored ("H100" keeps "NVIDIA H100 80GB HBM3"); fabric: NCCL's transport ("IB", "Socket", "TCPXO") or
// transport/link layer ("IB/RoCE"), case ignored. Empty: every row.
struct ClusterPick {
  std::string gpu, fabric;
  bool keeps(const Shape& shape) const;
};

// "" when every tuner key has one GPU and fabric; else the first clash:
// rules for NVIDIA H100 80GB HBM3, TCPXO and NVIDIA H200, IB would share the tuner key "allreduce, 16 ranks, ...":
// the tuner cannot tell them apart; pass --gpu NAME or --fabric TRANSPORT to pick one, or write one file per cluster
std::string sharedTunerKey(const Aggregate& aggregate);

}  // namespace railtune::sweep
