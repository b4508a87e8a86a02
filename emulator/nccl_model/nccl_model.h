// NCCL's own tuning model, re-implemented from NCCL's src/graph/tuning.cc and src/enqueue.cc (2.28.9 and
// 2.30.7) so that the choice NCCL would make can be shown without a GPU: the per-communicator model
// (ncclTopoTuneModel: bandwidth and latency per collective, algorithm and protocol), the cost table it
// hands a tuner (updateCollCostTable / ncclTopoGetAlgoTime), the pick it makes after the tuner returns,
// and the channel/thread count it then chooses (topoGetAlgoInfo).
//
// Inputs are railtune's own types: the graph values NCCL's topology search produces (see graph_data.h
// for where they come from) and the cost-model constants of formats/nccl_enums.h.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "emulator/loader.h"
#include "formats/nccl_enums.h"

namespace railtune::ncclmodel {

using formats::Algorithm;
using formats::Collective;
using formats::CostModelConstants;
using formats::kNumAlgorithms;
using formats::kNumCollectives;
using formats::kNumProtocols;
using formats::Protocol;
using NcclVersion = emu::NcclBehaviour;

// NCCL's PATH_* values (src/include/graph.h); the order matters (LL128 enablement compares them).
enum class PathType : int { LOC = 0, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, SYS, NET, DIS };
// NCCL's NCCL_TOPO_PATTERN_* values.
enum class TopoPattern : int { BalancedTree = 1, SplitTree = 2, Tree = 3, Ring = 4, Nvls = 5, CollNetDirect = 6 };
// NCCL's NCCL_TOPO_CPU_ARCH_* and NCCL_TOPO_CPU_VENDOR_* values (0: none of them, e.g. ARM).
enum class CpuArch : int { Other = 0, X86 = 1, Power = 2, Arm = 3, Mixed = 4 };
enum class CpuVendor : int { Other = 0, Intel = 1, Amd = 2, Zhaoxin = 3, Mixed = 4 };

const char* ncclAlgorithmName(Algorithm a);    // NCCL's ncclAlgoStr: "NVLSTree"
const char* ncclProtocolName(Protocol p);      // ncclProtoStr: "LL128"
const char* ncclCollectiveName(Collective c);  // ncclFuncStr: "AllReduce"
const char* pathTypeName(PathType t);          // topoPathTypeStr: "PXN"
std::optional<PathType> parsePathType(const std::string& s);

// One ncclTopoGraph as the tuning model reads it, after NCCL's minimum over all ranks.
struct Graph {
  int nChannels = 0;  // search channels (after ncclTopoDupChannels)
  float bwIntra = 0;  // GB/s per channel
  float bwInter = 0;  // GB/s per channel
  PathType typeIntra = PathType::NVL;
  PathType typeInter = PathType::PIX;
  TopoPattern pattern = TopoPattern::Ring;
  bool sameChannels = true;
  float latencyInter = 0;  // us, the NIC's latency property (0 when NCCL's IB plugin reports none)
};

// What NCCL's init leaves in the communicator besides nRanks/nNodes: per hardware profile and shape.
struct TopologyFacts {
  int minCompCap = 0;  // e.g. 100 for B200, 103 for B300, 90 for H100
  int maxCompCap = 0;
  CpuArch cpuArch = CpuArch::Other;
  CpuVendor cpuVendor = CpuVendor::Other;
  bool nvlsSupport = false;  // comm->nvlsSupport after the NVLS graph search
  int nChannels = 0;         // comm->nChannels: collective channels (twice the search channels, ...)
  int nvlsChannels = 0;      // comm->nvlsChannels
  Graph tree, ring, nvls;    // CollNet is not modelled: its graphs are empty and its cells IGNORE
};

struct CommShape {
  int nRanks = 1;
  int nNodes = 1;  // NCCL's nNodes: NVLink domains under MNNVL, hosts otherwise
};

// The environment variables that change NCCL's model. Unset strings mean "not set".
struct NcclKnobs {
  std::string algo;            // NCCL_ALGO, e.g. "^NVLS" or "ring,tree;allreduce:nvls"
  std::string proto;           // NCCL_PROTO
  int patEnable = 2;           // NCCL_PAT_ENABLE (2 = auto)
  bool ll128C2c = true;        // NCCL_LL128_C2C
  long netOverheadNs = -2;     // NCCL_NET_OVERHEAD (-2 = by CPU)
  bool collNetEnable = false;  // CollNet is never emulated; kept so the rules that test it read as NCCL's
  // NCCL_NVLS_ENABLE (default 2): 0 leaves comm->nvlsSupport 0 whatever the hardware offers
  // (src/transport/nvls.cc:249,262@v2.30.7): no NVLS algorithms, no NVLink multicast for symmetric kernels.
  int64_t nvlsEnable = 2;
};

// NCCL's parseList for NCCL_ALGO/NCCL_PROTO: fills enabled[function][element] (1/0; untouched where the
// string does not speak of it). Throws std::invalid_argument with NCCL's message on a bad token.
void parseEnableList(const std::string& value, const char* const* elementNames, int nElements, int* enabled);

// What ncclTopoTuneModel leaves in the communicator.
struct TunedModel {
  NcclVersion version = NcclVersion::V2_30;
  CommShape shape;
  TopologyFacts topo;
  float bandwidths[kNumCollectives][kNumAlgorithms][kNumProtocols] = {};  // GB/s (algorithm bandwidth)
  float latencies[kNumCollectives][kNumAlgorithms][kNumProtocols] = {};   // us
  int maxThreads[kNumAlgorithms][kNumProtocols] = {};
  long threadThresholds[kNumAlgorithms][kNumProtocols] = {};
};

// NCCL's ncclTunerConstantsDefaults for a version (the emulator's copy, converted).
CostModelConstants defaultCostModelConstants(NcclVersion v);

TunedModel tuneModel(NcclVersion v, const CommShape& shape, const TopologyFacts& topo,
                     const CostModelConstants& constants, const NcclKnobs& knobs);

using CostTable = std::array<std::array<float, kNumProtocols>, kNumAlgorithms>;
inline constexpr float kIgnore = -1.0f;  // NCCL_ALGO_PROTO_IGNORE

struct CollRequest {
  Collective collective = Collective::AllReduce;
  size_t nBytes = 0;  // NCCL's nBytes: total for AllGather/ReduceScatter, the buffer for the others
  int numPipeOps = 1;
};

// The table NCCL hands the tuner: modelled time in us, kIgnore where the cell is unavailable.
CostTable computeCostTable(const TunedModel& model, const CollRequest& request);
// The same from scratch (tuneModel, then the table).
CostTable computeCostTable(NcclVersion v, const CollRequest& request, const CommShape& shape, const TopologyFacts& topo,
                           const CostModelConstants& constants, const NcclKnobs& knobs);

struct Pick {
  Algorithm algorithm = Algorithm::Ring;
  Protocol protocol = Protocol::Simple;
  float timeUs = 0;
};
// NCCL's pick: the strictly smallest non-negative cell, algorithms then protocols in index order.
std::optional<Pick> ncclPick(const CostTable& table);

struct ChannelChoice {
  int nChannels = 0;
  int nThreads = 0;
};
// topoGetAlgoInfo's channel and thread count for the picked cell.
ChannelChoice selectChannels(const TunedModel& model, const Pick& pick, size_t nBytes);

}  // namespace railtune::ncclmodel
