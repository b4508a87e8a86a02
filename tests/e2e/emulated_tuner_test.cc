// The tuner through the emulator: every version NCCL can bind, in both NCCL behaviours, leaves
// NCCL's choice alone; the failure table holds; the poison guards stay clean.
#include <gtest/gtest.h>

#include <cstring>

#include "emulator/tuner_driver.h"
#include "tests/e2e/emulated_fixture.h"

namespace railtune::testing {
namespace {

using emu::NcclBehaviour;
using emu::PluginKind;

constexpr ncclNvlDomainInfo_v5_t kDomains{2, 4, 4};

class EmulatedTunerTest : public EmulatedTest, public ::testing::WithParamInterface<std::tuple<NcclBehaviour, int>> {
 protected:
  NcclBehaviour behaviour() const { return std::get<0>(GetParam()); }
  int version() const { return std::get<1>(GetParam()); }

  void SetUp() override {
    EmulatedTest::SetUp();
    binding = emu::Loader::bindVersion(PluginKind::Tuner, pluginPath("tuner"), version());
    ASSERT_TRUE(binding) << "ncclTunerPlugin_v" << version() << " not bound";
    constants = emu::defaultTunerConstants(behaviour());
    defaults = constants;
  }
  void fillTable(emu::CostTable& table) {
    for (int a = 0; a < NCCL_NUM_ALGORITHMS; ++a) {
      for (int p = 0; p < NCCL_NUM_PROTOCOLS; ++p) table[a][p] = 3.0f + static_cast<float>(7 * a + p);
    }
    table[NCCL_ALGO_NVLS_TREE][NCCL_PROTO_LL] = -1.0f;
  }
  // Every collective a tuner sees, small to huge: the table stays bit-identical, channels 0.
  void expectNoOpinion(emu::TunerDriver& driver) {
    for (int coll = ncclFuncBroadcast; coll <= ncclFuncAllReduce; ++coll) {
      for (size_t bytes : {size_t{4}, size_t{65536}, size_t{1} << 30}) {
        emu::CostTable table, before;
        fillTable(table);
        std::memcpy(before, table, sizeof(table));
        int nChannels = 0;
        ASSERT_EQ(driver.getCollInfo(static_cast<ncclFunc_t>(coll), bytes, 2, table, 0, &nChannels), ncclSuccess);
        EXPECT_EQ(std::memcmp(before, table, sizeof(table)), 0) << "coll " << coll << " bytes " << bytes;
        EXPECT_EQ(nChannels, 0);
      }
    }
  }

  emu::Binding binding;
  ncclTunerConstants_v5_t constants, defaults;
};

TEST_P(EmulatedTunerTest, LeavesEveryDecisionToNccl) {
  emu::TunerDriver driver(binding);
  ASSERT_EQ(driver.init(0x5eed, 8, 2, kDomains, &constants), ncclSuccess) << pluginLogText();
  EXPECT_EQ(std::memcmp(&constants, &defaults, sizeof(constants)), 0) << "NCCL's cost model untouched";
  expectNoOpinion(driver);
  if (driver.hasChunkSize()) {
    size_t chunk = 1 << 17;
    EXPECT_EQ(driver.getChunkSize(ncclFuncAllReduce, 1 << 26, NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, 8, &chunk),
              ncclSuccess);
    EXPECT_EQ(chunk, size_t{1} << 17);
  }
  EXPECT_EQ(driver.finalize(), ncclSuccess);
  EXPECT_TRUE(driver.violations().empty()) << driver.violations().front();
  EXPECT_TRUE(pluginWarnings().empty()) << pluginLogText();
}

TEST_P(EmulatedTunerTest, InitFailureIsPassThrough) {
  injectFault("tuner.init");
  emu::TunerDriver driver(binding);
  ASSERT_EQ(driver.init(0x5eed, 8, 2, kDomains, &constants), ncclSuccess);
  EXPECT_EQ(std::memcmp(&constants, &defaults, sizeof(constants)), 0);
  expectNoOpinion(driver);
  EXPECT_EQ(pluginWarnings().size(), 1u) << pluginLogText();
  EXPECT_TRUE(driver.violations().empty());
}

TEST_P(EmulatedTunerTest, InitFailureUnderStrictFailsTheCommunicator) {
  injectFault("tuner.init");
  env.set("RAILTUNE_STRICT", "1");
  emu::TunerDriver driver(binding);
  EXPECT_NE(driver.init(0x5eed, 8, 2, kDomains, &constants), ncclSuccess);
  EXPECT_EQ(pluginWarnings().size(), 1u) << pluginLogText();
}

TEST_P(EmulatedTunerTest, GetCollInfoFailureIsContainedAndDisablesTheContext) {
  injectFault("tuner.getCollInfo");
  emu::TunerDriver driver(binding);
  ASSERT_EQ(driver.init(0x5eed, 8, 2, kDomains, &constants), ncclSuccess);
  expectNoOpinion(driver);
  EXPECT_EQ(pluginWarnings().size(), 1u) << "one WARN for many failing calls\n" << pluginLogText();
  EXPECT_TRUE(driver.violations().empty());
}

INSTANTIATE_TEST_SUITE_P(
    AllVersions, EmulatedTunerTest,
    ::testing::Combine(::testing::Values(NcclBehaviour::V2_28, NcclBehaviour::V2_30),
                       ::testing::Values(2, 3, 4, 5, 6, 7)),
    [](const ::testing::TestParamInfo<std::tuple<NcclBehaviour, int>>& p) {
      return behaviourTag(std::get<0>(p.param)).append("_v").append(std::to_string(std::get<1>(p.param)));
    });

// NCCL's own lookup, by NCCL_TUNER_PLUGIN: 2.28 binds v5, 2.30 binds v6.
class EmulatedTunerLookupTest : public EmulatedTest {};

TEST_F(EmulatedTunerLookupTest, EachNcclBindsItsNewestVersion) {
  for (auto [behaviour, expected] : {std::pair{NcclBehaviour::V2_28, 5}, std::pair{NcclBehaviour::V2_30, 6}}) {
    emu::Loader loader(behaviour, emu::EnvSource::fromMap({{"NCCL_TUNER_PLUGIN", pluginPath("tuner")}}));
    const emu::Binding binding = loader.openTuner();
    ASSERT_TRUE(binding) << emu::behaviourName(behaviour);
    EXPECT_EQ(binding.version, expected);
    emu::TunerDriver driver(binding);
    ncclTunerConstants_v5_t constants = emu::defaultTunerConstants(behaviour);
    EXPECT_EQ(driver.init(1, 4, 1, kDomains, &constants), ncclSuccess);
    EXPECT_STREQ(driver.pluginName(), "railtune");
  }
}

}  // namespace
}  // namespace railtune::testing
