// The attribute parsers of the hwloc reader: bitmaps, pci_type, osdev_type in both hwloc encodings.
#include <gtest/gtest.h>

#include "fabric/discover/hwloc_source.h"

namespace railtune::fabric::discover {
namespace {

TEST(HwlocAttrs, BitmapToCpumapPadsWordsAndKeepsTheirOrder) {
  EXPECT_EQ(hwlocBitmapToCpumap("0x00000003"), "00000003");
  EXPECT_EQ(hwlocBitmapToCpumap("0x3"), "00000003");  // hwloc leaves the first word unpadded
  EXPECT_EQ(hwlocBitmapToCpumap("0xffffffff,0x00000003"), "ffffffff,00000003");
  EXPECT_EQ(hwlocBitmapToCpumap("0xff,0xffffffff,0xffffffff"), "000000ff,ffffffff,ffffffff");
  EXPECT_EQ(hwlocBitmapToCpumap("0x0"), "00000000");
  EXPECT_EQ(hwlocBitmapToCpumap("0x00000000,0x00000001"), "00000001");  // leading zero words dropped
  EXPECT_EQ(hwlocBitmapToCpumap("0X0000ABCD"), "0000abcd");
}

TEST(HwlocAttrs, BitmapToCpumapRejectsInfiniteAndMalformedSets) {
  for (const char* bad : {"0xf...f", "0xf...f,0x00000003", "", "0x", "3", "0x123456789", "0x3,", ",0x3", "0xg",
                          "0x1,,0x2", " 0x3", "0x3 "}) {
    EXPECT_FALSE(hwlocBitmapToCpumap(bad).has_value()) << bad;
  }
  std::string huge = "0x1";
  for (size_t i = 0; i < kHwlocMaxCpusetWords; ++i) huge += ",0x0";
  EXPECT_FALSE(hwlocBitmapToCpumap(huge).has_value());
}

TEST(HwlocAttrs, BitmapFirstIsTheLowestIndexSet) {
  EXPECT_EQ(hwlocBitmapFirst("0x00000001"), 0);
  EXPECT_EQ(hwlocBitmapFirst("0x00000006"), 1);
  EXPECT_EQ(hwlocBitmapFirst("0x00000001,0x00000000"), 32);
  EXPECT_EQ(hwlocBitmapFirst("0x80000000,0x00000000,0x00000000"), 95);
  EXPECT_EQ(hwlocBitmapFirst("0x0"), -1);
  EXPECT_FALSE(hwlocBitmapFirst("nodes 0-1").has_value());
}

TEST(HwlocAttrs, PciTypeGivesClassVendorDevice) {
  const auto v100 = parsePciType("0302 [10de:1db8] [10de:131d] a1 00");
  ASSERT_TRUE(v100.has_value());
  EXPECT_EQ(v100->classId, 0x0302);
  EXPECT_EQ(v100->vendorId, 0x10de);
  EXPECT_EQ(v100->deviceId, 0x1db8);
  const auto cx8 = parsePciType("0207 [15b3:1023] [15b3:0000] 00 00");
  ASSERT_TRUE(cx8.has_value());
  EXPECT_EQ(cx8->classId, 0x0207);
  EXPECT_EQ(cx8->deviceId, 0x1023);
  for (const char* bad : {"", "0302", "0302 [10de:1db8", "0302 (10de:1db8)", "030g [10de:1db8]", "0302 [10de-1db8]",
                          "3D controller [10de:1db8]", "0302  [10de:1db8]"}) {
    EXPECT_FALSE(parsePciType(bad).has_value()) << bad;
  }
}

TEST(HwlocAttrs, OsDevTypeEnumOfHwloc2) {
  EXPECT_EQ(osDevKindFromHwloc(0, false), OsDevKind::Storage);
  EXPECT_EQ(osDevKindFromHwloc(1, false), OsDevKind::Gpu);
  EXPECT_EQ(osDevKindFromHwloc(2, false), OsDevKind::Network);
  EXPECT_EQ(osDevKindFromHwloc(3, false), OsDevKind::OpenFabrics);
  EXPECT_EQ(osDevKindFromHwloc(4, false), OsDevKind::Dma);
  EXPECT_EQ(osDevKindFromHwloc(5, false), OsDevKind::Coproc);
  EXPECT_EQ(osDevKindFromHwloc(6, false), OsDevKind::Other);
  EXPECT_EQ(osDevKindFromHwloc(-1, false), OsDevKind::Other);
}

TEST(HwlocAttrs, OsDevTypeBitmaskOfHwloc3PrefersTheSpecificKind) {
  EXPECT_EQ(osDevKindFromHwloc(12, true), OsDevKind::Gpu);          // NVML GPU: GPU|COPROC
  EXPECT_EQ(osDevKindFromHwloc(48, true), OsDevKind::OpenFabrics);  // mlx5_0: NETWORK|OPENFABRICS
  EXPECT_EQ(osDevKindFromHwloc(8, true), OsDevKind::Coproc);
  EXPECT_EQ(osDevKindFromHwloc(16, true), OsDevKind::Network);
  EXPECT_EQ(osDevKindFromHwloc(1, true), OsDevKind::Storage);
  EXPECT_EQ(osDevKindFromHwloc(64, true), OsDevKind::Dma);
  EXPECT_EQ(osDevKindFromHwloc(2, true), OsDevKind::Other);  // MEMORY alone
  EXPECT_EQ(osDevKindFromHwloc(0, true), OsDevKind::Other);
  EXPECT_EQ(osDevKindFromHwloc(-4, true), OsDevKind::Other);
}

}  // namespace
}  // namespace railtune::fabric::discover
