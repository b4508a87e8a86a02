// Values from NCCL 2.28.9 and 2.30.7 src/graph/tuning.cc (ncclTunerConstantsDefaults); protocol order
// LL, LL128, Simple; compute-capability rows Volta, Ampere, Hopper, Blackwell; scale columns 1, 2, 4+
// nodes.
#include "formats/nccl_defaults.h"

namespace railtune::formats {
namespace {

constexpr int kBlackwell = 3;  // NCCL_BLACKWELL_COMPCAP_IDX
constexpr int kFourNodes = 2;  // NCCL_TUNING_SCALE_4NODES

constexpr CostModelConstants kNccl228Defaults = {
    .baseLatencies = {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {8, 8, 8}},
    .hwLatencies =
        {
            // NVLINK
            {{.6, 1.25, 4.0}, {.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}},
            // PCI
            {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
            // NET
            {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}},
        },
    .llMaxBws = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {2 * 141.0, 2 * 45.0, 2 * 35.0}},
    .perChMaxRingLL128Bws = {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {2 * 36.7, 34.6, 2 * 36.7}},
    .perChMaxTreeLL128Bws = {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}},
    .perChMaxTreeBws = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}},
    .perChMaxNVLSTreeBws = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 43.8}},
};

}  // namespace

CostModelConstants ncclDefaultConstants(NcclRelease release) {
  CostModelConstants c = kNccl228Defaults;
  if (release == NcclRelease::V2_30) {
    // 2.30 lowered Blackwell's Ring LL128 cap and raised its 4-node NVLS-tree cap.
    for (double& v : c.perChMaxRingLL128Bws[kBlackwell]) v = 40.0;
    c.perChMaxNVLSTreeBws[kBlackwell][kFourNodes] = 80.0;
  }
  return c;
}

}  // namespace railtune::formats
