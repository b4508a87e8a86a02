// NCCL's ncclTunerConstantsDefaults (src/graph/tuning.cc) for 2.28.9 and 2.30.7, and NCCL's pick from
// the cost table (topoGetAlgoInfo).
#include "emulator/tuner_driver.h"

namespace railtune::emu {
namespace {

// clang-format off
constexpr ncclTunerConstants_v5_t kDefaults228 = {
  /* baseLatencies: Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT (LL/LL128/Simple) */
  {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {8.0, 8.0, 8.0}},
  /* hwLatencies[NVLINK, PCI, NET][algorithm][protocol] */
  {{{.6, 1.25, 4.0}, {.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}},
   {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
   {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}}},
  /* llMaxBws[Volta, Ampere, Hopper, Blackwell][1, 2, 4+ nodes] */
  {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {2 * 141.0, 2 * 45.0, 2 * 35.0}},
  /* perChMaxRingLL128Bws */
  {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {2 * 36.7, 34.6, 2 * 36.7}},
  /* perChMaxTreeLL128Bws */
  {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}},
  /* perChMaxTreeBws */
  {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}},
  /* perChMaxNVLSTreeBws */
  {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 43.8}},
};
// clang-format on

}  // namespace

ncclTunerConstants_v5_t defaultTunerConstants(NcclBehaviour b) {
  ncclTunerConstants_v5_t c = kDefaults228;
  if (b == NcclBehaviour::V2_30) {
    // 2.30 lowered Blackwell's Ring LL128 cap and raised its 4-node NVLS-tree cap.
    for (double& v : c.perChMaxRingLL128Bws[NCCL_BLACKWELL_COMPCAP_IDX]) v = 40.0;
    c.perChMaxNVLSTreeBws[NCCL_BLACKWELL_COMPCAP_IDX][NCCL_TUNING_SCALE_4NODES] = 80.0;
  }
  return c;
}

bool pickFromCostTable(const CostTable& table, int* algorithm, int* protocol) {
  float best = -1.0f;
  *algorithm = NCCL_ALGO_UNDEF;
  *protocol = NCCL_PROTO_UNDEF;
  for (int a = 0; a < NCCL_NUM_ALGORITHMS; a++) {
    for (int p = 0; p < NCCL_NUM_PROTOCOLS; p++) {
      const float t = table[a][p];
      if (t < 0.0f) continue;
      if (best < 0.0f || t < best) {  // strictly smaller: ties keep the lowest algorithm, then protocol
        best = t;
        *algorithm = a;
        *protocol = p;
      }
    }
  }
  return best >= 0.0f;
}

}  // namespace railtune::emu
