// The sysfs text parsers, one attribute shape each, on the values real kernels print and on the
// near misses a truncated or foreign file would hold.
#include <gtest/gtest.h>

#include "fabric/discover/sysfs_source.h"

namespace rd = railtune::fabric::discover;

TEST(SysfsParse, RateOfEveryGeneration) {
  EXPECT_EQ(rd::parseRateMbps("800 Gb/sec (4X XDR)"), 800000);
  EXPECT_EQ(rd::parseRateMbps("400 Gb/sec (4X NDR)\n"), 400000);
  EXPECT_EQ(rd::parseRateMbps("200 Gb/sec (2X HDR)"), 200000);
  EXPECT_EQ(rd::parseRateMbps("100 Gb/sec (4X EDR)"), 100000);
  EXPECT_EQ(rd::parseRateMbps("25 Gb/sec (1X EDR)"), 25000);
  EXPECT_EQ(rd::parseRateMbps("2.5 Gb/sec (1X SDR)"), 2500);
  EXPECT_EQ(rd::parseRateMbps("14.0625 Gb/sec (1X FDR)"), 14062);
  EXPECT_EQ(rd::parseRateMbps("10 Gb/sec"), 10000);
}

TEST(SysfsParse, RateRejectsOtherShapes) {
  for (const char* bad :
       {"", "400", "400 Gb/s (4X NDR)", "400 Mb/sec (4X NDR)", "0 Gb/sec (4X NDR)", "-400 Gb/sec", ".5 Gb/sec (1X SDR)",
        "2. Gb/sec", "400 Gb/sec (4X NDR", "400 Gb/secs", "9999999 Gb/sec", "400 Gb/sec 4X NDR"}) {
    EXPECT_FALSE(rd::parseRateMbps(bad).has_value()) << bad;
  }
}

TEST(SysfsParse, GuidRoundTrip) {
  EXPECT_EQ(rd::parseGuid("b83f:d203:00a1:b2c3"), 0xb83fd20300a1b2c3ULL);
  EXPECT_EQ(rd::parseGuid("B83F:D203:00A1:B2C3\n"), 0xb83fd20300a1b2c3ULL);
  EXPECT_EQ(rd::formatGuid(0xb83fd20300a1b2c3ULL), "b83f:d203:00a1:b2c3");
  EXPECT_EQ(rd::formatGuid(0), "0000:0000:0000:0000");
  for (const char* bad : {"", "b83fd20300a1b2c3", "b83f:d203:00a1", "b83f:d203:00a1:b2c", "b83f:d203:00a1:b2cg",
                          "b83f-d203-00a1-b2c3", "b83f:d203:00a1:b2c3:0000"}) {
    EXPECT_FALSE(rd::parseGuid(bad).has_value()) << bad;
  }
}

TEST(SysfsParse, GidAndItsIpv4) {
  const auto linkLocal = rd::parseGid("fe80:0000:0000:0000:b83f:d203:00a1:b2c3");
  ASSERT_TRUE(linkLocal);
  EXPECT_EQ(rd::formatGid(*linkLocal), "fe80:0000:0000:0000:b83f:d203:00a1:b2c3");
  EXPECT_FALSE(rd::isZeroGid(*linkLocal));
  EXPECT_FALSE(rd::gidIpv4(*linkLocal).has_value());

  const auto mapped = rd::parseGid("0000:0000:0000:0000:0000:FFFF:0a00:030b\n");
  ASSERT_TRUE(mapped);
  EXPECT_EQ(rd::gidIpv4(*mapped), "10.0.3.11");

  const auto zero = rd::parseGid("0000:0000:0000:0000:0000:0000:0000:0000");
  ASSERT_TRUE(zero);
  EXPECT_TRUE(rd::isZeroGid(*zero));
  EXPECT_FALSE(rd::parseGid("fe80::b83f:d203:a1:b2c3").has_value());  // sysfs never compresses
  EXPECT_FALSE(rd::parseGid("fe80:0000:0000:0000:b83f:d203:00a1").has_value());
}

TEST(SysfsParse, NumaNode) {
  EXPECT_EQ(rd::parseNumaNode("0\n"), 0);
  EXPECT_EQ(rd::parseNumaNode("1"), 1);
  EXPECT_EQ(rd::parseNumaNode("-1"), -1);
  for (const char* bad : {"", "-2", "x", "1.0", "65536", "0x1"}) EXPECT_FALSE(rd::parseNumaNode(bad)) << bad;
}

TEST(SysfsParse, HexIds) {
  EXPECT_EQ(rd::parseHexId("0x15b3\n"), 0x15b3);
  EXPECT_EQ(rd::parseHexId("0x1023"), 0x1023);
  EXPECT_EQ(rd::parseHexId("0XA2DC"), 0xa2dc);
  for (const char* bad : {"", "0x", "15b3", "0x15b3f", "0x15g3", "x15b3"}) EXPECT_FALSE(rd::parseHexId(bad)) << bad;
}

TEST(SysfsParse, PortState) {
  EXPECT_EQ(rd::parsePortState("4: ACTIVE\n"), "ACTIVE");
  EXPECT_EQ(rd::parsePortState("1: DOWN"), "DOWN");
  EXPECT_EQ(rd::parsePortState("5: ACTIVE_DEFER"), "ACTIVE_DEFER");
  for (const char* bad : {"", "ACTIVE", "4:ACTIVE", "4: ", "x: ACTIVE", "4: active"}) {
    EXPECT_FALSE(rd::parsePortState(bad)) << bad;
  }
}

TEST(SysfsParse, IntegersAndNetSpeed) {
  EXPECT_EQ(rd::parseSysfsInt("9000\n"), 9000);
  EXPECT_EQ(rd::parseSysfsInt("-1"), -1);
  EXPECT_FALSE(rd::parseSysfsInt("2147483648"));
  EXPECT_FALSE(rd::parseSysfsInt("-"));
  EXPECT_FALSE(rd::parseSysfsInt("12a"));
  EXPECT_EQ(rd::netSpeedMbps({0, "400000"}), 400000);
  EXPECT_EQ(rd::netSpeedMbps({0, "-1"}), -1);
  EXPECT_EQ(rd::netSpeedMbps({EINVAL, ""}), -1);  // a down link: the read fails
  EXPECT_EQ(rd::netSpeedMbps({0, "fast"}), -1);
}

TEST(SysfsParse, PciLocationOfDevicePaths) {
  const rd::PciLocation nic = rd::pciLocationOf("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:03:00.0");
  EXPECT_EQ(nic.busId, "0000:03:00.0");
  EXPECT_EQ(nic.upstream, (std::vector<std::string>{"pci0000:00", "0000:00:01.0", "0000:01:00.0"}));

  const rd::PciLocation virtio = rd::pciLocationOf("/sys/devices/pci0000:00/0000:00:03.0/virtio2");
  EXPECT_EQ(virtio.busId, "0000:00:03.0");
  EXPECT_EQ(virtio.upstream, (std::vector<std::string>{"pci0000:00"}));

  EXPECT_EQ(rd::pciLocationOf("/sys/devices/virtual/net/docker0").busId, "");
  EXPECT_EQ(rd::pciLocationOf("/sys/devices/pci0000:00").busId, "");
  EXPECT_EQ(rd::pciLocationOf("").busId, "");
}
