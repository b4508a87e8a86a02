// Which cells NCCL leaves IGNORE (reference sheet §1 "Algorithm conditions" and §2 "Zeroing"): functions
// and algorithms, NVLS and NVLSTree, PAT, LL128 by default, NCCL_ALGO/NCCL_PROTO, one rank.
#include <gtest/gtest.h>

#include "tests/emulator/nccl_model/nccl_model_test_support.h"

namespace railtune::ncclmodel {
namespace {

using testing::cell;

CostTable table(Collective c, const CommShape& shape, const TopologyFacts& topo, const NcclKnobs& knobs = {},
                NcclVersion v = NcclVersion::V2_30) {
  return computeCostTable(v, CollRequest{c, 1 << 20, 1}, shape, topo, defaultCostModelConstants(v), knobs);
}

bool anyAvailable(const CostTable& t, Algorithm a) {
  for (float v : t[static_cast<int>(a)])
    if (v >= 0) return true;
  return false;
}

TEST(NcclModelConditions, BroadcastAndReduceUseRingOnly) {
  for (Collective c : {Collective::Broadcast, Collective::Reduce}) {
    const CostTable t = table(c, CommShape{8, 1}, testing::dgxH100OneHost());
    for (int a = 0; a < kNumAlgorithms; a++)
      EXPECT_EQ(anyAvailable(t, static_cast<Algorithm>(a)), a == static_cast<int>(Algorithm::Ring)) << a;
  }
}

TEST(NcclModelConditions, NvlsOnlyWithNvlsSupport) {
  TopologyFacts topo = testing::dgxH100OneHost();
  EXPECT_TRUE(anyAvailable(table(Collective::AllReduce, CommShape{8, 1}, topo), Algorithm::Nvls));
  EXPECT_TRUE(anyAvailable(table(Collective::AllGather, CommShape{8, 1}, topo), Algorithm::Nvls));
  topo.nvlsSupport = false;
  for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter}) {
    EXPECT_FALSE(anyAvailable(table(c, CommShape{8, 1}, topo), Algorithm::Nvls));
    EXPECT_FALSE(anyAvailable(table(c, CommShape{16, 2}, testing::dgxH100Hosts()), Algorithm::Nvls));
  }
  TopologyFacts hosts = testing::dgxH100Hosts();
  EXPECT_TRUE(anyAvailable(table(Collective::AllReduce, CommShape{16, 2}, hosts), Algorithm::NvlsTree));
  hosts.nvlsSupport = false;
  EXPECT_FALSE(anyAvailable(table(Collective::AllReduce, CommShape{16, 2}, hosts), Algorithm::NvlsTree));
}

// NVLS needs 2 channels in its graph; NVLSTree is off on one node; AllGather/ReduceScatter NVLS needs at
// most 32 local ranks (NCCL_MAX_NVLS_ARITY) while AllReduce does not.
TEST(NcclModelConditions, NvlsChannelsNodesAndArity) {
  TopologyFacts topo = testing::dgxH100OneHost();
  EXPECT_FALSE(anyAvailable(table(Collective::AllReduce, CommShape{8, 1}, topo), Algorithm::NvlsTree));
  topo.nvls.nChannels = 1;
  EXPECT_FALSE(anyAvailable(table(Collective::AllReduce, CommShape{8, 1}, topo), Algorithm::Nvls));
  topo = testing::dgxH100OneHost();
  EXPECT_TRUE(anyAvailable(table(Collective::AllReduce, CommShape{72, 1}, topo), Algorithm::Nvls));
  EXPECT_FALSE(anyAvailable(table(Collective::AllGather, CommShape{72, 1}, topo), Algorithm::Nvls));
  EXPECT_TRUE(anyAvailable(table(Collective::AllGather, CommShape{32, 1}, topo), Algorithm::Nvls));
}

// PAT: AllGather/ReduceScatter only, Simple only, one GPU per node in NCCL_PAT_ENABLE's auto mode.
TEST(NcclModelConditions, PatNeedsOneRankPerNode) {
  const TopologyFacts topo = testing::dgxH100Hosts();
  for (Collective c : {Collective::AllGather, Collective::ReduceScatter}) {
    const CostTable onePerNode = table(c, CommShape{4, 4}, topo);
    EXPECT_GE(cell(onePerNode, Algorithm::Pat, Protocol::Simple), 0) << ncclCollectiveName(c);
    EXPECT_EQ(cell(onePerNode, Algorithm::Pat, Protocol::LL), kIgnore);
    EXPECT_EQ(cell(onePerNode, Algorithm::Pat, Protocol::LL128), kIgnore);
    EXPECT_FALSE(anyAvailable(table(c, CommShape{32, 4}, topo), Algorithm::Pat));
    NcclKnobs off;
    off.patEnable = 0;
    EXPECT_FALSE(anyAvailable(table(c, CommShape{4, 4}, topo, off), Algorithm::Pat));
    NcclKnobs forced;
    forced.patEnable = 1;
    EXPECT_TRUE(anyAvailable(table(c, CommShape{32, 4}, topo, forced), Algorithm::Pat));
  }
  EXPECT_FALSE(anyAvailable(table(Collective::AllReduce, CommShape{4, 4}, topo), Algorithm::Pat));
  EXPECT_FALSE(anyAvailable(table(Collective::Broadcast, CommShape{4, 4}, topo), Algorithm::Pat));
}

// AllGather/ReduceScatter never use Tree; CollNet is never emulated.
TEST(NcclModelConditions, TreeAndCollNet) {
  for (Collective c : {Collective::AllGather, Collective::ReduceScatter})
    EXPECT_FALSE(anyAvailable(table(c, CommShape{16, 2}, testing::dgxH100Hosts()), Algorithm::Tree));
  for (Collective c : {Collective::AllReduce, Collective::AllGather})
    for (Algorithm a : {Algorithm::CollNetDirect, Algorithm::CollNetChain})
      EXPECT_FALSE(anyAvailable(table(c, CommShape{16, 2}, testing::dgxH100Hosts()), a));
}

// LL128 by default: GPU-NIC path up to PXN (SM90+ with NCCL_LL128_C2C) or PXB, NVLink inside the node,
// equal compute capabilities (2.30: or all SM90+).
TEST(NcclModelConditions, Ll128ByDefault) {
  TopologyFacts topo = testing::dgxH100Hosts();
  EXPECT_GE(cell(table(Collective::AllReduce, CommShape{16, 2}, topo), Algorithm::Ring, Protocol::LL128), 0);
  topo.ring.typeInter = PathType::SYS;
  EXPECT_EQ(cell(table(Collective::AllReduce, CommShape{16, 2}, topo), Algorithm::Ring, Protocol::LL128), kIgnore);
  EXPECT_GE(cell(table(Collective::AllReduce, CommShape{16, 2}, topo), Algorithm::Tree, Protocol::LL128), 0);
  topo = testing::dgxH100Hosts();
  topo.ring.typeInter = PathType::PXN;
  EXPECT_GE(cell(table(Collective::AllReduce, CommShape{16, 2}, topo), Algorithm::Ring, Protocol::LL128), 0);
  NcclKnobs noC2c;
  noC2c.ll128C2c = false;
  EXPECT_EQ(cell(table(Collective::AllReduce, CommShape{16, 2}, topo, noC2c), Algorithm::Ring, Protocol::LL128),
            kIgnore);
  topo = testing::dgxH100Hosts();
  topo.maxCompCap = 100;  // mixed H100/B200
  EXPECT_EQ(cell(table(Collective::AllReduce, CommShape{16, 2}, topo, {}, NcclVersion::V2_28), Algorithm::Ring,
                 Protocol::LL128),
            kIgnore);
  EXPECT_GE(cell(table(Collective::AllReduce, CommShape{16, 2}, topo, {}, NcclVersion::V2_30), Algorithm::Ring,
                 Protocol::LL128),
            0);
  // NCCL_PROTO=LL128 forces it on whatever the path.
  topo.ring.typeInter = PathType::SYS;
  NcclKnobs forced;
  forced.proto = "LL128";
  EXPECT_GE(cell(table(Collective::AllReduce, CommShape{16, 2}, topo, forced), Algorithm::Ring, Protocol::LL128), 0);
}

TEST(NcclModelConditions, AlgoAndProtoRestrictionsBecomeIgnore) {
  const TopologyFacts topo = testing::dgxH100OneHost();
  NcclKnobs knobs;
  knobs.algo = "^NVLS";
  CostTable t = table(Collective::AllReduce, CommShape{8, 1}, topo, knobs);
  EXPECT_FALSE(anyAvailable(t, Algorithm::Nvls));
  EXPECT_TRUE(anyAvailable(t, Algorithm::Ring));
  EXPECT_TRUE(anyAvailable(t, Algorithm::Tree));
  knobs.algo = "ring;allreduce:tree";  // Ring everywhere, then only Tree for AllReduce
  EXPECT_FALSE(anyAvailable(table(Collective::AllReduce, CommShape{8, 1}, topo, knobs), Algorithm::Ring));
  EXPECT_TRUE(anyAvailable(table(Collective::AllReduce, CommShape{8, 1}, topo, knobs), Algorithm::Tree));
  EXPECT_TRUE(anyAvailable(table(Collective::AllGather, CommShape{8, 1}, topo, knobs), Algorithm::Ring));
  knobs = NcclKnobs{};
  knobs.proto = "^LL128;allreduce:LL128";
  t = table(Collective::AllReduce, CommShape{8, 1}, topo, knobs);
  EXPECT_EQ(cell(t, Algorithm::Ring, Protocol::Simple), kIgnore);
  EXPECT_GE(cell(t, Algorithm::Ring, Protocol::LL128), 0);
  t = table(Collective::AllGather, CommShape{8, 1}, topo, knobs);
  EXPECT_EQ(cell(t, Algorithm::Ring, Protocol::LL128), kIgnore);
  EXPECT_GE(cell(t, Algorithm::Ring, Protocol::LL), 0);
}

TEST(NcclModelConditions, BadRestrictionsFailWithNcclsMessage) {
  NcclKnobs knobs;
  knobs.algo = "ring,hypercube";
  try {
    table(Collective::AllReduce, CommShape{8, 1}, testing::dgxH100OneHost(), knobs);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "Unrecognized element token \"hypercube\" when parsing \"ring,hypercube\"");
  }
  knobs.algo = "allreduce:ring;tree";
  EXPECT_THROW(table(Collective::AllReduce, CommShape{8, 1}, testing::dgxH100OneHost(), knobs), std::invalid_argument);
  knobs.algo = "gather:ring";
  EXPECT_THROW(table(Collective::AllReduce, CommShape{8, 1}, testing::dgxH100OneHost(), knobs), std::invalid_argument);
}

TEST(NcclModelConditions, OneRankRunsRingSimpleAtZero) {
  const CostTable t = table(Collective::AllReduce, CommShape{1, 1}, testing::dgxH100OneHost());
  for (int a = 0; a < kNumAlgorithms; a++)
    for (int p = 0; p < kNumProtocols; p++)
      EXPECT_EQ(t[a][p],
                a == static_cast<int>(Algorithm::Ring) && p == static_cast<int>(Protocol::Simple) ? 0.0f : kIgnore);
  EXPECT_THROW(table(Collective::AllReduce, CommShape{2, 4}, testing::dgxH100OneHost()), std::invalid_argument);
}

}  // namespace
}  // namespace railtune::ncclmodel
