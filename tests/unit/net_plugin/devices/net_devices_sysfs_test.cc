// The sysfs reader, its value parsers, and the step-aside rule tested both ways on fake trees.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "net_plugin/devices/step_aside.h"
#include "net_plugin/devices/sysfs.h"
#include "tests/support/fake_env.h"
#include "tests/unit/net_plugin/devices/net_devices_tree.h"

namespace railtune::net {
namespace {

const std::string kGb300 = std::string(RAILTUNE_DISCOVER_SYSFS) + "/gb300-1plane";
const std::string kRoce = std::string(RAILTUNE_DISCOVER_SYSFS) + "/roce-h100";

class NetDevicesStepAside : public ::testing::Test {
 protected:
  void SetUp() override { testing::fakeEnvVars().clear(); }
  void TearDown() override { testing::fakeEnvVars().clear(); }
};

TEST(NetDevicesSysfs, ParsesPortState) {
  EXPECT_TRUE(parsePortActive("4: ACTIVE"));
  EXPECT_FALSE(parsePortActive("1: DOWN"));
  EXPECT_FALSE(parsePortActive("5: ACTIVE_DEFER"));
  EXPECT_FALSE(parsePortActive("ACTIVE"));
  EXPECT_FALSE(parsePortActive(""));
}

TEST(NetDevicesSysfs, ParsesRate) {
  EXPECT_EQ(parseRateMbps("800 Gb/sec (4X XDR)"), 800000);
  EXPECT_EQ(parseRateMbps("2.5 Gb/sec (1X SDR)"), 2500);
  EXPECT_EQ(parseRateMbps("400 Gb/sec (2X XDR)"), 400000);
  EXPECT_EQ(parseRateMbps("fast"), 0);
  EXPECT_EQ(parseRateMbps("100"), 0);
  EXPECT_EQ(parseRateMbps("99999999999999 Gb/sec"), 2147483647);
}

TEST(NetDevicesSysfs, ParsesGuid) {
  EXPECT_EQ(parseGuid("b83f:d203:00a1:b220"), 0xb83fd20300a1b220ull);
  EXPECT_EQ(parseGuid("0000:0000:0000:0001"), 1u);
  EXPECT_FALSE(parseGuid("").has_value());
  EXPECT_FALSE(parseGuid("zz").has_value());
  EXPECT_FALSE(parseGuid("1111:2222:3333:4444:5").has_value());
}

TEST(NetDevicesSysfs, ReadsTheGb300Tray) {
  const std::vector<RdmaDevice> devices = readRdmaDevices(kGb300);
  ASSERT_EQ(devices.size(), 5u);
  const RdmaDevice& mlx5_2 = devices[2];
  EXPECT_EQ(mlx5_2.name, "mlx5_2");
  EXPECT_EQ(mlx5_2.guid, 0xb83fd20300a1b220ull);
  EXPECT_EQ(mlx5_2.netdevs, std::vector<std::string>{"ibP16p3s0"});
  EXPECT_TRUE(mlx5_2.pciPath.ends_with("/sys/devices/pci0010:00/0010:00:00.0/0010:01:00.0/0010:02:00.0/0010:03:00.0"))
      << mlx5_2.pciPath;
  ASSERT_EQ(mlx5_2.ports.size(), 1u);
  EXPECT_TRUE(mlx5_2.ports[0].active);
  EXPECT_EQ(mlx5_2.ports[0].linkLayer, "InfiniBand");
  EXPECT_EQ(mlx5_2.ports[0].speedMbps, 800000);
}

TEST(NetDevicesSysfs, FoldsPciFunctionsAsNcclDoes) {
  // Two planes of one ConnectX-8 are functions .0 and .1; NCCL gives both the .0 path.
  const std::vector<RdmaDevice> devices = readRdmaDevices(std::string(RAILTUNE_DISCOVER_SYSFS) + "/gb300-2plane");
  ASSERT_GE(devices.size(), 2u);
  EXPECT_EQ(devices[0].pciPath, devices[1].pciPath);
  EXPECT_TRUE(devices[1].pciPath.ends_with("0000:03:00.0")) << devices[1].pciPath;
}

TEST(NetDevicesSysfs, ReadsInterfaces) {
  const NetInterface eth0 = readNetInterface(kGb300, "eth0");
  EXPECT_EQ(eth0.operstate, "up");
  EXPECT_EQ(eth0.speedMbps, 1000);
  EXPECT_TRUE(eth0.pciPath.ends_with("0005:01:00.0")) << eth0.pciPath;
  const NetInterface docker0 = readNetInterface(kRoce, "docker0");
  EXPECT_EQ(docker0.pciPath, "");
  EXPECT_EQ(readNetInterface(kRoce, "enp220s0np0").speedMbps, 0);  // speed -1: unknown
  EXPECT_TRUE(readNetInterfaces("/nonexistent-root").empty());
}

TEST(NetDevicesSysfs, DoesNotHangOnAFifo) {
  testing::FakeSysfs tree;
  tree.write("sys/x", "");
  const std::string fifo = tree.root() + "/sys/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(readSysfsLine(fifo).has_value());
  EXPECT_EQ(readSysfsLine(tree.root() + "/sys/x"), "");
  EXPECT_FALSE(readSysfsLine(tree.root() + "/sys/missing").has_value());
}

TEST_F(NetDevicesStepAside, StepsAsideWhereRdmaIsActive) {
  const StepAsideDecision decision = decideStepAside(kGb300, testing::fakeEnv);
  EXPECT_TRUE(decision.stepAside);
  EXPECT_EQ(decision.choice, TransportChoice::Auto);
  EXPECT_EQ(decision.activeRdmaPort, "mlx5_0:1");
  EXPECT_NE(decision.reason.find("RDMA port mlx5_0:1 is active"), std::string::npos) << decision.reason;
  EXPECT_NE(decision.reason.find("RAILTUNE_NET_TRANSPORT=socket"), std::string::npos) << decision.reason;
}

TEST_F(NetDevicesStepAside, CarriesOverVerbsWhenIbIsAskedFor) {
  testing::fakeEnvVars()["RAILTUNE_NET_TRANSPORT"] = "ib";
  const StepAsideDecision decision = decideStepAside(kGb300, testing::fakeEnv);
  EXPECT_FALSE(decision.stepAside);
  EXPECT_EQ(decision.choice, TransportChoice::Ib);
  EXPECT_NE(decision.reason.find("over verbs"), std::string::npos) << decision.reason;
}

TEST_F(NetDevicesStepAside, SaysTheVerbsTransportHasRunOnTheSimulatorOnly) {
  const StepAsideDecision decision = decideStepAside(kGb300, testing::fakeEnv);
  EXPECT_NE(decision.reason.find("simulator only"), std::string::npos) << decision.reason;
  EXPECT_NE(decision.reason.find("RAILTUNE_NET_TRANSPORT=ib overrides"), std::string::npos) << decision.reason;
}

TEST_F(NetDevicesStepAside, CarriesWhenSocketIsAskedFor) {
  testing::fakeEnvVars()["RAILTUNE_NET_TRANSPORT"] = "socket";
  const StepAsideDecision decision = decideStepAside(kGb300, testing::fakeEnv);
  EXPECT_FALSE(decision.stepAside);
  EXPECT_EQ(decision.choice, TransportChoice::Socket);
  EXPECT_EQ(decision.activeRdmaPort, "mlx5_0:1");
}

TEST_F(NetDevicesStepAside, CarriesWithoutRdma) {
  testing::FakeSysfs tree;
  tree.addInterface("eth0", "0000:00:1f.0", "up", "25000");
  const StepAsideDecision decision = decideStepAside(tree.root(), testing::fakeEnv);
  EXPECT_FALSE(decision.stepAside);
  EXPECT_EQ(decision.activeRdmaPort, "");
  EXPECT_NE(decision.reason.find("no active RDMA port"), std::string::npos);
}

TEST_F(NetDevicesStepAside, DownPortsDoNotCount) {
  testing::FakeSysfs tree;
  tree.addHca("mlx5_0", "0000:17:00.0", "1: DOWN", "enp23s0np0");
  tree.addHca("mlx5_1", "0000:18:00.0", "2: INIT", "");
  EXPECT_FALSE(decideStepAside(tree.root(), testing::fakeEnv).stepAside);
  tree.addHca("mlx5_2", "0000:19:00.0", "4: ACTIVE", "");
  const StepAsideDecision decision = decideStepAside(tree.root(), testing::fakeEnv);
  EXPECT_TRUE(decision.stepAside);
  EXPECT_EQ(decision.activeRdmaPort, "mlx5_2:1");
}

TEST_F(NetDevicesStepAside, NoneAlwaysStepsAside) {
  testing::fakeEnvVars()["RAILTUNE_NET_TRANSPORT"] = "none";
  testing::FakeSysfs tree;
  const StepAsideDecision decision = decideStepAside(tree.root(), testing::fakeEnv);
  EXPECT_TRUE(decision.stepAside);
  EXPECT_EQ(decision.choice, TransportChoice::None);
  EXPECT_NE(decision.reason.find("RAILTUNE_NET_TRANSPORT=none"), std::string::npos);
}

TEST_F(NetDevicesStepAside, ABadValueStepsAsideNamingIt) {
  testing::fakeEnvVars()["RAILTUNE_NET_TRANSPORT"] = "verbs";
  testing::FakeSysfs tree;
  const StepAsideDecision decision = decideStepAside(tree.root(), testing::fakeEnv);
  EXPECT_TRUE(decision.stepAside);
  EXPECT_NE(decision.reason.find("RAILTUNE_NET_TRANSPORT"), std::string::npos) << decision.reason;
  EXPECT_NE(decision.reason.find("verbs"), std::string::npos) << decision.reason;
}

}  // namespace
}  // namespace railtune::net
