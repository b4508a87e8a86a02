// Shared between the files of the NCCL model: the per-communicator values ncclTopoTuneModel derives
// once before it loops over functions, algorithms and protocols.
#pragma once

#include "emulator/nccl_model/nccl_model.h"
#include "emulator/nccl_model/terms.h"

namespace railtune::ncclmodel {

inline constexpr int kHwNvlink = 0, kHwPci = 1, kHwNet = 2;  // NCCL_HW_*

// NCCL's ncclAlgoStr and ncclProtoStr, in Algorithm and Protocol order: the names NCCL_ALGO and
// NCCL_PROTO list and the tuning log prints.
inline constexpr const char* kAlgoNames[kNumAlgorithms] = {"Tree",     "Ring", "CollNetDirect", "CollNetChain", "NVLS",
                                                           "NVLSTree", "PAT"};
inline constexpr const char* kProtoNames[kNumProtocols] = {"LL", "LL128", "Simple"};

// What ncclTopoTuneModel derives from the communicator before it reads any constant.
struct ModelContext {
  ModelContext(NcclVersion v, const CommShape& s, const TopologyFacts& t, const NcclKnobs& k);
  // The graph NCCL uses for an algorithm: {tree, ring, collNetDirect, collNetChain, nvls, nvls, tree}.
  const Graph& graph(Algorithm a) const;

  NcclVersion version;
  const CommShape& shape;
  const TopologyFacts& topo;
  const NcclKnobs& knobs;
  int compCapIndex = 0;
  int llRow = 0;     // llMaxBws' row: the compute capability on one node, the CPU row across nodes
  int scaleCol = 0;  // the tuning scale column: 1 node, 2 nodes, 4 or more
  float ppn = 1;
  int intraHw[kNumAlgorithms] = {};
  int hw[kNumAlgorithms] = {};
  bool patEnabled = false;
};

inline bool isCollNet(Algorithm a) {
  return a == Algorithm::CollNetDirect || a == Algorithm::CollNetChain;
}
inline bool isNvls(Algorithm a) {
  return a == Algorithm::Nvls || a == Algorithm::NvlsTree;
}
inline bool isAllGatherOrReduceScatter(Collective c) {
  return c == Collective::AllGather || c == Collective::ReduceScatter;
}

// NCCL's log2i: floor(log2(n)), -1 for n <= 0.
int log2i(long n);

// Throws std::invalid_argument on a shape NCCL cannot have (tuneModel's and ShapeModel's check).
void checkCommunicator(const CommShape& shape, const TopologyFacts& topo);
void fillThreads(TunedModel& model);
// The (function, algorithm, protocol) combinations NCCL's model loop visits at all.
bool cellModelled(const ModelContext& m, Collective c, Algorithm a, Protocol p);
// A modelled cell's formulas (tune_model.cc), evaluated by tuneModel and ShapeModel alike.
CellForm cellForm(const ModelContext& m, Collective c, Algorithm a, Protocol p);
void fillModelledCells(const ModelContext& m, const CostModelConstants& constants, TunedModel& model);

// enabled[c][a][p]: false where NCCL_ALGO/NCCL_PROTO, the LL128 defaults, NVLSTree on one node or CollNet
// turn the cell off; throws std::invalid_argument on a bad NCCL_ALGO/NCCL_PROTO.
using CellMask = bool[kNumCollectives][kNumAlgorithms][kNumProtocols];
void enabledCells(const ModelContext& m, CellMask& enabled);
// Zeroes the bandwidth of every disabled cell.
void applyEnableRules(const ModelContext& m, TunedModel& model);

// Algorithms updateCollCostTable leaves out before asking for a time (no CollNet, NVLS arity, ...).
bool algorithmOffered(const CommShape& shape, const TopologyFacts& topo, Collective c, Algorithm a);

// The communicator facts ncclTopoGetAlgoTime reads besides the cell's bandwidth and latency.
struct AlgoTimeFacts {
  NcclVersion version = NcclVersion::V2_30;
  int nRanks = 1, nNodes = 1, nChannels = 0, minCompCap = 0;
  CpuArch cpuArch = CpuArch::Other;
};
PerCallFactors perCallFactors(const AlgoTimeFacts& f, const CollRequest& r, int a, int p);
// ncclTopoGetAlgoTime: kIgnore when bw is 0.
float algoTime(float bw, float lat, const AlgoTimeFacts& f, const CollRequest& r, int a, int p);

}  // namespace railtune::ncclmodel
