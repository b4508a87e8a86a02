#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <set>
#include <sstream>

#include "tests/topo_gen/sched_fixture.h"
#include "topo_gen/kueue.h"
#include "topo_gen/slurm.h"
#include "topo_gen/slurm_hostlist.h"

namespace railtune::topo {
namespace {

TEST(SchedHostlist, CompressesTrailingNumbersKeepingPadding) {
  EXPECT_EQ(compressHostlist({"rack01-tray00", "rack01-tray01", "rack01-tray02"}), "rack01-tray[00-02]");
  EXPECT_EQ(compressHostlist({"n1", "n2", "n4", "n5", "n6", "login", "n9"}), "n[1-2,4-6,9],login");
  EXPECT_EQ(compressHostlist({"gpu007"}), "gpu007");
  EXPECT_EQ(compressHostlist({"n9", "n10"}), "n9,n10") << "different widths are different groups";
  EXPECT_EQ(compressHostlist({}), "");
}

TEST(SchedHostlist, ExpandInvertsCompress) {
  const std::vector<std::string> hosts = {"a01-t00", "a01-t01", "a01-t03", "b", "a02-t00", "a02-t01", "x1"};
  EXPECT_EQ(expandHostlist(compressHostlist(hosts)),
            (std::vector<std::string>{"a01-t00", "a01-t01", "a01-t03", "b", "a02-t00", "a02-t01", "x1"}));
  EXPECT_EQ(expandHostlist("r[08-10]s"), (std::vector<std::string>{"r08s", "r09s", "r10s"}));
  EXPECT_THROW(expandHostlist("r[1-"), std::invalid_argument);
  EXPECT_THROW(expandHostlist("r[3-1]"), std::invalid_argument);
  EXPECT_THROW(expandHostlist("r[a]"), std::invalid_argument);
}

std::vector<std::string> hostsOfLines(const std::string& conf, const std::string& key) {
  std::vector<std::string> hosts;
  std::istringstream lines(conf);
  for (std::string line; std::getline(lines, line);) {
    const size_t at = line.find(" " + key + "=");
    if (line.rfind("#", 0) == 0 || at == std::string::npos) continue;
    for (const std::string& host : expandHostlist(line.substr(at + key.size() + 2))) hosts.push_back(host);
  }
  return hosts;
}

TEST(SchedSlurm, BlocksAreNvlinkDomainsAndExpandBackToTheHosts) {
  const fabric::Fabric fabric = test::smallCluster(3, 18, 2);
  const std::string conf = slurmTopologyConf(fabric, SlurmTopologyPlugin::Block);
  EXPECT_NE(conf.find("\nBlockName=rack01 Nodes=rack01-tray[00-17]\n"), std::string::npos) << conf;
  EXPECT_NE(conf.find("\nBlockSizes=18,36\n"), std::string::npos) << conf;
  std::vector<std::string> expected;
  for (const fabric::Host& host : fabric.hosts) expected.push_back(host.name);
  EXPECT_EQ(hostsOfLines(conf, "Nodes"), expected);
}

TEST(SchedSlurm, UnevenDomainsLeaveBlockSizesToSlurm) {
  fabric::Fabric fabric = test::smallCluster(2, 4, 2);
  fabric.domains[1].hosts.pop_back();
  fabric.hosts.pop_back();
  EXPECT_EQ(slurmTopologyConf(fabric, SlurmTopologyPlugin::Block).find("BlockSizes"), std::string::npos);
}

TEST(SchedSlurm, TreeFollowsRailGroupsSpinesAndCores) {
  const fabric::Fabric fabric = test::smallCluster(5, 2, 2);
  const std::string conf = slurmTopologyConf(fabric, SlurmTopologyPlugin::Tree);
  EXPECT_NE(conf.find("# rg0: rail leaves rg0-leaf0,rg0-leaf1,rg0-leaf2,rg0-leaf3\n"
                      "SwitchName=rg0 Nodes=rack00-tray[00-01],rack01-tray[00-01]\n"),
            std::string::npos)
      << conf;
  EXPECT_NE(conf.find("\nSwitchName=spine0 Switches=rg0,rg1\nSwitchName=spine1 Switches=rg2\n"
                      "SwitchName=core0 Switches=spine0,spine1\n"),
            std::string::npos)
      << conf;
  std::vector<std::string> expected;
  for (const fabric::Host& host : fabric.hosts) expected.push_back(host.name);
  EXPECT_EQ(hostsOfLines(conf, "Nodes"), expected) << "every host under exactly one leaf-level switch";
}

TEST(SchedSlurm, TreeWithoutRailGroupsIsAClearError) {
  fabric::Fabric fabric = test::smallCluster(1, 2, 1);
  fabric.network.railGroups.clear();
  fabric.domains[0].railGroup.clear();
  EXPECT_THROW(slurmTopologyConf(fabric, SlurmTopologyPlugin::Tree), std::invalid_argument);
}

TEST(SchedSlurm, NamesThatWouldBreakTheFileAreRejected) {
  fabric::Fabric fabric = test::smallCluster(1, 2, 1);
  fabric.hosts[1].name = fabric.domains[0].hosts[1] = "rack00 tray01";
  try {
    slurmTopologyConf(fabric, SlurmTopologyPlugin::Block);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("host 'rack00 tray01' cannot be written to topology.conf"), std::string::npos)
        << e.what();
  }
  fabric = test::smallCluster(1, 2, 1);
  fabric.network.railGroups[0].spine = "spine=0";
  EXPECT_THROW(slurmTopologyConf(fabric, SlurmTopologyPlugin::Tree), std::invalid_argument);
}

TEST(SchedKueue, LevelsCoarsestFirstByOurLabels) {
  const fabric::Fabric fabric = test::smallCluster(2, 2, 1);
  const YAML::Node doc = YAML::Load(kueueTopologyYaml(fabric));
  EXPECT_EQ(doc["apiVersion"].as<std::string>(), "kueue.x-k8s.io/v1beta2");
  EXPECT_EQ(doc["kind"].as<std::string>(), "Topology");
  EXPECT_EQ(doc["metadata"]["name"].as<std::string>(), "sched-test");
  const YAML::Node levels = doc["spec"]["levels"];
  ASSERT_EQ(levels.size(), 4u);
  EXPECT_EQ(levels[0]["nodeLabel"].as<std::string>(), "railtune.io/spine");
  EXPECT_EQ(levels[1]["nodeLabel"].as<std::string>(), "railtune.io/rail-group");
  EXPECT_EQ(levels[2]["nodeLabel"].as<std::string>(), "railtune.io/nvlink-domain");
  EXPECT_EQ(levels[3]["nodeLabel"].as<std::string>(), "kubernetes.io/hostname");
}

// Kueue serves v1beta2 (the default) since 0.15; v1beta1, deprecated, for older Kueue. Same spec.
TEST(SchedKueue, ApiVersionIsV1beta2ByDefaultOrV1beta1OnRequest) {
  const fabric::Fabric fabric = test::smallCluster(2, 2, 1);
  const std::string v2 = kueueTopologyYaml(fabric, "", "v1beta2");
  EXPECT_EQ(v2, kueueTopologyYaml(fabric));
  const std::string v1 = kueueTopologyYaml(fabric, "", "v1beta1");
  EXPECT_EQ(YAML::Load(v1)["apiVersion"].as<std::string>(), "kueue.x-k8s.io/v1beta1");
  EXPECT_EQ(v1.substr(v1.find('\n')), v2.substr(v2.find('\n'))) << "only apiVersion differs";
  try {
    kueueTopologyYaml(fabric, "", "v1");
    ADD_FAILURE() << "v1 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "Kueue API version 'v1': expected v1beta2 or v1beta1");
  }
}

TEST(SchedKueue, LevelsSomeHostLacksAreLeftOut) {
  fabric::Fabric fabric = test::smallCluster(2, 2, 1);
  fabric.network.railGroups[1].spine.clear();
  EXPECT_EQ(kueueLevels(fabric), (std::vector<std::string>{"railtune.io/rail-group", "railtune.io/nvlink-domain",
                                                           "kubernetes.io/hostname"}));
  EXPECT_THROW(kueueTopologyYaml(fabric, "Not A Name"), std::invalid_argument);
}

}  // namespace
}  // namespace railtune::topo
