// What the fit pools and what it fits for, in one place. A group is one collective on one communicator shape of
// one GPU model: rows of an H100 cluster and an H200 cluster of the same "16 ranks, 2 nodes" never share a point.
// A fit key is what one fitted set of constants covers: every group of one GPU model on one fabric (the shape's
// gpu and fabric, compared as FabricId compares: transport, link layer, NIC speed).
#pragma once

#include <compare>
#include <string>

#include "nccl-tests-integration/rules/aggregate.h"

namespace railtune::sweep {

// The rules' GroupKey: its shape carries the GPU model and the fabric, so groups of two clusters never pool.
struct FitGroupKey {
  GroupKey group;  // collective, shape (with gpu and fabric) and network setting, as `sweep rules` pools them
  auto operator<=>(const FitGroupKey&) const = default;
  bool operator==(const FitGroupKey&) const = default;
  // the device line's name ("NVIDIA GB300"), "" when the output named none
  const std::string& gpu() const { return group.shape.gpu; }
  // "allreduce, 8 ranks, 1 node, 1 NVLink domain of 8; NVIDIA GB300", or "..., GPU unnamed"
  std::string label() const {
    return group.collective + ", " + group.shape.label() + (gpu().empty() ? ", GPU unnamed" : "");
  }
};

inline FitGroupKey fitGroupOf(const DatasetRow& row) {
  return FitGroupKey{GroupKey{row.collective, row.shape, row.netEnv}};
}

// Whether a row belongs to a group, without building its key (the rows of one run arrive together).
inline bool inFitGroup(const DatasetRow& row, const FitGroupKey& key) {
  return row.shape == key.group.shape && row.collective == key.group.collective && row.netEnv == key.group.netEnv;
}

struct FitKey {
  std::string gpu;
  FabricId fabric;  // a one-node shape's is "nvlink" or unknown: it pools with the multi-node shapes of its GPU
  auto operator<=>(const FitKey&) const = default;
  bool operator==(const FitKey&) const = default;
  // "NVIDIA GB300, IB/RoCE 400G"; "NVIDIA GB300" when the fabric is unknown or NVLink only
  std::string label() const {
    const std::string fabricLabel = fabric.label();
    return (gpu.empty() ? "GPU unnamed" : gpu) + (fabricLabel.empty() ? "" : ", " + fabricLabel);
  }
};

// One-node groups never touch the network: they join the key of their GPU whatever the fabric (nodes == 1 has
// transport "nvlink" or none), so a fit on one-tray and two-rack sweeps of one cluster is one fit.
inline FitKey fitKeyOf(const FitGroupKey& group) {
  const Shape& shape = group.group.shape;
  if (shape.nodes <= 1) return FitKey{group.gpu(), FabricId{}};
  return FitKey{group.gpu(), shape.fabric};
}

// NCCL's scale bucket of the constants' caps, which the fit's verdict follows: 1 node 0, 2 nodes 1, 3 or more 2
// (index2, src/graph/tuning.cc:267@v2.30.7; the model file's Scale). NCCL's nNodes counts an MNNVL domain of
// several hosts as one node, as Shape::nodes does.
inline constexpr int kScaleBuckets = 3;
inline int scaleBucketOf(const Shape& shape) {
  return shape.nodes <= 1 ? 0 : shape.nodes == 2 ? 1 : 2;
}

}  // namespace railtune::sweep
