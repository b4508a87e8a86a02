// NCCL's tuning vocabulary in railtune's own types: the collectives a tuner sees, the algorithms and
// protocols of the cost table, and the shape of NCCL's cost-model constants (ncclTunerConstants_v5_t).
// The values equal NCCL's (ncclFunc_t, NCCL_ALGO_*, NCCL_PROTO_*), so a table indexed by them is
// NCCL's table. The tuner decides with them, the emulator models NCCL with them, and the CLI prints
// them: one definition, below all three.
#pragma once

namespace railtune::formats {

// The collectives that reach a tuner; values equal NCCL's ncclFunc_t 0..4.
enum class Collective : int { Broadcast = 0, Reduce = 1, AllGather = 2, ReduceScatter = 3, AllReduce = 4 };
inline constexpr int kNumCollectives = 5;

// Values equal NCCL's NCCL_ALGO_* / NCCL_PROTO_* (the cost table is indexed by them).
enum class Algorithm : int { Tree = 0, Ring, CollNetDirect, CollNetChain, Nvls, NvlsTree, Pat };
enum class Protocol : int { LL = 0, LL128, Simple };
inline constexpr int kNumAlgorithms = 7;
inline constexpr int kNumProtocols = 3;
inline constexpr int kNumHwLinks = 3;       // NVLINK, PCI, NET
inline constexpr int kNumCompCaps = 4;      // Volta, Ampere, Hopper, Blackwell
inline constexpr int kNumTuningScales = 3;  // 1, 2, 4+ nodes

const char* collectiveName(Collective c);  // "AllReduce"
const char* algorithmName(Algorithm a);    // "NVLSTree", NCCL's spelling
const char* protocolName(Protocol p);      // "LL128"

// NCCL's cost-model constants (tuner ABI v5+): same shape and units as ncclTunerConstants_v5_t (us,
// GB/s), so that the two convert by copying.
struct CostModelConstants {
  double baseLatencies[kNumAlgorithms][kNumProtocols];
  double hwLatencies[kNumHwLinks][kNumAlgorithms][kNumProtocols];
  double llMaxBws[kNumCompCaps][kNumTuningScales];
  double perChMaxRingLL128Bws[kNumCompCaps][kNumTuningScales];
  double perChMaxTreeLL128Bws[kNumCompCaps][kNumTuningScales];
  double perChMaxTreeBws[kNumCompCaps][kNumTuningScales];
  double perChMaxNVLSTreeBws[kNumCompCaps][kNumTuningScales];
};

}  // namespace railtune::formats
