// Fabric consistency checks (fabric/validate.h): each check on a model broken in exactly one way.
#include <gtest/gtest.h>

#include "fabric/expand.h"
#include "fabric/validate.h"

namespace railtune::fabric {
namespace {

Fabric twoRacks() {
  ClusterSpec spec;
  spec.domains = 2;
  spec.trays = 2;
  return expand(spec);
}

// The single error `validate` finds, or a failure.
std::string onlyError(const Fabric& f) {
  Diagnostics d;
  validate(f, d);
  EXPECT_EQ(d.errorCount(), 1u);
  if (d.errorCount() != 1)
    for (const Diagnostic& x : d.all()) ADD_FAILURE() << "found: " << x.str();
  return d.all().empty() ? "" : d.all()[0].message;
}

TEST(Validate, CleanClusterHasNoFindings) {
  Diagnostics d;
  validate(twoRacks(), d);
  EXPECT_TRUE(d.all().empty());
}

TEST(Validate, DuplicateHostName) {
  Fabric f = twoRacks();
  f.hosts[3].name = f.hosts[0].name;
  EXPECT_NE(onlyError(f).find("declared twice"), std::string::npos);
}

TEST(Validate, DuplicateBusIdOnAHost) {
  Fabric f = twoRacks();
  f.hosts[1].nics[2].busId = f.hosts[1].gpus[0].busId;
  EXPECT_NE(onlyError(f).find("already used by GPU 0"), std::string::npos);
}

TEST(Validate, NicWithoutRailAndAsymmetricRails) {
  Fabric f = twoRacks();
  f.hosts[2].nics[3].rail = -1;
  Diagnostics d;
  validate(f, d);
  ASSERT_EQ(d.errorCount(), 2u);
  EXPECT_NE(d.all()[0].message.find("NIC mlx5_3 has no rail"), std::string::npos);
  EXPECT_NE(d.all()[1].message.find("rails must be the same on every host"), std::string::npos);
}

TEST(Validate, NicWithoutNearestGpuIsAWarning) {
  Fabric f = twoRacks();
  f.hosts[1].nics[0].nearestGpu = -1;
  Diagnostics d;
  validate(f, d);
  EXPECT_EQ(d.errorCount(), 0u);
  ASSERT_EQ(d.all().size(), 1u);
  EXPECT_EQ(d.all()[0].severity, Severity::Warning);
  EXPECT_NE(d.all()[0].message.find("NIC mlx5_0 has no nearestGpu"), std::string::npos);
}

TEST(Validate, PlanesDifferBetweenHosts) {
  Fabric f = twoRacks();
  f.hosts[1].nics[0].plane = 1;
  Diagnostics d;
  validate(f, d);
  ASSERT_GE(d.errorCount(), 1u);
  EXPECT_NE(d.all()[0].message.find("{0/1 1 2 3}"), std::string::npos) << d.all()[0].message;
}

TEST(Validate, FewerNvlinksThanTheProfile) {
  Fabric f = twoRacks();
  f.hosts[3].gpus[2].nvlinks = 12;
  EXPECT_NE(onlyError(f).find("GPU 2 has 12 NVLinks, profile gb300-nvl72 has 18"), std::string::npos);
}

TEST(Validate, DomainInTwoRailGroupsAndInNone) {
  Fabric f = twoRacks();
  f.network.railGroups[0].domains = {"rack00", "rack00"};
  Diagnostics d;
  validate(f, d);
  ASSERT_EQ(d.errorCount(), 2u);
  EXPECT_NE(d.all()[0].message.find("rack00 is in two rail groups"), std::string::npos);
  EXPECT_NE(d.all()[1].message.find("rack01 is in no rail group"), std::string::npos);
}

TEST(Validate, MissingLeaf) {
  Fabric f = twoRacks();
  f.network.switches.erase(f.network.switches.begin() + 2);
  EXPECT_NE(onlyError(f).find("rg0 has no leaf for rail 2"), std::string::npos);
}

TEST(Diagnostics, FormatAndCount) {
  Diagnostics d;
  d.warning({"a.yaml", 1, 2}, "w");
  EXPECT_FALSE(d.hasErrors());
  d.error({"a.yaml", 3, 4}, "e");
  EXPECT_EQ(d.errorCount(), 1u);
  EXPECT_EQ(d.all()[0].str(), "a.yaml:1:2: warning: w");
  EXPECT_EQ(d.all()[1].str(), "a.yaml:3:4: error: e");
  EXPECT_EQ(FabricError(SourceLoc{"b", 5, 6}, "m").what(), std::string("b:5:6: error: m"));
}

}  // namespace
}  // namespace railtune::fabric
