// NIC fusion: merged properties and every refusal.
#include <gtest/gtest.h>

#include <vector>

#include "net_plugin/devices/vdevice.h"

namespace railtune::net {
namespace {

NetDevice device(const char* name, int rail, int plane, int speed, const char* linkLayer = "InfiniBand") {
  NetDevice d;
  d.name = name;
  d.netdev = std::string("net_") + name;
  d.pciPath = std::string("/sys/devices/") + name;
  d.linkLayer = linkLayer;
  d.rail = rail;
  d.plane = plane;
  d.speedMbps = speed;
  return d;
}

const std::vector<NetDevice> kTwoPlanes = {device("mlx5_0", 0, 0, 400000), device("mlx5_1", 0, 1, 400000),
                                           device("mlx5_2", 1, 0, 400000), device("mlx5_3", 1, 1, 400000)};

VirtualDevice make(const std::vector<int>& members, size_t existing = 0, size_t maxMembers = 8) {
  return makeVirtualDevice(kTwoPlanes, members, existing, maxMembers);
}

TEST(NetDevicesVDevice, OneMemberIsTheDeviceItself) {
  const VirtualDevice v = make({2});
  EXPECT_EQ(v.merged.name, "mlx5_2");
  EXPECT_EQ(v.merged.rail, 1);
  EXPECT_EQ(v.merged.plane, 0);
  EXPECT_EQ(v.members, std::vector<int>{2});
}

TEST(NetDevicesVDevice, FusesTwoPlanesOfOneRail) {
  const VirtualDevice v = make({1, 0});
  EXPECT_EQ(v.merged.name, "mlx5_1+mlx5_0");
  EXPECT_EQ(v.merged.speedMbps, 800000);
  EXPECT_EQ(v.merged.rail, 0);
  EXPECT_EQ(v.merged.plane, kPlaneVirtualBit | 0b11);
  EXPECT_EQ(v.merged.netdev, "net_mlx5_1");  // the first member's
  EXPECT_EQ(v.merged.pciPath, "/sys/devices/mlx5_1");
}

TEST(NetDevicesVDevice, AcrossRailsHasNoRail) {
  const VirtualDevice v = make({0, 2});
  EXPECT_EQ(v.merged.rail, -1);
  EXPECT_EQ(v.merged.plane, kPlaneVirtualBit | 0b01);  // both on plane index 0
}

TEST(NetDevicesVDevice, UnknownRailStaysUnknown) {
  const std::vector<NetDevice> devices = {device("a", -1, -1, 100), device("b", -1, -1, 200)};
  const VirtualDevice v = makeVirtualDevice(devices, std::vector<int>{0, 1}, 0, 8);
  EXPECT_EQ(v.merged.rail, -1);
  EXPECT_EQ(v.merged.speedMbps, 300);
  EXPECT_EQ(v.merged.plane, kPlaneVirtualBit | 1);
}

TEST(NetDevicesVDevice, SpeedSaturates) {
  const std::vector<NetDevice> devices = {device("a", 0, 0, 2000000000), device("b", 0, 1, 2000000000)};
  EXPECT_EQ(makeVirtualDevice(devices, std::vector<int>{0, 1}, 0, 8).merged.speedMbps, 2147483647);
}

TEST(NetDevicesVDevice, Refusals) {
  EXPECT_THROW(make({}), VirtualDeviceError);
  EXPECT_THROW(make({0, 4}), VirtualDeviceError);
  EXPECT_THROW(make({-1}), VirtualDeviceError);
  EXPECT_THROW(make({0, 0}), VirtualDeviceError);
  EXPECT_THROW(make({0}, kMaxVirtualDeviceTotal), VirtualDeviceError);
  EXPECT_NO_THROW(make({0}, kMaxVirtualDeviceTotal - 1));
  EXPECT_THROW(make({0, 1, 2}, 0, 2), VirtualDeviceError);  // net v9..v11 take 4, here 2 for the test
  const std::vector<NetDevice> mixed = {device("a", 0, 0, 1), device("b", 0, 1, 1, "Ethernet")};
  try {
    makeVirtualDevice(mixed, std::vector<int>{0, 1}, 0, 8);
    FAIL() << "no error";
  } catch (const VirtualDeviceError& error) {
    EXPECT_STREQ(error.what(), "makeVDevice: b and a have different link layers");
  }
}

TEST(NetDevicesVDevice, AtMostEightMembersAndFourteenPlanes) {
  std::vector<NetDevice> many;
  for (int i = 0; i < 16; ++i) many.push_back(device(("d" + std::to_string(i)).c_str(), 0, i, 1));
  std::vector<int> nine = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_THROW(makeVirtualDevice(many, nine, 0, 16), VirtualDeviceError);
  EXPECT_NO_THROW(makeVirtualDevice(many, std::vector<int>{0, 13}, 0, 8));
  EXPECT_THROW(makeVirtualDevice(many, std::vector<int>{0, 14}, 0, 8), VirtualDeviceError);
}

}  // namespace
}  // namespace railtune::net
