// The model's lookups and canonical bus ids (fabric/model.h).
#include <gtest/gtest.h>

#include "fabric/expand.h"
#include "fabric/model.h"

namespace railtune::fabric {
namespace {

TEST(BusId, CanonicalFormsAreLowercaseWithFourDigitDomain) {
  EXPECT_EQ(normalizeBusId("0000:1B:00.0"), "0000:1b:00.0");
  EXPECT_EQ(normalizeBusId("00000008:01:00.1"), "0008:01:00.1");  // NVML's 8-digit domain
  EXPECT_EQ(normalizeBusId("1b:00.0"), "0000:1b:00.0");
  EXPECT_EQ(normalizeBusId("19:01:00.0"), "0019:01:00.0");
}

TEST(BusId, RejectsWhatIsNotOne) {
  for (const char* bad : {"", "43:00", "0000:1b:00", "0000:1b:00.8", "0000:1b:20.0", "0000:1g:00.0",
                          "1:0000:1b:00.0:", "00010000:01:00.0", "0000:1b:000.0", "x0000:1b:00.0"})
    EXPECT_EQ(normalizeBusId(bad), std::nullopt) << bad;
}

TEST(SourceLoc, PrintsWhatIsKnown) {
  EXPECT_EQ((SourceLoc{"f.yaml", 3, 7}).str(), "f.yaml:3:7");
  EXPECT_EQ((SourceLoc{"f.yaml", 3, 0}).str(), "f.yaml:3");
  EXPECT_EQ((SourceLoc{"f.yaml", 0, 0}).str(), "f.yaml");
  EXPECT_EQ(SourceLoc{}.str(), "(built-in)");
}

TEST(Lookups, FindHostsDomainsGroupsAndLeaves) {
  ClusterSpec spec;
  spec.domains = 2;
  spec.planes = 2;
  const Fabric f = expand(spec);
  ASSERT_NE(f.findHost("rack01-tray17"), nullptr);
  EXPECT_EQ(f.findHost("rack01-tray17")->domain, "rack01");
  EXPECT_EQ(f.findHost("rack02-tray00"), nullptr);
  ASSERT_NE(f.findDomain("rack00"), nullptr);
  EXPECT_EQ(f.findDomain("rack00")->railGroup, "rg0");
  ASSERT_NE(f.findRailGroup("rg0"), nullptr);
  EXPECT_EQ(f.findRailGroup("rg1"), nullptr);
  const Switch* leaf = f.leafFor("rg0", 3, 1);
  ASSERT_NE(leaf, nullptr);
  EXPECT_EQ(leaf->name, "rg0-leaf-r3-p1");
  EXPECT_EQ(f.leafFor("rg0", 3, -1), nullptr);
  EXPECT_EQ(f.leafFor("rg0", 4, 0), nullptr);
}

}  // namespace
}  // namespace railtune::fabric
