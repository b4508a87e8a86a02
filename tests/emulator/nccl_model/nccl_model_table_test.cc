// The cost table NCCL hands the tuner, re-derived by hand for two communicators (the arithmetic is in
// the expected expressions; units: us, GB/s, bytes), NCCL's pick from it and the channels it then uses.
#include <gtest/gtest.h>

#include "tests/emulator/nccl_model/nccl_model_test_support.h"

namespace railtune::ncclmodel {
namespace {

using testing::cell;
constexpr double kTol = 1e-3;
constexpr double kMiB = 1048576;

// DGX H100, 8 ranks on 1 node, AllReduce of 1 MiB, NCCL 2.30. Hopper row, 1-node column:
// llMaxBw 141, perChMaxTreeBw 38.7, perChMaxRingLL128Bw 36.7, perChMaxTreeLL128Bw 36.7. nsteps = 2 x 7 = 14,
// Ring/NVLS bus-to-algorithm ratio 8/14, Tree 0.5. log2(1 MiB / 64) = 14 picks the tree correction
// factors LL .5, LL128 .6, Simple .5.
TEST(NcclModelTable, OneHostAllReduceByHand) {
  const CostTable t =
      computeCostTable(NcclVersion::V2_30, CollRequest{Collective::AllReduce, 1 << 20, 1}, CommShape{8, 1},
                       testing::dgxH100OneHost(), defaultCostModelConstants(NcclVersion::V2_30), NcclKnobs{});
  // Ring LL: min(141, 12 x 30 x .5) x 8/14; latency 6.6 + 14 steps x .6 (NVLink).
  EXPECT_NEAR(cell(t, Algorithm::Ring, Protocol::LL), 6.6 + 14 * .6 + kMiB / (1000 * (141.0 * 8 / 14)), kTol);
  // Ring LL128: min(360 x .92, 12 x 36.7) x 8/14; latency 14 + 14 x 1.9.
  EXPECT_NEAR(cell(t, Algorithm::Ring, Protocol::LL128), 14 + 14 * 1.9 + kMiB / (1000 * (331.2 * 8 / 14)), kTol);
  // Ring Simple: 360 x 8/14; latency 8.4 + 14 x 3.4 (one node: no plateau factor).
  EXPECT_NEAR(cell(t, Algorithm::Ring, Protocol::Simple), 8.4 + 14 * 3.4 + kMiB / (1000 * (360.0 * 8 / 14)), kTol);
  // Tree: AllReduce min(360 x .92, 12 x 38.7) = 331.2; LL /3.8, LL128 x 7/9 (one node); then x .5 and the
  // correction factor. Latency base + 2 x (7 x NVLink hop).
  EXPECT_NEAR(cell(t, Algorithm::Tree, Protocol::LL), 6.8 + 2 * 7 * .6 + kMiB / (1000 * (331.2 / 3.8 * .5 * .5)), kTol);
  EXPECT_NEAR(cell(t, Algorithm::Tree, Protocol::LL128), 14 + 2 * 7 * 1.25 + kMiB / (1000 * (331.2 * 7 / 9 * .5 * .6)),
              kTol);
  EXPECT_NEAR(cell(t, Algorithm::Tree, Protocol::Simple), 8.4 + 2 * 7 * 4.0 + kMiB / (1000 * (331.2 * .5 * .5)), kTol);
  // NVLS: min(40 x .85 x 7/8 x 2, bwInter 60) = 59.5 per channel x 8 heads x 8/14; latency 25 replaces the base.
  EXPECT_NEAR(cell(t, Algorithm::Nvls, Protocol::Simple), 25 + kMiB / (1000 * (59.5 * 8 * 8 / 14)), kTol);
  // NVLS has Simple only; NVLSTree is off on one node; no CollNet; PAT is not an AllReduce algorithm.
  for (Protocol p : {Protocol::LL, Protocol::LL128}) EXPECT_EQ(cell(t, Algorithm::Nvls, p), kIgnore);
  for (Algorithm a : {Algorithm::NvlsTree, Algorithm::CollNetDirect, Algorithm::CollNetChain, Algorithm::Pat})
    for (Protocol p : {Protocol::LL, Protocol::LL128, Protocol::Simple}) EXPECT_EQ(cell(t, a, p), kIgnore);
  // Ring LL (28.01 us) beats NVLS (28.86 us) at 1 MiB.
  const std::optional<Pick> pick = ncclPick(t);
  ASSERT_TRUE(pick);
  EXPECT_EQ(pick->algorithm, Algorithm::Ring);
  EXPECT_EQ(pick->protocol, Protocol::LL);
}

// DGX H100, 2 hosts x 8 ranks, AllReduce of 64 MiB, NCCL 2.30. Hopper row, 2-node column; Intel CPU, so
// llMaxBw comes from row 0 (39.0); perChMaxTreeBw 41.4, Ring/Tree LL128 36.7, NVLSTree 57.7. nsteps 30,
// ratio 16/30; 2 nodes use bwIntra (48). Network: NET hops (Ring Simple 14, LL 2.7, LL128 4; Tree Simple
// 14, LL 5, LL128 8.5; NVLSTree 20.9), NIC latency 0, net overhead 1 us (x3 for Simple).
// log2(64 MiB / 64) = 20: tree correction LL 1.0, LL128 .9, Simple .8.
TEST(NcclModelTable, TwoHostsAllReduceByHand) {
  const size_t bytes = 64 << 20;
  const double n = static_cast<double>(bytes);
  const CostTable t =
      computeCostTable(NcclVersion::V2_30, CollRequest{Collective::AllReduce, bytes, 1}, CommShape{16, 2},
                       testing::dgxH100Hosts(), defaultCostModelConstants(NcclVersion::V2_30), NcclKnobs{});
  // Ring Simple: 8 x 48 x 16/30; latency 8.4 + 28 x max(3.4, 3 x 1.0) + 2 inter steps x 14, then x 1.4
  // because 64 MiB / (16 channels x 16 ranks) >= 64 (the ring plateau).
  EXPECT_NEAR(cell(t, Algorithm::Ring, Protocol::Simple), (8.4 + 28 * 3.4 + 2 * 14) * 1.4 + n / (1000 * 204.8), kTol);
  // Ring LL: min(39, 384 x .5) x 16/30; latency 6.6 + 28 x max(.6, 1.0) + 2 x 2.7.
  EXPECT_NEAR(cell(t, Algorithm::Ring, Protocol::LL), 6.6 + 28 * 1.0 + 2 * 2.7 + n / (1000 * (39.0 * 16 / 30)), kTol);
  // Ring LL128: min(384 x .92, 8 x 36.7) x 16/30; latency 14 + 28 x 1.9 + 2 x 4.
  EXPECT_NEAR(cell(t, Algorithm::Ring, Protocol::LL128), 14 + 28 * 1.9 + 2 * 4 + n / (1000 * (293.6 * 16 / 30)), kTol);
  // Tree: AllReduce min(384 x .92, 8 x 41.4) = 331.2. Latency base + 2 x (7 NVLink hops + log2(2) x NET hop).
  EXPECT_NEAR(cell(t, Algorithm::Tree, Protocol::Simple), 8.4 + 2 * (7 * 4.0 + 14) + n / (1000 * (331.2 * .5 * .8)),
              kTol);
  EXPECT_NEAR(cell(t, Algorithm::Tree, Protocol::LL), 6.8 + 2 * (7 * .6 + 5.0) + n / (1000 * (39.0 * .5 * 1.0)), kTol);
  EXPECT_NEAR(cell(t, Algorithm::Tree, Protocol::LL128), 14 + 2 * (7 * 1.25 + 8.5) + n / (1000 * (293.6 * .5 * .9)),
              kTol);
  // NVLSTree: min(40 x .85 x 7/8 x 2 = 59.5, 48 x 2 (2 nodes), cap 57.7) x 8 channels x 16/30; latency
  // 25 + 2 x log2(2) x 20.9.
  EXPECT_NEAR(cell(t, Algorithm::NvlsTree, Protocol::Simple), 25 + 2 * 20.9 + n / (1000 * (57.7 * 8 * 16 / 30)), kTol);
  // NVLS across nodes needs CollNet.
  EXPECT_EQ(cell(t, Algorithm::Nvls, Protocol::Simple), kIgnore);
  const std::optional<Pick> pick = ncclPick(t);
  ASSERT_TRUE(pick);
  EXPECT_EQ(pick->algorithm, Algorithm::NvlsTree);
  EXPECT_EQ(pick->protocol, Protocol::Simple);
}

// numPipeOps scales a Ring's latency per operation and a non-Ring's per batch of 10 (NCCL_MAX_DEV_WORK_BATCH_COLLS).
TEST(NcclModelTable, PipelinedOperationsScaleLatency) {
  const TunedModel m = tuneModel(NcclVersion::V2_30, CommShape{8, 1}, testing::dgxH100OneHost(),
                                 defaultCostModelConstants(NcclVersion::V2_30), NcclKnobs{});
  const CostTable one = computeCostTable(m, CollRequest{Collective::AllReduce, 1 << 20, 1});
  const CostTable four = computeCostTable(m, CollRequest{Collective::AllReduce, 1 << 20, 4});
  const CostTable eleven = computeCostTable(m, CollRequest{Collective::AllReduce, 1 << 20, 11});
  EXPECT_NEAR(cell(four, Algorithm::Ring, Protocol::LL) - cell(one, Algorithm::Ring, Protocol::LL), 3 * 15.0, kTol);
  EXPECT_NEAR(cell(four, Algorithm::Nvls, Protocol::Simple), cell(one, Algorithm::Nvls, Protocol::Simple), kTol);
  EXPECT_NEAR(cell(eleven, Algorithm::Nvls, Protocol::Simple) - cell(one, Algorithm::Nvls, Protocol::Simple), 25.0,
              kTol);
}

TEST(NcclModelTable, PickPrefersStrictlySmallerThenLowerIndex) {
  CostTable t;
  for (auto& row : t) row.fill(kIgnore);
  EXPECT_FALSE(ncclPick(t));
  t[1][2] = 5.0f;  // Ring/Simple
  t[4][2] = 5.0f;  // NVLS/Simple, a tie: the lower algorithm stays
  t[1][0] = 7.0f;
  std::optional<Pick> p = ncclPick(t);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->algorithm, Algorithm::Ring);
  EXPECT_EQ(p->protocol, Protocol::Simple);
  t[6][2] = 0.0f;  // a tuner's 0.0 wins
  p = ncclPick(t);
  EXPECT_EQ(p->algorithm, Algorithm::Pat);
  EXPECT_FLOAT_EQ(p->timeUs, 0.0f);
}

// topoGetAlgoInfo: Ring/Tree shed channels, then threads, while nBytes < channels x threads x threshold;
// Simple adds a warp (Ring) or four (Tree); Tree always runs 640 threads; NVLS takes nvlsChannels.
TEST(NcclModelTable, ChannelsAndThreadsAfterThePick) {
  const TunedModel m = tuneModel(NcclVersion::V2_30, CommShape{8, 1}, testing::dgxH100OneHost(),
                                 defaultCostModelConstants(NcclVersion::V2_30), NcclKnobs{});
  // Ring LL: threshold 8 x 8 ranks = 64; 24 x 512 x 64 = 786432 <= 1 MiB keeps everything.
  ChannelChoice c = selectChannels(m, Pick{Algorithm::Ring, Protocol::LL, 0}, 1 << 20);
  EXPECT_EQ(c.nChannels, 24);
  EXPECT_EQ(c.nThreads, 512);
  // 8 bytes: 1 channel, then 512 -> 256 -> 128 -> 64 threads (64 % 128 != 0 stops), floor 3 warps = 96.
  c = selectChannels(m, Pick{Algorithm::Ring, Protocol::LL, 0}, 8);
  EXPECT_EQ(c.nChannels, 1);
  EXPECT_EQ(c.nThreads, 96);
  // Ring Simple at 64 KiB: threshold 64; 2 x 512 x 64 = 65536 is not above 65536, so 2 channels; + 1 warp.
  c = selectChannels(m, Pick{Algorithm::Ring, Protocol::Simple, 0}, 65536);
  EXPECT_EQ(c.nChannels, 2);
  EXPECT_EQ(c.nThreads, 512 + 32);
  c = selectChannels(m, Pick{Algorithm::Tree, Protocol::Simple, 0}, 8);
  EXPECT_EQ(c.nThreads, 640);
  c = selectChannels(m, Pick{Algorithm::Nvls, Protocol::Simple, 0}, 8);
  EXPECT_EQ(c.nChannels, 16);
  EXPECT_EQ(c.nThreads, 640);
  EXPECT_THROW(selectChannels(m, Pick{Algorithm::CollNetDirect, Protocol::Simple, 0}, 8), std::invalid_argument);
}

}  // namespace
}  // namespace railtune::ncclmodel
