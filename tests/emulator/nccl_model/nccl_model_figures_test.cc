// NCCL's model, fed with the graph data files, against the published figures and crossovers the
// reference quotes (formats-and-figures.md §2.3 and §5). Each test states its tolerance, or why the
// model does not reproduce a measurement (the model is NCCL's, not the hardware's: these tests pin
// what NCCL would pick, and show how far its estimate is from what was measured).
#include <gtest/gtest.h>

#include <cmath>

#include "emulator/nccl_model/graph_data.h"

namespace railtune::ncclmodel {
namespace {

TunedModel model(const std::string& profile, int nRanks, int nNodes, NcclVersion v = NcclVersion::V2_30) {
  const CommShape shape{nRanks, nNodes};
  const TopologyFacts& topo = builtinGraphData(profile).shapeFor(shape).factsFor(v);
  return tuneModel(v, shape, topo, defaultCostModelConstants(v), NcclKnobs{});
}

// nccl-tests' bus bandwidth of NCCL's modelled AllReduce bandwidth (algbw x 2(n-1)/n).
double allReduceBusBw(const TunedModel& m, Algorithm a) {
  const int n = m.shape.nRanks;
  return static_cast<double>(m.bandwidths[static_cast<int>(Collective::AllReduce)][static_cast<int>(a)][2]) * 2.0 *
         (n - 1) / n;
}

Pick pickAt(const TunedModel& m, Collective c, size_t bytes) {
  const std::optional<Pick> p = ncclPick(computeCostTable(m, CollRequest{c, bytes, 1}));
  EXPECT_TRUE(p);
  return p.value_or(Pick{});
}

// §2.3 / §5.2: DGX H100, 8 GPUs: NVLS peaks at ~480 GB/s busbw, Ring at ~370 (nccl-tests #212). NCCL's
// model gives NVLS 8 heads x min(40 x .85 x 7/8 x 2, 60) = 476 and Ring 12 x 30 = 360: within 3 %.
TEST(NcclModelFigures, DgxH100NvlsAndRingPeaks) {
  const TunedModel m = model("dgx-h100", 8, 1);
  EXPECT_NEAR(allReduceBusBw(m, Algorithm::Nvls), 480.0, 480.0 * 0.03);
  EXPECT_NEAR(allReduceBusBw(m, Algorithm::Ring), 370.0, 370.0 * 0.03);
  // And NCCL picks NVLS for large AllReduce there, Ring LL for small.
  EXPECT_EQ(pickAt(m, Collective::AllReduce, size_t{1} << 30).algorithm, Algorithm::Nvls);
  const Pick small = pickAt(m, Collective::AllReduce, 8);
  EXPECT_EQ(small.algorithm, Algorithm::Ring);
  EXPECT_EQ(small.protocol, Protocol::LL);
}

// §5.2: on H200 (same NVLink4 model) NVLS reaches the Ring ceiling (~370 GB/s busbw) at about 67 MB
// (Azure ND H200 v5 table). NCCL's model puts that point near 24 MB: it charges NVLS a flat 25 us and full
// bandwidth from the first byte, while the hardware needs larger messages to fill the multicast pipeline.
// Not reproduced; the test pins the model's point (16-32 MiB) so that a change is noticed.
TEST(NcclModelFigures, H200NvlsReachesRingCeilingEarlierInTheModel) {
  const TunedModel m = model("dgx-h100", 8, 1);
  auto nvlsBusBw = [&](size_t bytes) {
    const CostTable t = computeCostTable(m, CollRequest{Collective::AllReduce, bytes, 1});
    const double algbw =
        static_cast<double>(bytes) / 1000.0 / static_cast<double>(t[static_cast<int>(Algorithm::Nvls)][2]);
    return algbw * 14 / 8;
  };
  EXPECT_LT(nvlsBusBw(16 << 20), 370.0);
  EXPECT_GT(nvlsBusBw(32 << 20), 370.0);
}

// §2.3: Azure ND GB200 v6, one tray, Ring in-place: 679.6 GB/s busbw at 8 GB. The model's Ring is
// 16 channels x 45 = 720 GB/s (NVLink5 18 x 40.1 = 721.8 per GPU): the measurement is 94 % of it; 10 %.
TEST(NcclModelFigures, Gb200TrayRingPeak) {
  const TunedModel m = model("gb200-nvl72", 4, 1);
  EXPECT_NEAR(allReduceBusBw(m, Algorithm::Ring), 679.6, 679.6 * 0.10);
  EXPECT_EQ(pickAt(m, Collective::AllReduce, size_t{8} << 30).algorithm, Algorithm::Ring);
}

// §2.3: GB200 NVL72, one rack (72 GPUs, MNNVL): 839-847 GB/s busbw at 4-8 GB (coreweave/nccl-tests).
// That exceeds what a ring can carry over NVLink (720), so it is NVLS; the model's NVLS is 32 heads x
// min(20 x .74 x 31/32 x 2, 40) = 917.6 GB/s, and it picks NVLS at every size: within 10 %.
TEST(NcclModelFigures, Gb200RackNvlsPeak) {
  const TunedModel m = model("gb200-nvl72", 72, 1);
  EXPECT_NEAR(allReduceBusBw(m, Algorithm::Nvls), 843.0, 843.0 * 0.10);
  for (size_t bytes = 8; bytes <= (size_t{16} << 30); bytes *= 64)
    EXPECT_EQ(pickAt(m, Collective::AllReduce, bytes).algorithm, Algorithm::Nvls) << bytes;
}

// §5.2 (nccl-tests #196): with two or more nodes NCCL uses Tree or NVLSTree, whose busbw can exceed the NIC
// rate. §5.2 (Demystifying NCCL): across nodes LL/LL128 win small messages and Simple large ones.
TEST(NcclModelFigures, TwoNodesUseTreesAndProtocolsMoveWithSize) {
  for (const char* profile : {"dgx-h100", "dgx-b200"}) {
    const TunedModel m = model(profile, 16, 2);
    for (size_t bytes : {size_t{8}, size_t{1} << 20, size_t{1} << 30}) {
      const Algorithm a = pickAt(m, Collective::AllReduce, bytes).algorithm;
      EXPECT_TRUE(a == Algorithm::Tree || a == Algorithm::NvlsTree) << profile << " " << bytes;
    }
    const Protocol small = pickAt(m, Collective::AllReduce, 8).protocol;
    EXPECT_TRUE(small == Protocol::LL || small == Protocol::LL128) << profile;
    EXPECT_EQ(pickAt(m, Collective::AllReduce, size_t{1} << 30).protocol, Protocol::Simple) << profile;
    // NVLSTree's modelled busbw beats the 8 x 400G NICs (8 x 48 GB/s of PCIe path in NCCL's model).
    EXPECT_GT(allReduceBusBw(m, Algorithm::NvlsTree), 8 * 48.0) << profile;
  }
}

// §2.3 (coreweave): GB200, 2 racks (144 GPUs, MNNVL + IB): 810-820 GB/s at 16 GB. The model picks NVLSTree,
// 32 channels x min(28.7 NVLS, 2 x 40 inter, 96 cap) = 917.6 GB/s: within 15 %. 20 racks: 405 GB/s measured,
// the model's Ring/NVLSTree are NIC-bound; not compared (no NCCL version or algorithm is given for it).
TEST(NcclModelFigures, Gb200TwoRacks) {
  const TunedModel m = model("gb200-nvl72", 144, 2);
  const Pick big = pickAt(m, Collective::AllReduce, size_t{16} << 30);
  EXPECT_EQ(big.algorithm, Algorithm::NvlsTree);
  EXPECT_NEAR(allReduceBusBw(m, Algorithm::NvlsTree), 815.0, 815.0 * 0.15);
}

// 2.28 and 2.30 differ on Blackwell trees (search speeds 40 vs 45) and Ring LL128 caps (73.4 vs 40 per channel).
TEST(NcclModelFigures, VersionsDifferOnBlackwell) {
  const TunedModel old = model("gb300-nvl72", 4, 1, NcclVersion::V2_28);
  const TunedModel now = model("gb300-nvl72", 4, 1, NcclVersion::V2_30);
  const int ar = static_cast<int>(Collective::AllReduce), ring = static_cast<int>(Algorithm::Ring);
  // Ring LL128: min(720 x .92, 16 x cap) x 4/6 -> 2.28 662.4 x 4/6, 2.30 640 x 4/6.
  EXPECT_NEAR(old.bandwidths[ar][ring][1], 662.4 * 4 / 6, 1e-3);
  EXPECT_NEAR(now.bandwidths[ar][ring][1], 640.0 * 4 / 6, 1e-3);
  const int tree = static_cast<int>(Algorithm::Tree);
  EXPECT_NEAR(old.bandwidths[ar][tree][2], 16 * 40 * .92 * .5, 1e-3);
  EXPECT_NEAR(now.bandwidths[ar][tree][2], 16 * 45 * .92 * .5, 1e-3);
}

}  // namespace
}  // namespace railtune::ncclmodel
