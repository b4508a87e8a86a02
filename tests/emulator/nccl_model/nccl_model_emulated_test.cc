// EmulatedNccl, the entry the decisions command uses: a profile's communicator, NCCL's decision with its
// channels, the TUNING log override, and the driver-form table.
#include <gtest/gtest.h>

#include "emulator/nccl_model/emulated_nccl.h"
#include "tests/emulator/nccl_model/nccl_model_test_support.h"

namespace railtune::ncclmodel {
namespace {

TEST(EmulatedNccl, RackDecisionsCarryNvlsChannels) {
  const EmulatedNccl nccl(NcclVersion::V2_30, "gb300-nvl72", CommShape{72, 1});
  EXPECT_EQ(nccl.label(), "emulated NCCL 2.30");
  EXPECT_EQ(nccl.shape().name, "one-rack-mnnvl");
  const std::optional<NcclDecision> d = nccl.decide(Collective::AllReduce, size_t{1} << 30);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->pick.algorithm, Algorithm::Nvls);
  EXPECT_EQ(d->pick.protocol, Protocol::Simple);
  EXPECT_EQ(d->channels.nChannels, 24);  // NVLS_NCHANNELS_SM100_NVL
  // AllGather on 72 local ranks cannot use NVLS (arity 32): Ring.
  EXPECT_EQ(nccl.decide(Collective::AllGather, size_t{1} << 30)->pick.algorithm, Algorithm::Ring);
}

TEST(EmulatedNccl, KnobsAndConstantsReachTheModel) {
  NcclKnobs knobs;
  knobs.algo = "^NVLS";
  const EmulatedNccl noNvls(NcclVersion::V2_30, "gb300-nvl72", CommShape{72, 1}, knobs);
  EXPECT_NE(noNvls.decide(Collective::AllReduce, size_t{1} << 30)->pick.algorithm, Algorithm::Nvls);
  CostModelConstants slowNvls = defaultCostModelConstants(NcclVersion::V2_30);
  slowNvls.hwLatencies[0][static_cast<int>(Algorithm::Nvls)][2] = 1000;  // an init that penalises NVLS
  const EmulatedNccl edited(NcclVersion::V2_30, "gb300-nvl72", CommShape{72, 1}, {}, slowNvls);
  EXPECT_NE(edited.decide(Collective::AllReduce, 8)->pick.algorithm, Algorithm::Nvls);
  EXPECT_THROW(EmulatedNccl(NcclVersion::V2_30, "gb300-nvl72", CommShape{6, 1}), GraphDataError);
}

TEST(EmulatedNccl, TuningTableReplacesTheModel) {
  EmulatedNccl nccl(NcclVersion::V2_28, "dgx-h100", CommShape{8, 1});
  TuningTable table;  // a table where only Tree/Simple AllReduce is modelled
  table.latencies[4][0][2] = 1.0f;
  table.bandwidths[4][0][2] = 100.0f;
  table.maxThreads[0][2] = 512;
  nccl.useTuningTable(table, "job.log");
  EXPECT_EQ(nccl.label(), "NCCL 2.28 TUNING log job.log");
  const std::optional<NcclDecision> d = nccl.decide(Collective::AllReduce, 1 << 20);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->pick.algorithm, Algorithm::Tree);
  EXPECT_FALSE(nccl.decide(Collective::Broadcast, 1 << 20));
  emu::CostTable out;
  copyTo(nccl.costTable(Collective::AllReduce, 1 << 20), out);
  EXPECT_EQ(out[1][2], kIgnore);
  EXPECT_GT(out[0][2], 0.0f);
}

TEST(EmulatedNccl, ACommunicatorNeedsChannels) {
  TopologyFacts topo = testing::dgxH100OneHost();
  topo.nChannels = 0;
  EXPECT_THROW(tuneModel(NcclVersion::V2_30, CommShape{8, 1}, topo, defaultCostModelConstants(NcclVersion::V2_30), {}),
               std::invalid_argument);
}

}  // namespace
}  // namespace railtune::ncclmodel
