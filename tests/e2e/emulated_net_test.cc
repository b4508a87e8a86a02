// The net plugin through the emulator's NCCL net selection: railtune steps aside, so NCCL (2.28
// and 2.30 alike) moves on and assigns its own Socket transport; 2.28's finalize after the failed
// init is survived.
#include <gtest/gtest.h>

#include "emulator/net_driver.h"
#include "tests/e2e/emulated_fixture.h"

namespace railtune::testing {
namespace {

using emu::NcclBehaviour;
using emu::PluginKind;

class EmulatedNetSelectionTest : public EmulatedTest, public ::testing::WithParamInterface<NcclBehaviour> {
 protected:
  emu::NetSelection select() {
    emu::Loader loader(GetParam(), emu::EnvSource::fromMap({{"NCCL_NET_PLUGIN", pluginPath("net")}}));
    std::vector<emu::NetCandidate> candidates = loader.openNetList();
    return emu::selectNet(loader, candidates, 0x1234);
  }
  static std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const std::string& line : lines) out += line + "\n";
    return out;
  }
};

TEST_P(EmulatedNetSelectionTest, NcclMovesOnToItsOwnTransport) {
  const emu::NetSelection selection = select();
  EXPECT_EQ(selection.chosenName, "Socket") << joined(selection.log);
  EXPECT_EQ(selection.driver, nullptr) << "railtune must not be the communicator's transport";
  EXPECT_NE(joined(selection.log).find("Failed to initialize NET plugin"), std::string::npos) << joined(selection.log);
  const std::vector<std::string> warnings = pluginWarnings();
  ASSERT_EQ(warnings.size(), 1u) << pluginLogText();
  EXPECT_NE(warnings[0].find("railtune net: no transport yet, stepping aside"), std::string::npos) << warnings[0];
}

TEST_P(EmulatedNetSelectionTest, InitFailureAlsoStepsAside) {
  injectFault("net.init");
  const emu::NetSelection selection = select();
  EXPECT_EQ(selection.chosenName, "Socket") << joined(selection.log);
  EXPECT_EQ(pluginWarnings().size(), 1u) << pluginLogText();
}

INSTANTIATE_TEST_SUITE_P(BothNccls, EmulatedNetSelectionTest,
                         ::testing::Values(NcclBehaviour::V2_28, NcclBehaviour::V2_30),
                         [](const ::testing::TestParamInfo<NcclBehaviour>& p) { return behaviourTag(p.param); });

// Every version through the emulator's net driver (NCCL's adapters for v6..v10).
class EmulatedNetVersionTest : public EmulatedTest,
                               public ::testing::WithParamInterface<std::tuple<NcclBehaviour, int>> {};

TEST_P(EmulatedNetVersionTest, InitFailsAndFinalizeIsSafe) {
  const auto [behaviour, version] = GetParam();
  const emu::Binding binding = emu::Loader::bindVersion(PluginKind::Net, pluginPath("net"), version);
  ASSERT_TRUE(binding) << "ncclNetPlugin_v" << version << " not bound";
  emu::NetDriver driver(binding, behaviour);
  EXPECT_NE(driver.init(0x99, NCCL_NET_TRAFFIC_CLASS_UNDEF, emu::pluginLogger(), emu::idleProfilerCallback()),
            ncclSuccess);
  EXPECT_EQ(driver.context(), nullptr);
  EXPECT_EQ(driver.finalize(), ncclSuccess) << "NCCL 2.28 finalizes after a failed init";
  EXPECT_TRUE(driver.violations().empty()) << driver.violations().front();
  EXPECT_EQ(pluginWarnings().size(), 1u) << pluginLogText();
}

INSTANTIATE_TEST_SUITE_P(
    AllVersions, EmulatedNetVersionTest,
    ::testing::Combine(::testing::Values(NcclBehaviour::V2_28, NcclBehaviour::V2_30),
                       ::testing::Values(6, 7, 8, 9, 10, 11, 12)),
    [](const ::testing::TestParamInfo<std::tuple<NcclBehaviour, int>>& p) {
      return behaviourTag(std::get<0>(p.param)).append("_v").append(std::to_string(std::get<1>(p.param)));
    });

}  // namespace
}  // namespace railtune::testing
