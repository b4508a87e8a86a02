// The profiler through the emulator: every version, both NCCL behaviours, asks for no events
// (mask 0), stays loaded, and an init failure still leaves mask 0 and the plugin loaded.
#include <gtest/gtest.h>

#include "emulator/profiler_driver.h"
#include "tests/e2e/emulated_fixture.h"

namespace railtune::testing {
namespace {

using emu::NcclBehaviour;
using emu::PluginKind;

class EmulatedProfilerTest : public EmulatedTest, public ::testing::WithParamInterface<std::tuple<NcclBehaviour, int>> {
 protected:
  void SetUp() override {
    EmulatedTest::SetUp();
    binding = emu::Loader::bindVersion(PluginKind::Profiler, pluginPath("profiler"), std::get<1>(GetParam()));
    ASSERT_TRUE(binding) << "ncclProfiler_v" << std::get<1>(GetParam()) << " not bound";
  }
  emu::Binding binding;
};

TEST_P(EmulatedProfilerTest, AsksForTheDefaultEventsAndRecordsACollective) {
  env.unset("RAILTUNE_PROFILE_MASK");
  emu::ProfilerDriver driver(binding, std::get<0>(GetParam()));
  ASSERT_EQ(driver.init(0xabc, "trainer", 2, 8, 0), ncclSuccess);
  EXPECT_TRUE(driver.loaded());
  EXPECT_NE(driver.activationMask() & ncclProfileColl, 0);
  EXPECT_NE(driver.context(), nullptr);
  ncclProfilerEventDescr_v6_t descr{};
  descr.type = ncclProfileColl;
  void* handle = nullptr;
  EXPECT_EQ(driver.startEvent(&descr, &handle), ncclSuccess);
  EXPECT_NE(handle, nullptr);
  EXPECT_EQ(driver.stopEvent(handle), ncclSuccess);
  EXPECT_EQ(driver.stopEvent(nullptr), ncclSuccess);
  EXPECT_EQ(driver.finalize(), ncclSuccess);
  EXPECT_TRUE(driver.violations().empty()) << driver.violations().front();
  EXPECT_TRUE(pluginWarnings().empty()) << pluginLogText();
}

TEST_P(EmulatedProfilerTest, MaskNoneAsksForNoEvents) {
  env.set("RAILTUNE_PROFILE_MASK", "none");
  emu::ProfilerDriver driver(binding, std::get<0>(GetParam()));
  ASSERT_EQ(driver.init(0xabc, "trainer", 2, 8, 0), ncclSuccess);
  EXPECT_EQ(driver.activationMask(), 0);
  ncclProfilerEventDescr_v6_t descr{};
  descr.type = ncclProfileColl;
  void* handle = nullptr;
  EXPECT_EQ(driver.startEvent(&descr, &handle), ncclSuccess);
  EXPECT_EQ(handle, nullptr);
  EXPECT_EQ(driver.finalize(), ncclSuccess);
  EXPECT_TRUE(pluginWarnings().empty()) << pluginLogText();
}

TEST_P(EmulatedProfilerTest, InitFailureStillLoadedWithMaskZero) {
  injectFault("profiler.init");
  emu::ProfilerDriver driver(binding, std::get<0>(GetParam()));
  ::testing::internal::CaptureStderr();  // v1..v3 get no logger: their one WARN goes to stderr
  ASSERT_EQ(driver.init(0xabc, "trainer", 2, 8, 0), ncclSuccess);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(driver.loaded()) << "init reported success, so even 2.30 keeps the plugin";
  EXPECT_EQ(driver.activationMask(), 0);
  const size_t warnings = pluginWarnings().size() + (err.find("WARN railtune profiler:") != std::string::npos);
  EXPECT_EQ(warnings, 1u) << err << pluginLogText();
  EXPECT_EQ(driver.finalize(), ncclSuccess);
}

INSTANTIATE_TEST_SUITE_P(
    AllVersions, EmulatedProfilerTest,
    ::testing::Combine(::testing::Values(NcclBehaviour::V2_28, NcclBehaviour::V2_30),
                       ::testing::Values(1, 2, 3, 4, 5, 6)),
    [](const ::testing::TestParamInfo<std::tuple<NcclBehaviour, int>>& p) {
      return behaviourTag(std::get<0>(p.param)).append("_v").append(std::to_string(std::get<1>(p.param)));
    });

class EmulatedProfilerLookupTest : public EmulatedTest {};

TEST_F(EmulatedProfilerLookupTest, EachNcclBindsItsNewestVersion) {
  for (auto [behaviour, expected] : {std::pair{NcclBehaviour::V2_28, 5}, std::pair{NcclBehaviour::V2_30, 6}}) {
    emu::Loader loader(behaviour, emu::EnvSource::fromMap({{"NCCL_PROFILER_PLUGIN", pluginPath("profiler")}}));
    const emu::Binding binding = loader.openProfiler();
    ASSERT_TRUE(binding) << emu::behaviourName(behaviour);
    EXPECT_EQ(binding.version, expected);
  }
}

}  // namespace
}  // namespace railtune::testing
