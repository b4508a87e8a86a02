#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <set>

#include "tests/topo_gen/sched_fixture.h"
#include "topo_gen/hypernodes.h"

namespace railtune::topo {
namespace {

std::vector<YAML::Node> parseAll(const std::string& text) {
  return YAML::LoadAll(text);
}

TEST(SchedHyperNodes, TiersFollowDomainsRailGroupsAndSpines) {
  const fabric::Fabric fabric = test::smallCluster(5, 3, 2);  // rg0: 2 racks, rg1: 2, rg2: 1; spines 0 and 1
  const std::vector<HyperNode> nodes = hyperNodes(fabric);
  std::map<int, int> perTier;
  for (const HyperNode& node : nodes) ++perTier[node.tier];
  EXPECT_EQ(perTier[1], 5);
  EXPECT_EQ(perTier[2], 3);
  EXPECT_EQ(perTier[3], 2);
  EXPECT_EQ(nodes[5].name, "rg-rg0");
  ASSERT_EQ(nodes[5].members.size(), 2u);
  EXPECT_EQ(nodes[5].members[1].name, "nvl-rack01");
  EXPECT_EQ(nodes[9].name, "spine-spine1");
  ASSERT_EQ(nodes[9].members.size(), 1u);
  EXPECT_EQ(nodes[9].members[0].name, "rg-rg2");
}

// Parsed back with yaml-cpp: the schema Volcano validates (integer tier, one selector per member),
// every host in exactly one tier-1 HyperNode, member selectors unique, members that exist.
TEST(SchedHyperNodes, YamlParsesBackAndKeepsTheInvariants) {
  const fabric::Fabric fabric = test::smallCluster(4, 18, 2);
  const std::vector<YAML::Node> docs = parseAll(hyperNodesYaml(hyperNodes(fabric)));
  ASSERT_EQ(docs.size(), 4u + 2u + 1u);
  std::map<std::string, int> tierOf;
  std::map<std::string, int> hostSeen;
  std::set<std::string> selectors;
  for (const YAML::Node& doc : docs) {
    EXPECT_EQ(doc["apiVersion"].as<std::string>(), "topology.volcano.sh/v1alpha1");
    EXPECT_EQ(doc["kind"].as<std::string>(), "HyperNode");
    const std::string name = doc["metadata"]["name"].as<std::string>();
    const int tier = doc["spec"]["tier"].as<int>();
    EXPECT_TRUE(tierOf.emplace(name, tier).second) << "duplicate HyperNode " << name;
    for (const YAML::Node& member : doc["spec"]["members"]) {
      ASSERT_EQ(member["selector"].size(), 1u) << "exactly one selector";
      const std::string target = member["selector"]["exactMatch"]["name"].as<std::string>();
      EXPECT_TRUE(selectors.insert(member["type"].as<std::string>() + "/" + target).second) << target;
      if (member["type"].as<std::string>() == "Node") {
        EXPECT_EQ(tier, 1);
        ++hostSeen[target];
      } else {
        ASSERT_EQ(member["type"].as<std::string>(), "HyperNode");
        ASSERT_TRUE(tierOf.count(target)) << target << " is declared before its parent";
        EXPECT_EQ(tierOf[target], tier - 1);
      }
    }
  }
  ASSERT_EQ(hostSeen.size(), fabric.hosts.size());
  for (const fabric::Host& host : fabric.hosts) EXPECT_EQ(hostSeen[host.name], 1) << host.name;
}

TEST(SchedHyperNodes, NoRailGroupsMeansTierOneOnly) {
  fabric::Fabric fabric = test::smallCluster(2, 2, 1);
  fabric.network.railGroups.clear();
  for (fabric::NvlDomain& domain : fabric.domains) domain.railGroup.clear();
  const std::vector<HyperNode> nodes = hyperNodes(fabric);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[1].tier, 1);
}

TEST(SchedHyperNodes, InvalidObjectNameIsRejected) {
  fabric::Fabric fabric = test::smallCluster(1, 1, 1);
  fabric.domains[0].name = "Rack_A";
  try {
    hyperNodes(fabric);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("HyperNode name for nvlink-domain 'nvl-Rack_A' is not a valid Kubernetes "
                                         "object name"),
              std::string::npos)
        << e.what();
  }
}

TEST(SchedHyperNodes, QuotingSurvivesYamlSpecialWords) {
  fabric::Fabric fabric = test::smallCluster(1, 1, 1);
  fabric.hosts[0].name = "on";
  fabric.domains[0].hosts[0] = "on";
  const std::vector<YAML::Node> docs = parseAll(hyperNodesYaml(hyperNodes(fabric)));
  EXPECT_EQ(docs[0]["spec"]["members"][0]["selector"]["exactMatch"]["name"].as<std::string>(), "on");
  EXPECT_EQ(docs[0]["spec"]["members"][0]["selector"]["exactMatch"]["name"].Tag(), "!");
}

}  // namespace
}  // namespace railtune::topo
