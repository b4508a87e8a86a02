// Every output of one cluster written into one folder and checked (topo_gen/cluster_outputs.h), called as a
// library: the files a good description gives, and the two a rejected one gives.
#include "topo_gen/cluster_outputs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace railtune::topo {
namespace {

namespace fs = std::filesystem;

class ClusterOutputsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("railtune-cluster-outputs-" + std::to_string(getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::string read(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  fs::path dir_;
};

TEST_F(ClusterOutputsTest, TheBuiltInClusterGivesEveryOutputAndTheyAgree) {
  const ClusterOutputs outputs = writeClusterOutputs("", dir_, "/opt/railtune/lib");
  EXPECT_EQ(outputs.errors, 0u) << outputs.checkReport;
  EXPECT_EQ(outputs.hosts, 36u);
  EXPECT_EQ(outputs.gpus, 144u);
  EXPECT_EQ(outputs.filesWritten, 36 + 10);  // a topology file per host, and the ten of the cluster
  for (const char* name :
       {"fabric.yaml", "rail-map.json", "labels.json", "label-nodes.sh", "hypernodes.yaml", "kueue-topology.yaml",
        "slurm-topology-block.conf", "slurm-topology-tree.conf", "nccl-topo/rack01-tray17.xml", "env/rack00-tray00.sh"})
    EXPECT_TRUE(fs::is_regular_file(dir_ / name)) << name;
  EXPECT_EQ(read(dir_ / "check.txt"), outputs.checkReport);
  EXPECT_NE(outputs.checkReport.find("36 topology files against rail-map.json): ok\n"), std::string::npos)
      << outputs.checkReport;
  // The launcher env points at the files just written and at the plugins given.
  const std::string env = read(dir_ / "env/rack00-tray00.sh");
  EXPECT_NE(env.find((dir_ / "rail-map.json").string()), std::string::npos) << env;
  EXPECT_NE(env.find("/opt/railtune/lib"), std::string::npos) << env;
}

TEST_F(ClusterOutputsTest, ARejectedDescriptionGetsOnlyItsCopyAndTheFindings) {
  const std::string path = RAILTUNE_SOURCE_DIR "/tests/data/fabric/few_nvlinks.yaml";
  const ClusterOutputs outputs = writeClusterOutputs(path, dir_, "/opt/railtune/lib");
  EXPECT_GT(outputs.errors, 0u);
  EXPECT_EQ(outputs.filesWritten, 2);
  EXPECT_TRUE(fs::is_regular_file(dir_ / "fabric.yaml"));
  EXPECT_FALSE(fs::exists(dir_ / "rail-map.json"));
  EXPECT_NE(read(dir_ / "check.txt").find("railtune topo check (" + path + "): 1 error(s)\n"), std::string::npos)
      << read(dir_ / "check.txt");
}

}  // namespace
}  // namespace railtune::topo
