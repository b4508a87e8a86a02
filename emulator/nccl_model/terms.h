// NCCL's cost model taken apart, for a fitter that moves the constants a tuner may write
// (ncclTunerConstants, tuner v5/v6): per (collective, algorithm, protocol) cell of one communicator,
//  - the latency as offset + sum of coefficient x constant ("hwLatencies[NVLINK][Ring][LL128]"),
//  - the algorithm bandwidth as a min over the graph term and the cap constants that bound it,
//  - the per-call factors (tree correction, ring plateau, latCount) of ncclTopoGetAlgoTime,
// and a ShapeModel, built once per (NCCL version, shape, topology facts, knobs), whose timeUs() equals
// the emulator's cost table (computeCostTable) for any constants, without allocating.
//
// The exact value comes from a CellForm: the cell's formula kept in NCCL's order of operations
// (src/graph/tuning.cc:324-433@v2.30.7, :301-400@v2.28.9), which tuneModel evaluates too, so the two
// paths share one transcription. The linear views (LatencyTerms, BandwidthTerms) are derived from it
// at given constants; they equal the form's value up to rounding.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "emulator/nccl_model/nccl_model.h"

namespace railtune::ncclmodel {

// One of the 144 doubles of ncclTunerConstants_v5_t, numbered in declaration order: baseLatencies
// [7][3] (0..20), hwLatencies[3][7][3] (21..83), then llMaxBws, perChMaxRingLL128Bws,
// perChMaxTreeLL128Bws, perChMaxTreeBws, perChMaxNVLSTreeBws, each [4 rows][3 scales] (84..143).
enum class ConstId : uint16_t {};
inline constexpr int kNumConstIds = 144;
inline constexpr ConstId kNoConst{0xffff};

enum class HwLink : int { Nvlink = 0, Pci = 1, Net = 2 };  // NCCL_HW_*
// The bandwidth caps, in the order CostModelConstants declares them.
enum class CapArray : int { LlMax = 0, RingLL128 = 1, TreeLL128 = 2, Tree = 3, NvlsTree = 4 };

ConstId baseLatencyId(Algorithm a, Protocol p);
ConstId hwLatencyId(HwLink link, Algorithm a, Protocol p);
// row: the compute-capability index (Volta 0 .. Blackwell 3); for llMaxBws across nodes NCCL reads
// the CPU row instead (0: Intel/ARM/other, 1: AMD or mixed; tuning.cc:269-271@v2.30.7). scale: 1 node
// 0, 2 nodes 1, 4 or more nodes 2.
ConstId capId(CapArray array, int row, int scale);

// "baseLatencies[Ring][LL128]", "hwLatencies[NVLINK][Ring][LL128]", "perChMaxRingLL128Bws[Blackwell][1NODE]";
// llMaxBws rows 0 and 1 across nodes name the CPU: "llMaxBws[OtherCPU][2NODES]", "llMaxBws[AmdCPU][4NODES]".
// "invalid" for an id out of range.
const char* constName(ConstId id);
std::optional<ConstId> constIdByName(std::string_view name);
// The constant's value and a writable reference; std::out_of_range for kNoConst or another bad id.
double constValue(const CostModelConstants& c, ConstId id);
double& constRef(CostModelConstants& c, ConstId id);

// How a cell's latency is composed (tuning.cc:384-435@v2.30.7, :353-400@v2.28.9).
enum class LatencyShape : uint8_t { BaseOnly, Ring, RingRoot, Tree, CollNetDirect, CollNetChain, Nvls, NvlsTree, Pat };

// A cell's latency formula, as NCCL composes it. With intraLat = c[intra], interLat = c[inter] +
// latencyInter (+ latencyInter again for Simple: the flush):
//   Ring:          base + (intraCount x max(intraLat, netOverhead) + interCount x interLat)
//   RingRoot:      base + intraCount x intraLat            (Broadcast/Reduce; intra is the per-step link)
//   Tree:          base + 2 (intraCount x intraLat + interCount x interLat)
//   CollNetDirect: base + 2 (intraCount x intraLat + extraCount x 0.4) + interLat
//   CollNetChain:  base + intraCount x intraLat + interLat
//   Nvls:          intraLat + (interCount ? interLat : 0)  (NCCL overwrites the base)
//   NvlsTree:      base + intraLat + interCount x interLat
//   Pat:           base + interCount x (interLat / 3.5) + extraCount x 2.8
//   BaseOnly:      base
struct LatencyForm {
  LatencyShape shape = LatencyShape::BaseOnly;
  ConstId base = kNoConst;
  ConstId intra = kNoConst;
  ConstId inter = kNoConst;
  int intraCount = 0;
  int interCount = 0;
  int extraCount = 0;
  double latencyInter = 0;  // us, the graph's NIC latency
  bool flush = false;       // Simple adds latencyInter twice
  double netOverhead = 0;   // us, the floor under a ring's intra step across nodes (0 on one node)

  double value(const CostModelConstants& c) const;  // bitwise what tuneModel stores before the float
};

// A cell's algorithm-bandwidth formula (tuning.cc:306-381@v2.30.7, :284-350@v2.28.9):
//   bw  = perChannel, then min(bw, (float)c[channelCap]) for NVLSTree       (float)
//   bus = nChannels x bw                                                     (float, then double)
//   for each step: bus = min(bus x num / den, scale x c[cap])
//   bus = bus x post x ratio
struct BandwidthStep {
  double num = 1, den = 1;  // the refinement: .5, .92, 1/3.8 (num 1, den 3.8), 7/9, 120/128
  ConstId cap = kNoConst;
  double scale = 1;  // the graph's nChannels for per-channel caps, 1 for llMaxBws
};
struct BandwidthForm {
  bool zero = false;  // CollNet (not emulated), multi-node NVLS AllGather/ReduceScatter: bandwidth 0
  float perChannel = 0;
  float nChannels = 0;
  ConstId channelCap = kNoConst;  // NVLSTree: perChMaxNVLSTreeBws
  std::array<BandwidthStep, 2> steps{};
  uint8_t nSteps = 0;
  double post = 1;   // .85 for Tree with pattern TREE, .75 for PAT
  double ratio = 1;  // bus to algorithm bandwidth: nRanks/nsteps (Ring, NVLS, NVLSTree), .5, or 1

  double value(const CostModelConstants& c) const;  // GB/s, bitwise what tuneModel stores before the float
};

struct CellForm {
  LatencyForm latency;
  BandwidthForm bandwidth;
};

// The latency at given constants as offset + sum of coef x constant. Exact up to rounding; the one
// nonlinearity, the ring's max(intraLat, netOverhead), is resolved at these constants.
struct LatencyTerm {
  ConstId id = kNoConst;
  double coef = 0;
};
struct LatencyTerms {
  double offset = 0;  // us no constant scales: NIC latency, PAT's 2.8 us per rank, a binding net overhead
  std::array<LatencyTerm, 3> terms{};
  uint8_t n = 0;                  // terms[0..n) have nonzero coefficients, ids distinct
  bool netOverheadBinds = false;  // a ring across nodes: its intra steps cost the net overhead, not a constant

  double value(const CostModelConstants& c) const;
};

// The algorithm bandwidth at given constants as
//   ratio x min(graphBus x factor, min over caps of scale x c[id] x capFactor).
struct BandwidthCap {
  ConstId id = kNoConst;
  double scale = 1;      // nChannels (per-channel caps) or 1 (llMaxBws)
  double capFactor = 1;  // refinements NCCL applies after this cap (Tree LL's 1/3.8, pattern .85)
};
struct BandwidthTerms {
  bool zero = false;    // the model gives 0 (IGNORE) whatever the constants
  double graphBus = 0;  // GB/s: nChannels x the graph's per-channel bandwidth (NVLS: min of intra, inter)
  double factor = 1;    // product of the refinements on the graph term
  std::array<BandwidthCap, 3> caps{};
  uint8_t nCaps = 0;
  double ratio = 1;
  int binding = -1;  // -1: the graph term is the smallest at these constants, else the index in caps
  double algBw = 0;  // GB/s, the exact value (BandwidthForm::value)

  double value(const CostModelConstants& c) const;  // the min above
};

LatencyTerms latencyTerms(const LatencyForm& f, const CostModelConstants& c);
BandwidthTerms bandwidthTerms(const BandwidthForm& f, const CostModelConstants& c);

// ncclTopoGetAlgoTime's per-call factors (tuning.cc:630-654@v2.30.7, :584-600@v2.28.9):
//   time = lat x latencyFactor x latCount + nBytes / (1000 x bw x bandwidthFactor), in float.
struct PerCallFactors {
  float bandwidthFactor = 1;  // treeCorrectionFactor for Tree (and 2.30 x86 Blackwell NVLSTree) AllReduce
  float latencyFactor = 1;    // the ring plateau: 1.4 (1.9 before SM80) for multi-node Ring/Simple AllReduce
  int latCount = 1;           // numPipeOps for Ring, else ceil(numPipeOps / NCCL_MAX_DEV_WORK_BATCH_COLLS)
};

// One communicator's model, independent of the constants. Cheap to copy, no heap.
class ShapeModel {
 public:
  // Throws std::invalid_argument where tuneModel does (bad shape, no channels, bad NCCL_ALGO/PROTO).
  ShapeModel(NcclVersion v, const CommShape& shape, const TopologyFacts& topo, const NcclKnobs& knobs = {});

  NcclVersion version() const { return version_; }
  const CommShape& shape() const { return shape_; }

  // The cost-table entry (us) for these constants; kIgnore where NCCL leaves the cell out. Equals
  // computeCostTable(tuneModel(v, shape, topo, c, knobs), {coll, nBytes, numPipeOps})[a][p] bitwise.
  float timeUs(const CostModelConstants& c, Collective coll, Algorithm a, Protocol p, size_t nBytes,
               int numPipeOps = 1) const;
  CostTable costTable(const CostModelConstants& c, Collective coll, size_t nBytes, int numPipeOps = 1) const;

  // Whether the cell can have a time at all (offered, modelled, enabled); false on a one-rank communicator.
  bool offered(Collective coll, Algorithm a, Protocol p) const;
  const CellForm& form(Collective coll, Algorithm a, Protocol p) const;
  // What tuneModel stores for these constants (0 where the cell is not offered).
  float latencyUs(const CostModelConstants& c, Collective coll, Algorithm a, Protocol p) const;
  float bandwidthGBs(const CostModelConstants& c, Collective coll, Algorithm a, Protocol p) const;
  LatencyTerms latencyTerms(const CostModelConstants& c, Collective coll, Algorithm a, Protocol p) const;
  BandwidthTerms bandwidthTerms(const CostModelConstants& c, Collective coll, Algorithm a, Protocol p) const;
  PerCallFactors perCall(Collective coll, Algorithm a, Protocol p, size_t nBytes, int numPipeOps = 1) const;

 private:
  NcclVersion version_;
  CommShape shape_;
  int nChannels_ = 0, minCompCap_ = 0;
  CpuArch cpuArch_ = CpuArch::Other;
  CellForm cells_[kNumCollectives][kNumAlgorithms][kNumProtocols];
  bool modelled_[kNumCollectives][kNumAlgorithms][kNumProtocols] = {};  // NCCL's loop visits the cell
  bool enabled_[kNumCollectives][kNumAlgorithms][kNumProtocols] = {};   // ... and its enable rules keep it
  bool offered_[kNumCollectives][kNumAlgorithms][kNumProtocols] = {};   // ... and the cost table asks for it
};

inline ShapeModel buildShapeModel(NcclVersion v, const CommShape& shape, const TopologyFacts& topo,
                                  const NcclKnobs& knobs = {}) {
  return ShapeModel(v, shape, topo, knobs);
}

// The built-in hardware profile (graph_data.h) for a GPU model as NCCL's device line names it
// ("NVIDIA GB300" -> "gb300-nvl72"; the "NVIDIA " prefix is optional). nullopt for a GPU no profile
// models (H100 PCIe/NVL, H200, A100, ...). The profile also assumes its fabric (its graph files say
// which); a caller with another fabric must not use its multi-node shapes.
std::optional<std::string> profileForGpu(const std::string& gpuName);
// The GPU model a built-in profile describes ("gb300-nvl72" -> "NVIDIA GB300"); nullopt if unknown.
std::optional<std::string> gpuForProfile(const std::string& profile);

}  // namespace railtune::ncclmodel
