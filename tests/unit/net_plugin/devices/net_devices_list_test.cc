// The device list: from the rail map, discovered from RDMA devices, or plain interfaces, with
// NCCL_IB_HCA and NCCL_SOCKET_IFNAME applied; and the address file.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "formats/rail_map.h"
#include "net_plugin/devices/addresses.h"
#include "net_plugin/devices/device_list.h"
#include "tests/support/fake_env.h"
#include "tests/unit/net_plugin/devices/net_devices_tree.h"

namespace railtune::net {
namespace {

const std::string kSysfs = RAILTUNE_DISCOVER_SYSFS;
const std::string kData = RAILTUNE_NET_DATA;

class NetDevicesList : public ::testing::Test {
 protected:
  void SetUp() override { testing::fakeEnvVars().clear(); }
  void TearDown() override { testing::fakeEnvVars().clear(); }

  static DeviceList build(const std::string& root, const std::string& addressFile) {
    DeviceListOptions options;
    options.root = root;
    options.addressFile = addressFile;
    options.env = testing::fakeEnv;
    return buildDeviceList(options);
  }
  static DeviceList buildGb300() { return build(kSysfs + "/gb300-1plane", kData + "/gb300-1plane.addresses"); }
  static void useRailMap(const std::string& host) {
    testing::fakeEnvVars()["RAILTUNE_RAIL_MAP"] = kData + "/gb300-tray.rail-map.json";
    testing::fakeEnvVars()["RAILTUNE_HOST"] = host;
  }
};

std::string names(const DeviceList& list) {
  std::string text;
  for (const NetDevice& device : list.devices) text += (text.empty() ? "" : ",") + device.name;
  return text;
}

TEST_F(NetDevicesList, FromTheRailMap) {
  useRailMap("gb300-r00-t00");
  const DeviceList list = buildGb300();
  EXPECT_EQ(list.source, DeviceSource::RailMap);
  ASSERT_EQ(names(list), "mlx5_0,mlx5_1,mlx5_2,mlx5_3");
  const NetDevice& mlx5_1 = list.devices[1];
  EXPECT_EQ(mlx5_1.netdev, "ibP2p3s0");
  EXPECT_EQ(mlx5_1.ipv4, "10.0.1.11");
  EXPECT_EQ(mlx5_1.rail, 1);
  EXPECT_EQ(mlx5_1.plane, -1);
  EXPECT_EQ(mlx5_1.port, 1);
  EXPECT_EQ(mlx5_1.speedMbps, 800000);
  EXPECT_EQ(mlx5_1.linkLayer, "InfiniBand");
  EXPECT_TRUE(mlx5_1.pciPath.ends_with("/0002:03:00.0")) << mlx5_1.pciPath;
  EXPECT_NE(mlx5_1.guid, 0u);
  EXPECT_EQ(list.devices[2].speedMbps, 800000);    // no speed_mbps in the map: sysfs's rate
  EXPECT_EQ(list.devices[3].netdev, "ibP18p3s0");  // no netdev in the map: sysfs's
  EXPECT_EQ(list.devices[3].ipv4, "10.0.3.11");
}

TEST_F(NetDevicesList, OneDevicePerDistinctHca) {
  useRailMap("shared-nic-host");
  const DeviceList list = buildGb300();
  ASSERT_EQ(names(list), "mlx5_0,mlx5_1");
  EXPECT_EQ(list.devices[0].plane, 0);
  EXPECT_EQ(list.devices[1].plane, 1);
  EXPECT_EQ(list.devices[1].speedMbps, 400000);
  EXPECT_EQ(list.devices[0].port, 1);  // port 2 of the same HCA (GPU 1) gives no second device
}

TEST_F(NetDevicesList, HostFromNcclHostIdWhenRailtuneHostIsUnset) {
  testing::fakeEnvVars()["RAILTUNE_RAIL_MAP"] = kData + "/gb300-tray.rail-map.json";
  testing::fakeEnvVars()["NCCL_HOSTID"] = "shared-nic-host";
  EXPECT_EQ(names(buildGb300()), "mlx5_0,mlx5_1");
}

TEST_F(NetDevicesList, RailMapFilteredByNcclIbHca) {
  useRailMap("gb300-r00-t00");
  testing::fakeEnvVars()["NCCL_IB_HCA"] = "^=mlx5_1,mlx5_3";
  EXPECT_EQ(names(buildGb300()), "mlx5_0,mlx5_2");
  testing::fakeEnvVars()["NCCL_IB_HCA"] = "mlx5_2:1,mlx5_0:2";
  const DeviceList list = buildGb300();
  EXPECT_EQ(names(list), "mlx5_2");
  EXPECT_NE(std::find(list.notes.begin(), list.notes.end(), "mlx5_0:1 left out by NCCL_IB_HCA"), list.notes.end());
}

TEST_F(NetDevicesList, TheRailMapWinsOverNcclIbHcaRails) {
  useRailMap("gb300-r00-t00");
  testing::fakeEnvVars()["NCCL_IB_HCA"] = "=mlx5_0:1:7:3";
  const DeviceList list = buildGb300();
  ASSERT_EQ(names(list), "mlx5_0");
  EXPECT_EQ(list.devices[0].rail, 0);   // the map's rail
  EXPECT_EQ(list.devices[0].plane, 3);  // the map has no plane: NCCL_IB_HCA's
}

TEST_F(NetDevicesList, HostNotInTheMapIsDiscovered) {
  useRailMap("some-other-host");
  const DeviceList list = buildGb300();
  EXPECT_EQ(list.source, DeviceSource::Rdma);
  EXPECT_EQ(list.notes.at(0), "host 'some-other-host' is not in the rail map " + kData + "/gb300-tray.rail-map.json");
}

TEST_F(NetDevicesList, ABadRailMapIsAnErrorNamingIt) {
  testing::fakeEnvVars()["RAILTUNE_RAIL_MAP"] = kData + "/gb300-1plane.addresses";
  EXPECT_THROW(buildGb300(), formats::RailMapError);
}

TEST_F(NetDevicesList, DiscoveredFromRdma) {
  const DeviceList list = buildGb300();
  EXPECT_EQ(list.source, DeviceSource::Rdma);
  ASSERT_EQ(names(list), "mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4");
  const NetDevice& bluefield = list.devices[4];
  EXPECT_EQ(bluefield.netdev, "enP6p1s0f0np0");
  EXPECT_EQ(bluefield.linkLayer, "Ethernet");
  EXPECT_EQ(bluefield.speedMbps, 400000);
  EXPECT_EQ(bluefield.ipv4, "");  // no address in the fixture
  EXPECT_EQ(list.devices[0].rail, -1);
}

TEST_F(NetDevicesList, DiscoveredRdmaTakesRailAndPlaneFromNcclIbHca) {
  testing::fakeEnvVars()["NCCL_IB_HCA"] = "=mlx5_0:1:0:0,mlx5_1:1:1:0";
  const DeviceList list = buildGb300();
  ASSERT_EQ(names(list), "mlx5_0,mlx5_1");
  EXPECT_EQ(list.devices[1].rail, 1);
  EXPECT_EQ(list.devices[1].plane, 0);
}

TEST_F(NetDevicesList, NcclIbHcaCanLeaveNothing) {
  testing::fakeEnvVars()["NCCL_IB_HCA"] = "=mlx5_9";
  const DeviceList list = buildGb300();
  EXPECT_EQ(list.source, DeviceSource::Rdma);  // RDMA is there: no fallback to plain interfaces
  EXPECT_TRUE(list.devices.empty());
  EXPECT_EQ(list.notes.at(1), "mlx5_0: no active port passing NCCL_IB_HCA");
}

TEST_F(NetDevicesList, DownPortsAreSkipped) {
  const DeviceList list = build(kSysfs + "/roce-h100", "");
  EXPECT_EQ(list.source, DeviceSource::Rdma);
  EXPECT_EQ(list.devices.size(), 7u);  // mlx5_11 is down
  for (const NetDevice& device : list.devices) EXPECT_NE(device.name, "mlx5_11");
}

class NetDevicesInterfaces : public NetDevicesList {
 protected:
  void SetUp() override {
    NetDevicesList::SetUp();
    tree.addInterface("docker0", "", "up", "-1");
    tree.addInterface("enp1s0", "0000:01:00.0", "up", "25000");
    tree.addInterface("enp2s0", "0000:02:00.0", "up", "-1");
    tree.addInterface("enp3s0", "0000:03:00.0", "down", "25000");
    tree.addInterface("lo", "", "unknown", "");
    tree.addInterface("virbr0", "", "up", "");
    tree.write("addresses",
               "docker0 172.17.0.1\nenp1s0 10.1.0.5\nenp2s0 10.2.0.5\nenp3s0 10.3.0.5\nlo 127.0.0.1\n"
               "virbr0 192.168.122.1\n");
  }
  DeviceList buildTree() { return build(tree.root(), tree.root() + "/addresses"); }
  testing::FakeSysfs tree;
};

TEST_F(NetDevicesInterfaces, NcclsDefaultSkipsDockerLoVirbr) {
  const DeviceList list = buildTree();
  EXPECT_EQ(list.source, DeviceSource::Interfaces);
  ASSERT_EQ(names(list), "enp1s0,enp2s0");  // enp3s0 is down
  EXPECT_EQ(list.devices[0].ipv4, "10.1.0.5");
  EXPECT_EQ(list.devices[0].speedMbps, 25000);
  EXPECT_EQ(list.devices[1].speedMbps, kUnknownSpeedMbps);
  EXPECT_EQ(list.devices[0].port, 0);
  EXPECT_EQ(list.devices[1].guid, 1u);
  EXPECT_TRUE(list.devices[0].pciPath.ends_with("/sys/devices/pci0000:00/0000:01:00.0")) << list.devices[0].pciPath;
}

TEST_F(NetDevicesInterfaces, IbInterfacesFirst) {
  tree.addInterface("ib0", "0000:04:00.0", "up", "100000");
  tree.write("addresses", "ib0 10.4.0.5\nenp1s0 10.1.0.5\n");
  EXPECT_EQ(names(buildTree()), "ib0");
}

TEST_F(NetDevicesInterfaces, DockerThenLoWhenNothingElse) {
  tree.write("addresses", "docker0 172.17.0.1\nlo 127.0.0.1\n");
  EXPECT_EQ(names(buildTree()), "docker0");
  tree.write("addresses", "lo 127.0.0.1\n");
  const DeviceList list = buildTree();
  ASSERT_EQ(names(list), "lo");
  EXPECT_EQ(list.devices[0].pciPath, "");  // virtual: NULL to NCCL
}

TEST_F(NetDevicesInterfaces, NcclSocketIfname) {
  testing::fakeEnvVars()["NCCL_SOCKET_IFNAME"] = "=enp2s0,lo";
  EXPECT_EQ(names(buildTree()), "enp2s0,lo");
  testing::fakeEnvVars()["NCCL_SOCKET_IFNAME"] = "^enp1";
  EXPECT_EQ(names(buildTree()), "docker0,enp2s0,lo,virbr0");
  testing::fakeEnvVars()["NCCL_SOCKET_IFNAME"] = "e";  // one character: ignored, as NCCL does
  EXPECT_EQ(names(buildTree()), "enp1s0,enp2s0");
}

TEST(NetDevicesAddresses, ParsesTheFixture) {
  const AddressTable table = readAddressFile(kData + "/gb300-1plane.addresses");
  EXPECT_EQ(table.size(), 5u);
  EXPECT_EQ(table.at("eth0"), "192.168.10.11");  // the first wins
}

TEST(NetDevicesAddresses, ErrorsNameFileLineColumn) {
  const auto message = [](const std::string& text) {
    try {
      parseAddressFile(text, "a.txt");
    } catch (const AddressFileError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("# c\n\neth0 10.0.0.1\n  eth1\n"), "a.txt:4:7: expected '<interface> <IPv4 address>'");
  EXPECT_EQ(message("eth0 10.0.0.256\n"), "a.txt:1:6: '10.0.0.256' is not a dotted IPv4 address");
  EXPECT_EQ(message("eth0 10.0.0.1 x\n"), "a.txt:1:15: unexpected text after the address");
  EXPECT_EQ(message("interface-name-far-too-long 10.0.0.1\n"),
            "a.txt:1:1: interface name 'interface-name-far-too-long' is too long");
  EXPECT_THROW(readAddressFile("/nonexistent/addresses"), AddressFileError);
}

TEST(NetDevicesAddresses, LiveReadDoesNotThrow) {
  const AddressTable table = readLiveAddresses();
  for (const auto& [name, address] : table) EXPECT_FALSE(address.empty()) << name;
}

}  // namespace
}  // namespace railtune::net
