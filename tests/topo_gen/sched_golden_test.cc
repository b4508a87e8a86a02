// Every scheduler and launcher output of the built-in default cluster (2 x GB300 NVL72, 4 rails)
// against tests/data/golden/sched/, byte for byte. After an intended change, rewrite them with
//   RAILTUNE_UPDATE_GOLDEN=1 ctest -R '^topo_gen\.SchedGolden'
// and review the diff. The CLI test (tests/cli) checks `railtune topo ...` prints the same files.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "fabric/default_cluster.h"
#include "fabric/yaml_reader.h"
#include "topo_gen/hypernodes.h"
#include "topo_gen/kueue.h"
#include "topo_gen/labels.h"
#include "topo_gen/launcher_env.h"
#include "topo_gen/slurm.h"
#include "topo_gen/slurm_hostlist.h"

namespace railtune::topo {
namespace {

std::string goldenPath(const std::string& name) {
  return std::string(RAILTUNE_SOURCE_DIR) + "/tests/data/golden/sched/" + name;
}

void expectGolden(const std::string& name, const std::string& actual) {
  const std::string path = goldenPath(name);
  const char* update = std::getenv("RAILTUNE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::trunc | std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << path << " is missing; run with RAILTUNE_UPDATE_GOLDEN=1 to create it";
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), actual) << "differs from " << path << " (RAILTUNE_UPDATE_GOLDEN=1 rewrites it)";
}

class SchedGolden : public ::testing::Test {
 protected:
  const fabric::Fabric fabric_ = fabric::loadDefaultCluster();
};

TEST_F(SchedGolden, DefaultClusterShape) {
  ASSERT_EQ(fabric_.domains.size(), 2u);
  ASSERT_EQ(fabric_.hosts.size(), 36u);
  EXPECT_EQ(fabric_.network.rails, 4);
}

TEST_F(SchedGolden, Labels) {
  expectGolden("labels.json", labelsJson(nodeLabels(fabric_, {})));
  expectGolden("labels-topograph.json", labelsJson(nodeLabels(fabric_, {true})));
  expectGolden("labels.sh", labelsKubectlScript(nodeLabels(fabric_, {})));
}

TEST_F(SchedGolden, HyperNodesAndKueue) {
  expectGolden("hypernodes.yaml", hyperNodesYaml(hyperNodes(fabric_)));
  expectGolden("kueue.yaml", kueueTopologyYaml(fabric_));
  expectGolden("kueue-v1beta1.yaml", kueueTopologyYaml(fabric_, "", "v1beta1"));
}

TEST_F(SchedGolden, Slurm) {
  const std::string block = slurmTopologyConf(fabric_, SlurmTopologyPlugin::Block);
  expectGolden("slurm-block.conf", block);
  expectGolden("slurm-tree.conf", slurmTopologyConf(fabric_, SlurmTopologyPlugin::Tree));
  std::set<std::string> listed;
  std::istringstream lines(block);
  for (std::string line; std::getline(lines, line);) {
    const size_t at = line.find(" Nodes=");
    if (at == std::string::npos) continue;
    for (const std::string& host : expandHostlist(line.substr(at + 7))) EXPECT_TRUE(listed.insert(host).second) << host;
  }
  std::set<std::string> hosts;
  for (const fabric::Host& host : fabric_.hosts) hosts.insert(host.name);
  EXPECT_EQ(listed, hosts);
}

TEST_F(SchedGolden, LauncherEnv) {
  LauncherEnvOptions options;
  options.host = fabric_.hosts.front().name;
  options.topoFile = "/etc/railtune/topo/{host}.xml";
  options.railMap = "/etc/railtune/rail-map.json";
  options.pluginDir = "/opt/railtune/lib";
  expectGolden("env.sh", exportLines(launcherEnv(fabric_, options)));
  options.host = fabric_.hosts.back().name;
  options.localRank = 1;
  options.oneHcaPerRank = true;
  options.isolateGpu = true;
  options.ncclMinor = 28;
  expectGolden("env-rank1-2.28.sh", exportLines(launcherEnv(fabric_, options)));
}

// A discovered RoCE host (ECMP, no adaptive routing stated): the QP policy adds 4 QPs per connection;
// two of its eight NICs have no GID index, so NCCL_IB_GID_INDEX stays NCCL's.
TEST_F(SchedGolden, LauncherEnvRoce) {
  const fabric::Fabric roce =
      fabric::loadFabricFile(std::string(RAILTUNE_SOURCE_DIR) + "/tests/data/golden/discover/roce-h100.yaml");
  LauncherEnvOptions options;
  options.host = "dgx01";
  options.pluginDir = "/opt/railtune/lib";
  expectGolden("env-roce.sh", exportLines(launcherEnv(roce, options)));
}

}  // namespace
}  // namespace railtune::topo
