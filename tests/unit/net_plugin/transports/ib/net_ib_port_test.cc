// The verbs transport's port decisions, held to NCCL's (src/transport/net_ib/init.cc and connect.cc@v2.30.7):
// speed from width and lane codes, the smaller MTU, and the GID index of IB and RoCE ports.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <cstring>
#include <map>

#include "net_plugin/transports/ib/ib_port.h"
#include "tests/support/fake_env.h"

namespace railtune::net::ib {
namespace {

IbvPortAttr portWith(uint8_t width, uint8_t speed, uint32_t speedEx = 0) {
  IbvPortAttr attr{};
  attr.activeWidth = width;
  attr.activeSpeed = speed;
  attr.activeSpeedEx = speedEx;
  return attr;
}

TEST(NetIbPort, SpeedIsLaneTimesWidthAsNccl) {
  EXPECT_EQ(portSpeedMbps(portWith(2, 64)), 200000);         // HDR 4x
  EXPECT_EQ(portSpeedMbps(portWith(2, 128)), 400000);        // NDR 4x
  EXPECT_EQ(portSpeedMbps(portWith(2, 0, 256)), 800000);     // XDR 4x, only in active_speed_ex
  EXPECT_EQ(portSpeedMbps(portWith(16, 128)), 200000);       // NDR 2x (width bit 4)
  EXPECT_EQ(portSpeedMbps(portWith(1, 32)), 25000);          // EDR 1x
  EXPECT_EQ(portSpeedMbps(portWith(2, 0)), 0 + 4 * 200000);  // no speed bit: NCCL takes the last entry (XDR)
  EXPECT_EQ(portSpeedMbps(portWith(0, 0)), 0);
}

TEST(NetIbPort, PathMtuIsTheSmaller) {
  EXPECT_EQ(pathMtu(kIbvMtu4096, kIbvMtu1024), kIbvMtu1024);
  EXPECT_EQ(pathMtu(kIbvMtu2048, kIbvMtu4096), kIbvMtu2048);
  EXPECT_EQ(mtuBytes(kIbvMtu4096), 4096);
  EXPECT_EQ(mtuBytes(kIbvMtu256), 256);
  EXPECT_EQ(mtuBytes(9), 0);
}

IbvGid gidOf(const char* text) {
  IbvGid gid{};
  EXPECT_EQ(inet_pton(AF_INET6, text, gid.raw), 1) << text;
  return gid;
}

struct FakePort {
  std::map<int, IbvGid> gids;
  std::map<int, int> types;
  GidReader reader() const {
    return [this](int index, IbvGid& gid) {
      const auto it = gids.find(index);
      if (it == gids.end()) return false;
      gid = it->second;
      return true;
    };
  }
  GidTypeReader typeReader() const {
    return [this](int index) -> std::optional<int> {
      const auto it = types.find(index);
      if (it == types.end()) return std::nullopt;
      return it->second;
    };
  }
};

FakePort roceTable() {
  FakePort port;
  port.gids = {{0, gidOf("fe80::1")},         {1, gidOf("fe80::1")},     {2, gidOf("::ffff:10.1.2.3")},
               {3, gidOf("::ffff:10.1.2.3")}, {4, gidOf("2001:db8::5")}, {5, gidOf("2001:db8::5")}};
  port.types = {{0, 1}, {1, 2}, {2, 1}, {3, 2}, {4, 1}, {5, 2}};
  return port;
}

IbvPortAttr roceAttr(int entries) {
  IbvPortAttr attr{};
  attr.linkLayer = kIbvLinkLayerEthernet;
  attr.gidTblLen = entries;
  return attr;
}

TEST(NetIbPort, RoceDefaultsToTheIpv4RoceV2Gid) {
  const FakePort port = roceTable();
  const GidChoice choice = chooseGid(roceAttr(6), GidOptions{}, port.reader(), port.typeReader());
  EXPECT_EQ(choice.index, 3);
  EXPECT_EQ(choice.why, "RoCE v2 IPv4 GID 3");
  EXPECT_EQ(gidFamily(choice.gid), AF_INET);
}

TEST(NetIbPort, RoceHonoursFamilyVersionRangeAndIndex) {
  const FakePort port = roceTable();
  GidOptions v6;
  v6.family = AF_INET6;
  EXPECT_EQ(chooseGid(roceAttr(6), v6, port.reader(), port.typeReader()).index, 5);
  GidOptions v1;
  v1.roceVersion = 1;
  EXPECT_EQ(chooseGid(roceAttr(6), v1, port.reader(), port.typeReader()).index, 2);
  GidOptions outside;
  outside.range = "192.168.0.0/16";  // no IPv4 GID inside: the link-local GID 0 stays
  EXPECT_EQ(chooseGid(roceAttr(6), outside, port.reader(), port.typeReader()).index, 0);
  GidOptions inside;
  inside.range = "10.1.0.0/16";
  EXPECT_EQ(chooseGid(roceAttr(6), inside, port.reader(), port.typeReader()).index, 3);
  GidOptions forced;
  forced.gidIndex = 4;
  const GidChoice choice = chooseGid(roceAttr(6), forced, port.reader(), port.typeReader());
  EXPECT_EQ(choice.index, 4);
  EXPECT_NE(choice.why.find("NCCL_IB_GID_INDEX"), std::string::npos);
}

TEST(NetIbPort, RoceSkipsAGidTypeHiddenInAContainer) {
  FakePort port = roceTable();
  port.types.erase(3);  // gid_attrs/types/3 unreadable
  EXPECT_EQ(chooseGid(roceAttr(6), GidOptions{}, port.reader(), port.typeReader()).index, 2);
}

TEST(NetIbPort, InfinibandUsesTheRoutableFlidGidWhenItHasOne) {
  FakePort port;
  port.gids = {{0, gidOf("fe80::b83f:d203:a1:b220")}, {1, gidOf("fe80:0:0:0:b83f:d203:a1:b220")}};
  IbvPortAttr attr{};
  attr.linkLayer = kIbvLinkLayerInfiniband;
  attr.gidTblLen = 2;
  EXPECT_EQ(chooseGid(attr, GidOptions{}, port.reader(), port.typeReader()).index, 0);
  port.gids[1] = gidOf("fe80:0:0012:0:b83f:d203:a1:b220");  // FLID 0x0012 in bytes 4-5
  const GidChoice choice = chooseGid(attr, GidOptions{}, port.reader(), port.typeReader());
  EXPECT_EQ(choice.index, 1);
  EXPECT_EQ(gidText(choice.gid), "fe80:0000:0012:0000:b83f:d203:00a1:b220");
}

TEST(NetIbPort, AnUnreadableChosenGidIsAnError) {
  FakePort port;
  IbvPortAttr attr{};
  attr.linkLayer = kIbvLinkLayerInfiniband;
  attr.gidTblLen = 1;
  EXPECT_THROW(chooseGid(attr, GidOptions{}, port.reader(), port.typeReader()), std::runtime_error);
}

TEST(NetIbPort, GidOptionsComeFromTheOneReadingOfNcclsVariables) {
  railtune::testing::fakeEnvVars() = {{"NCCL_IB_GID_INDEX", "3"},
                                      {"NCCL_IB_ADDR_FAMILY", "AF_INET6"},
                                      {"NCCL_IB_ADDR_RANGE", "fd00::/8"},
                                      {"NCCL_IB_ROCE_VERSION_NUM", "1"},
                                      {"NCCL_IB_ROUTABLE_FLID_GID_INDEX", "2"}};
  const ncclib::NcclIbEnv env = ncclib::readNcclIbEnv(railtune::testing::fakeEnv);
  railtune::testing::fakeEnvVars().clear();
  const GidOptions set = gidOptionsFrom(env, 3);  // the policy's index holds NCCL_IB_GID_INDEX when set
  EXPECT_EQ(set.gidIndex, 3);
  EXPECT_EQ(set.family, AF_INET6);
  EXPECT_EQ(set.range, "fd00::/8");
  EXPECT_EQ(set.roceVersion, 1);
  EXPECT_EQ(set.routableFlidGidIndex, 2);
  const GidOptions unset = gidOptionsFrom(ncclib::readNcclIbEnv(nullptr), -1);
  EXPECT_EQ(unset.gidIndex, -1);
  EXPECT_EQ(unset.family, AF_INET);
  EXPECT_EQ(unset.range, "");
  EXPECT_EQ(unset.roceVersion, 2);
  EXPECT_EQ(unset.routableFlidGidIndex, 1);
}

TEST(NetIbPort, AnOutOfRangeRoceVersionFallsBackToNcclsDefaultWithAWarning) {
  railtune::testing::fakeEnvVars() = {{"NCCL_IB_ROCE_VERSION_NUM", "3"}};
  const ncclib::NcclIbEnv env = ncclib::readNcclIbEnv(railtune::testing::fakeEnv);
  railtune::testing::fakeEnvVars().clear();
  ASSERT_EQ(env.warnings.size(), 1u);
  EXPECT_EQ(env.warnings[0].rfind("NCCL_IB_ROCE_VERSION_NUM='3' is outside 1..2", 0), 0u);
  EXPECT_EQ(gidOptionsFrom(env, -1).roceVersion, 2);
}

}  // namespace
}  // namespace railtune::net::ib
