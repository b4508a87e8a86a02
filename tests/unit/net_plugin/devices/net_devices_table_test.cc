// The device table: one virtual device per physical one, properties as the engine hands them to NCCL,
// fused devices appended, strings that stay valid.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "net_plugin/devices/device_table.h"
#include "net_plugin/devices/vdevice.h"

namespace railtune::net {
namespace {

std::vector<NetDevice> twoHcas() {
  NetDevice a;
  a.name = "mlx5_0";
  a.netdev = "ibp3s0";
  a.pciPath = "/sys/devices/pci0000:00/0000:03:00.0";
  a.linkLayer = "InfiniBand";
  a.guid = 0x1234;
  a.port = 1;
  a.rail = 2;
  a.plane = 0;
  a.speedMbps = 400000;
  NetDevice b = a;
  b.name = "mlx5_1";
  b.plane = 1;
  NetDevice c;  // a plain interface: no PCI path
  c.name = "lo";
  c.port = 0;
  return {a, b, c};
}

TEST(NetDevicesTable, PropertiesOfPhysicalDevices) {
  TransportLimits limits;
  limits.maxComms = 77;
  limits.maxP2pBytes = 1u << 20;
  const DeviceTable table(twoHcas(), limits);
  ASSERT_EQ(table.count(), 3);
  const DeviceProperties props = table.properties(1);
  EXPECT_STREQ(props.name, "mlx5_1");
  EXPECT_STREQ(props.pciPath, "/sys/devices/pci0000:00/0000:03:00.0");
  EXPECT_EQ(props.guid, 0x1234u);
  EXPECT_EQ(props.speedMbps, 400000);
  EXPECT_EQ(props.port, 1);
  EXPECT_EQ(props.railId, 2);
  EXPECT_EQ(props.planeId, 1);
  EXPECT_EQ(props.maxComms, 77);
  EXPECT_EQ(props.maxRecvs, kMaxRecvs);
  EXPECT_EQ(props.maxP2pBytes, 1u << 20);
  EXPECT_EQ(props.pointerSupport, static_cast<unsigned>(kPointerHost));
  EXPECT_EQ(props.nPhysicalDevices, 1);
  EXPECT_EQ(props.physicalDevices[0], 1);
  EXPECT_EQ(table.properties(2).pciPath, nullptr);  // virtual NIC
}

TEST(NetDevicesTable, UnknownIndexIsAnInvalidArgument) {
  const DeviceTable table(twoHcas(), TransportLimits{});
  try {
    table.properties(3);
    FAIL() << "no error";
  } catch (const NetError& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_EQ(error.device(), 3);
    EXPECT_STREQ(error.what(), "device 3 does not exist (there are 3)");
  }
  EXPECT_THROW(table.properties(-1), NetError);
}

TEST(NetDevicesTable, FusedDevicesAreAppendedAndStringsStayValid) {
  DeviceTable table(twoHcas(), TransportLimits{});
  const char* firstName = table.properties(0).name;
  const std::vector<int> members = {0, 1};
  EXPECT_EQ(table.makeVirtual(members, 8), 3);
  for (int i = 0; i < 40; ++i) table.makeVirtual(members, 8);  // grow the table
  EXPECT_STREQ(firstName, "mlx5_0");
  const DeviceProperties fused = table.properties(3);
  EXPECT_STREQ(fused.name, "mlx5_0+mlx5_1");
  EXPECT_EQ(fused.speedMbps, 800000);
  EXPECT_EQ(fused.railId, 2);
  EXPECT_EQ(fused.planeId, kPlaneVirtualBit | 0b11);
  EXPECT_EQ(fused.nPhysicalDevices, 2);
  EXPECT_EQ(fused.physicalDevices[1], 1);
  EXPECT_EQ(table.count(), 44);
}

TEST(NetDevicesTable, RefusedFusionLeavesTheTableAsItWas) {
  DeviceTable table(twoHcas(), TransportLimits{});
  const std::vector<int> mixed = {0, 2};  // InfiniBand and a plain interface
  EXPECT_THROW(table.makeVirtual(mixed, 8), VirtualDeviceError);
  EXPECT_EQ(table.count(), 3);
}

TEST(NetDevicesTable, StopsAtTheVirtualDeviceLimit) {
  DeviceTable table(twoHcas(), TransportLimits{});
  const std::vector<int> one = {0};
  while (table.count() < static_cast<int>(kMaxVirtualDeviceTotal)) table.makeVirtual(one, 8);
  EXPECT_THROW(table.makeVirtual(one, 8), VirtualDeviceError);
}

}  // namespace
}  // namespace railtune::net
