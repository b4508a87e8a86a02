// mergeFabrics (fabric/merge.h): per-host parts, as `topo discover` writes them, joined into one
// cluster; every conflict is an error at the disagreeing part's position.
#include <gtest/gtest.h>

#include "fabric/expand.h"
#include "fabric/merge.h"
#include "fabric/validate.h"

namespace railtune::fabric {
namespace {

// A one-host part like discovery's: domain `domain`, host `host`, rail group rg0 with placeholder leaves.
Fabric part(const std::string& domain, const std::string& host, int rails = 4) {
  ClusterSpec spec;
  spec.profile = "gb300-nvl72";
  spec.trays = 1;
  spec.rails = rails;
  spec.domainPattern = domain;
  spec.hostPattern = host;
  Fabric f = expand(spec);
  f.loc.file = host + ".yaml";
  f.domains[0].loc.file = host + ".yaml";
  f.hosts[0].loc.file = host + ".yaml";
  return f;
}

std::string messages(const Diagnostics& d) {
  std::string all;
  for (const Diagnostic& x : d.all()) all += x.str() + "\n";
  return all;
}

TEST(MergeFabrics, HostsOfOneDomainBecomeItsTraysInOrder) {
  Diagnostics d;
  const Fabric merged = mergeFabrics({part("nvl-a", "a-t0"), part("nvl-a", "a-t1"), part("nvl-b", "b-t0")}, "prod", d);
  EXPECT_FALSE(d.hasErrors()) << messages(d);
  EXPECT_EQ(merged.name, "prod");
  ASSERT_EQ(merged.domains.size(), 2u);
  EXPECT_EQ(merged.domains[0].hosts, (std::vector<std::string>{"a-t0", "a-t1"}));
  ASSERT_EQ(merged.hosts.size(), 3u);
  EXPECT_EQ(merged.hosts[1].tray, 1);
  EXPECT_EQ(merged.hosts[2].domain, "nvl-b");
  ASSERT_EQ(merged.network.railGroups.size(), 1u);
  EXPECT_EQ(merged.network.railGroups[0].domains, (std::vector<std::string>{"nvl-a", "nvl-b"}));
  EXPECT_EQ(merged.network.switches.size(), 5u);  // the parts' identical leaves and spine, once
  Diagnostics v;
  validate(merged, v);
  EXPECT_FALSE(v.hasErrors()) << messages(v);
}

TEST(MergeFabrics, ConflictsAreErrorsAtTheSecondPart) {
  Fabric other = part("nvl-a", "a-t1");
  other.domains[0].cliqueId = "x.2";
  Fabric first = part("nvl-a", "a-t0");
  first.domains[0].cliqueId = "x.1";
  Diagnostics d;
  mergeFabrics({first, other, part("nvl-c", "c-t0", 2), part("nvl-a", "a-t0")}, "", d);
  const std::string text = messages(d);
  EXPECT_NE(text.find("a-t1.yaml: error: domain nvl-a: clique x.2 differs from x.1"), std::string::npos) << text;
  EXPECT_NE(text.find("c-t0.yaml: error: network: 2 rails x 1 planes InfiniBand, but the first part has 4 x 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("a-t0.yaml: error: host 'a-t0' is also declared at a-t0.yaml"), std::string::npos) << text;
}

TEST(MergeFabrics, SwitchPolicyComesFromThePartThatStatesIt) {
  Fabric declared = part("nvl-a", "a-t1");
  declared.network.adaptiveRouting = true;
  declared.network.trafficClass = 106;
  Diagnostics d;
  const Fabric merged = mergeFabrics({part("nvl-a", "a-t0"), declared}, "", d);
  EXPECT_FALSE(d.hasErrors()) << messages(d);
  EXPECT_EQ(merged.network.adaptiveRouting, std::optional<bool>(true));
  EXPECT_EQ(merged.network.trafficClass, 106);
  EXPECT_EQ(merged.network.serviceLevel, -1);

  Fabric other = part("nvl-b", "b-t0");
  other.network.adaptiveRouting = false;
  other.network.trafficClass = 41;
  Diagnostics conflicts;
  mergeFabrics({declared, other}, "", conflicts);
  const std::string text = messages(conflicts);
  EXPECT_NE(text.find("b-t0.yaml: error: network: adaptiveRouting false, but an earlier part says true"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("b-t0.yaml: error: network: trafficClass 41, but an earlier part says 106"), std::string::npos)
      << text;
}

TEST(MergeFabrics, DifferingSwitchIsAnError) {
  Fabric second = part("nvl-b", "b-t0");
  second.network.switches[0].speedGbps = 400;
  second.network.switches[0].loc.file = "b.yaml";
  Diagnostics d;
  mergeFabrics({part("nvl-a", "a-t0"), second}, "", d);
  EXPECT_NE(messages(d).find("b.yaml: error: switch rg0-leaf-r0 differs from its declaration"), std::string::npos)
      << messages(d);
}

}  // namespace
}  // namespace railtune::fabric
