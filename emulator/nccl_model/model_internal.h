// Shared between the files of the NCCL model: the per-communicator values ncclTopoTuneModel derives
// once before it loops over functions, algorithms and protocols.
#pragma once

#include "emulator/nccl_model/nccl_model.h"

namespace railtune::ncclmodel {

inline constexpr int kHwNvlink = 0, kHwPci = 1, kHwNet = 2;  // NCCL_HW_*

// NCCL's ncclAlgoStr and ncclProtoStr, in Algorithm and Protocol order: the names NCCL_ALGO and
// NCCL_PROTO list and the tuning log prints.
inline constexpr const char* kAlgoNames[kNumAlgorithms] = {"Tree",     "Ring", "CollNetDirect", "CollNetChain", "NVLS",
                                                           "NVLSTree", "PAT"};
inline constexpr const char* kProtoNames[kNumProtocols] = {"LL", "LL128", "Simple"};

struct ModelContext {
  ModelContext(NcclVersion v, const CommShape& s, const TopologyFacts& t, const CostModelConstants& c,
               const NcclKnobs& k);
  // The graph NCCL uses for an algorithm: {tree, ring, collNetDirect, collNetChain, nvls, nvls, tree}.
  const Graph& graph(Algorithm a) const;

  NcclVersion version;
  const CommShape& shape;
  const TopologyFacts& topo;
  const CostModelConstants& constants;
  const NcclKnobs& knobs;
  int compCapIndex = 0;
  double llMaxBw = 0, perChMaxTreeBw = 0, perChMaxRingLL128Bw = 0, perChMaxTreeLL128Bw = 0, perChMaxNVLSTreeBw = 0;
  double hwLat[formats::kNumHwLinks][kNumAlgorithms][kNumProtocols] = {};
  float ppn = 1;
  int intraHw[kNumAlgorithms] = {};
  int hw[kNumAlgorithms] = {};
  bool patEnabled = false;
};

// NCCL's log2i: floor(log2(n)), -1 for n <= 0.
int log2i(long n);

void fillThreads(TunedModel& model);
void fillModelledCells(const ModelContext& m, TunedModel& model);
// Zeroes the bandwidth of every disabled cell (NCCL_ALGO/NCCL_PROTO, LL128 defaults, NVLSTree on one node,
// CollNet); throws std::invalid_argument on a bad NCCL_ALGO/NCCL_PROTO.
void applyEnableRules(const ModelContext& m, TunedModel& model);

}  // namespace railtune::ncclmodel
