// The net plugin through the emulator's NCCL net selection (2.28 and 2.30 alike):
//   - on a host with an ACTIVE RDMA port (a fake sysfs tree), railtune steps aside with one WARN
//     naming the port, and NCCL moves on to its own transport; RAILTUNE_NET_TRANSPORT=socket makes
//     railtune carry the traffic even there;
//   - on a host without RDMA, railtune is the communicator's transport;
//   - RAILTUNE_NET_TRANSPORT=none, and a failed init, step aside; 2.28's finalize after the failed
//     init is survived.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "emulator/net_driver.h"
#include "tests/e2e/emulated_fixture.h"

namespace railtune::testing {
namespace {

using emu::NcclBehaviour;
using emu::PluginKind;

const std::string kRdmaHost = std::string(RAILTUNE_SOURCE_DIR) + "/tests/data/discover/sysfs/gb300-1plane";

class EmulatedNetSelectionTest : public EmulatedTest, public ::testing::WithParamInterface<NcclBehaviour> {
 protected:
  void SetUp() override {
    EmulatedTest::SetUp();
    env.set("NCCL_SOCKET_IFNAME", "lo");  // without RDMA, the loopback interface carries the traffic
    env.unset("RAILTUNE_NET_TRANSPORT");
    env.unset("RAILTUNE_RAIL_MAP");
  }
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

TEST_P(EmulatedNetSelectionTest, AnActiveRdmaPortMakesRailtuneStepAside) {
  env.set("RAILTUNE_NET_SYSFS_ROOT", kRdmaHost);
  const emu::NetSelection selection = select();
  EXPECT_NE(selection.chosenName, "railtune") << joined(selection.log);
  EXPECT_EQ(selection.driver, nullptr) << "railtune must not be the communicator's transport";
  EXPECT_NE(joined(selection.log).find("Failed to initialize NET plugin"), std::string::npos) << joined(selection.log);
  const std::vector<std::string> warnings = pluginWarnings();
  ASSERT_EQ(warnings.size(), 1u) << pluginLogText();
  EXPECT_NE(warnings[0].find("railtune net: stepping aside: RDMA port mlx5_0:1 is active"), std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find("RAILTUNE_NET_TRANSPORT=socket overrides"), std::string::npos) << warnings[0];
}

TEST_P(EmulatedNetSelectionTest, SocketOverridesTheActiveRdmaPort) {
  env.set("RAILTUNE_NET_SYSFS_ROOT", kRdmaHost);
  env.set("RAILTUNE_NET_TRANSPORT", "socket");
  // The fake tree's HCAs have no addresses on this machine; the plain interfaces do not count on a
  // host with RDMA, so no device is usable: railtune steps aside, saying so.
  emu::NetSelection selection = select();
  EXPECT_NE(selection.chosenName, "railtune") << joined(selection.log);
  EXPECT_NE(pluginLogText().find("is active, but RAILTUNE_NET_TRANSPORT=socket"), std::string::npos) << pluginLogText();
  EXPECT_NE(pluginLogText().find("no network device with an IPv4 address"), std::string::npos) << pluginLogText();
}

// A host without RDMA: a sysfs tree with only the loopback interface.
std::string hostWithoutRdma() {
  const std::filesystem::path root = std::filesystem::path(::testing::TempDir()) / "railtune-no-rdma";
  std::filesystem::create_directories(root / "sys/class/net/lo");
  std::ofstream(root / "sys/class/net/lo/operstate") << "unknown\n";
  return root.string();
}

TEST_P(EmulatedNetSelectionTest, WithoutRdmaRailtuneCarriesTheTraffic) {
  env.set("RAILTUNE_NET_SYSFS_ROOT", hostWithoutRdma());
  emu::NetSelection selection = select();
  EXPECT_EQ(selection.chosenName, "railtune") << joined(selection.log) << pluginLogText();
  ASSERT_NE(selection.driver, nullptr);
  int ndev = 0;
  ASSERT_EQ(selection.driver->devices(&ndev), ncclSuccess);
  ASSERT_EQ(ndev, 1) << pluginLogText();
  ncclNetProperties_v12_t props{};
  ASSERT_EQ(selection.driver->getProperties(0, &props), ncclSuccess);
  EXPECT_STREQ(props.name, "lo");
  EXPECT_EQ(props.ptrSupport, NCCL_PTR_HOST);
  EXPECT_GE(props.maxRecvs, 8);
  EXPECT_TRUE(pluginWarnings().empty()) << pluginLogText();
  EXPECT_EQ(selection.driver->finalize(), ncclSuccess);
}

// Every variable the net plugin reads is checked by the parameter table's rules: a bad value is one WARN
// naming it, and its default is used (RAILTUNE_STRICT=garbage used to be 0 without a word).
TEST_P(EmulatedNetSelectionTest, BadValuesAreOneWarningEachAndTheDefaultIsUsed) {
  env.set("RAILTUNE_NET_SYSFS_ROOT", hostWithoutRdma());
  env.set("RAILTUNE_STRICT", "garbage");
  env.set("RAILTUNE_NET_STREAMS", "1000");
  env.set("RAILTUNE_NET_TIMEOUT", "-5");
  emu::NetSelection selection = select();
  EXPECT_EQ(selection.chosenName, "railtune") << joined(selection.log) << pluginLogText();
  const std::vector<std::string> warnings = pluginWarnings();
  for (const char* expected : {"RAILTUNE_STRICT='garbage': expected 0/1/true/false/yes/no/on/off; using 0",
                               "RAILTUNE_NET_STREAMS='1000': outside 1..16; using 2",
                               "RAILTUNE_NET_TIMEOUT='-5': outside 1..3600; using 20"}) {
    const auto count = std::count_if(warnings.begin(), warnings.end(), [expected](const std::string& w) {
      return w.find(expected) != std::string::npos;
    });
    EXPECT_EQ(count, 1) << expected << "\n" << pluginLogText();
  }
  EXPECT_NE(pluginLogText().find("2 streams per connection, timeout 20 s"), std::string::npos) << pluginLogText();
  if (selection.driver != nullptr) {
    EXPECT_EQ(selection.driver->finalize(), ncclSuccess);
  }
}

TEST_P(EmulatedNetSelectionTest, TransportNoneStepsAside) {
  env.set("RAILTUNE_NET_TRANSPORT", "none");
  const emu::NetSelection selection = select();
  EXPECT_NE(selection.chosenName, "railtune") << joined(selection.log);
  const std::vector<std::string> warnings = pluginWarnings();
  ASSERT_EQ(warnings.size(), 1u) << pluginLogText();
  EXPECT_NE(warnings[0].find("RAILTUNE_NET_TRANSPORT=none"), std::string::npos) << warnings[0];
}

TEST_P(EmulatedNetSelectionTest, InitFailureAlsoStepsAside) {
  injectFault("net.init");
  const emu::NetSelection selection = select();
  EXPECT_NE(selection.chosenName, "railtune") << joined(selection.log);
  EXPECT_EQ(pluginWarnings().size(), 1u) << pluginLogText();
}

INSTANTIATE_TEST_SUITE_P(BothNccls, EmulatedNetSelectionTest,
                         ::testing::Values(NcclBehaviour::V2_28, NcclBehaviour::V2_30),
                         [](const ::testing::TestParamInfo<NcclBehaviour>& p) { return behaviourTag(p.param); });

// Every version through the emulator's net driver (NCCL's adapters for v6..v10).
class EmulatedNetVersionTest : public EmulatedTest,
                               public ::testing::WithParamInterface<std::tuple<NcclBehaviour, int>> {};

TEST_P(EmulatedNetVersionTest, InitFailsAndFinalizeIsSafe) {
  env.set("RAILTUNE_NET_TRANSPORT", "none");
  const int version = std::get<1>(GetParam());  // the driver calls the same on either NCCL
  const emu::Binding binding = emu::Loader::bindVersion(PluginKind::Net, pluginPath("net"), version);
  ASSERT_TRUE(binding) << "ncclNetPlugin_v" << version << " not bound";
  emu::NetDriver driver(binding);
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
