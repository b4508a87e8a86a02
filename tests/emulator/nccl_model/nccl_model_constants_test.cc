// NCCL's default cost-model constants as the model uses them equal the numbers of the reference sheet
// (nccl-plugin-abi.md §2 "Default constants", typed here independently), for 2.28 and 2.30.
#include <gtest/gtest.h>

#include "emulator/nccl_model/nccl_model.h"

namespace railtune::ncclmodel {
namespace {

constexpr int kBlackwell = 3;

TEST(NcclModelConstants, LatenciesMatchTheSheet) {
  for (NcclVersion v : {NcclVersion::V2_28, NcclVersion::V2_30}) {
    const CostModelConstants c = defaultCostModelConstants(v);
    const double base[kNumAlgorithms][kNumProtocols] = {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0},
                                                        {0, 0, 0},        {0, 0, 0},        {8, 8, 8}};
    const double hw[3][kNumAlgorithms][kNumProtocols] = {
        {{.6, 1.25, 4.0}, {.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}},
        {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
        {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}}};
    for (int a = 0; a < kNumAlgorithms; a++) {
      for (int p = 0; p < kNumProtocols; p++) {
        EXPECT_DOUBLE_EQ(c.baseLatencies[a][p], base[a][p]) << a << "/" << p;
        for (int h = 0; h < 3; h++) EXPECT_DOUBLE_EQ(c.hwLatencies[h][a][p], hw[h][a][p]) << h << "/" << a << "/" << p;
      }
    }
  }
}

TEST(NcclModelConstants, BandwidthCapsMatchTheSheet) {
  const double ll[4][3] = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}};
  const double ringLL128[4][3] = {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {73.4, 34.6, 73.4}};
  const double treeLL128[4][3] = {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
  const double tree[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
  const double nvlsTree[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 43.8}};
  const CostModelConstants c = defaultCostModelConstants(NcclVersion::V2_28);
  for (int cc = 0; cc < 4; cc++) {
    for (int s = 0; s < 3; s++) {
      EXPECT_DOUBLE_EQ(c.llMaxBws[cc][s], ll[cc][s]);
      EXPECT_DOUBLE_EQ(c.perChMaxRingLL128Bws[cc][s], ringLL128[cc][s]);
      EXPECT_DOUBLE_EQ(c.perChMaxTreeLL128Bws[cc][s], treeLL128[cc][s]);
      EXPECT_DOUBLE_EQ(c.perChMaxTreeBws[cc][s], tree[cc][s]);
      EXPECT_DOUBLE_EQ(c.perChMaxNVLSTreeBws[cc][s], nvlsTree[cc][s]);
    }
  }
}

// 2.30: Blackwell's Ring LL128 cap becomes 40 at every scale, its 4-node NVLSTree cap 80; nothing else moves.
TEST(NcclModelConstants, Version230ChangesTwoBlackwellRows) {
  const CostModelConstants old = defaultCostModelConstants(NcclVersion::V2_28);
  const CostModelConstants now = defaultCostModelConstants(NcclVersion::V2_30);
  for (int s = 0; s < 3; s++) EXPECT_DOUBLE_EQ(now.perChMaxRingLL128Bws[kBlackwell][s], 40.0);
  EXPECT_DOUBLE_EQ(now.perChMaxNVLSTreeBws[kBlackwell][2], 80.0);
  EXPECT_DOUBLE_EQ(now.perChMaxNVLSTreeBws[kBlackwell][1], 96.0);
  for (int cc = 0; cc < kBlackwell; cc++)
    for (int s = 0; s < 3; s++) {
      EXPECT_DOUBLE_EQ(now.perChMaxRingLL128Bws[cc][s], old.perChMaxRingLL128Bws[cc][s]);
      EXPECT_DOUBLE_EQ(now.perChMaxNVLSTreeBws[cc][s], old.perChMaxNVLSTreeBws[cc][s]);
      EXPECT_DOUBLE_EQ(now.llMaxBws[cc][s], old.llMaxBws[cc][s]);
    }
}

}  // namespace
}  // namespace railtune::ncclmodel
