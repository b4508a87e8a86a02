// The measured network settings file (formats/net_env.h): the documented example, the writer's round trip, every
// malformed case named with its position, the file limits, and the choice of an entry for a cluster
// (formats/net_env_pick.h).
#include "formats/net_env.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "formats/net_env_pick.h"

namespace railtune::formats {
namespace {

std::string exampleText() {
  std::ifstream in(RAILTUNE_NET_ENV_EXAMPLE, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

NetEnvShape shape(int ranks, int nodes, const std::string& gpu, const std::string& linkLayer, int gbps) {
  NetEnvShape s;
  s.ranks = ranks;
  s.nodes = nodes;
  s.nvlDomains = nodes;
  s.ranksPerDomain = ranks / nodes;
  s.gpu = gpu;
  s.fabric = {"IB", linkLayer, gbps};
  return s;
}

NetEnvEntry entry(const NetEnvShape& s, const std::string& collective, MeasuredEnv env) {
  NetEnvEntry e;
  e.shape = s;
  e.collective = collective;
  e.env = std::move(env);
  e.evidence = {{1 << 20, 1 << 30}, 0.1, 0.5, 0.7, 3, 3, 0.02, 0};
  e.description = "test";
  return e;
}

NetEnvFile twoShapes() {
  NetEnvFile f;
  f.generatedBy = "test";
  f.datasets = {"a.jsonl"};
  f.entries.push_back(
      entry(shape(8, 2, "NVIDIA GB300", "RoCE", 800), "allreduce", {{"NCCL_IB_QPS_PER_CONNECTION", "2"}}));
  f.entries.push_back(entry(shape(16, 4, "NVIDIA GB300", "RoCE", 800), "allreduce",
                            {{"NCCL_CROSS_NIC", "1"},
                             {"NCCL_IB_ADAPTIVE_ROUTING", "1"},
                             {"NCCL_IB_SPLIT_DATA_ON_QPS", "1"},
                             {"NCCL_NCHANNELS_PER_NET_PEER", "4"}}));
  f.notDecided.push_back({shape(4, 1, "NVIDIA GB300", "unknown", 0), "allreduce", "one node"});
  f.notDecided.back().shape.fabric.transport = "nvlink";
  return f;
}

// The reader's message for `text`, "" when it is accepted.
std::string problemOf(const std::string& text) {
  try {
    parseNetEnv(text, "f.json");
  } catch (const NetEnvError& e) {
    return e.what();
  }
  return "";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(NetEnv, TheDocumentedExampleReadsAndWritesBackByteForByte) {
  const std::string text = exampleText();
  const NetEnvFile file = parseNetEnv(text, "example");
  ASSERT_EQ(file.entries.size(), 1u);
  EXPECT_EQ(file.entries[0].shape.ranks, 144);
  EXPECT_EQ(file.entries[0].shape.fabric.linkLayer, "RoCE");
  EXPECT_EQ(file.entries[0].env.size(), 3u);
  EXPECT_EQ(file.entries[0].evidence.runs, 3);
  ASSERT_EQ(file.notDecided.size(), 1u);
  EXPECT_EQ(writeNetEnv(file), text);
}

TEST(NetEnv, WrittenFilesReadBackEqual) {
  NetEnvFile file = twoShapes();
  file.entries[1].env.emplace_back("NCCL_SOCKET_NTHREADS", "4");  // another NCCL_* variable, kept as written
  const NetEnvFile back = parseNetEnv(writeNetEnv(file), "w");
  // The reader returns the variables in byte order, as the writer writes them.
  std::sort(file.entries[1].env.begin(), file.entries[1].env.end());
  EXPECT_EQ(back, file);
  EXPECT_EQ(writeNetEnv(back), writeNetEnv(file));
}

struct Malformed {
  const char* from;
  const char* to;
  const char* message;  // what the reader must say, with the position
};

TEST(NetEnv, EveryMalformedCaseIsNamedWithItsPosition) {
  const std::string good = writeNetEnv(twoShapes());
  ASSERT_EQ(problemOf(good), "");
  const Malformed cases[] = {
      {"\"schema\": \"railtune.net-env/1\"", "\"schema\": \"railtune.net-env/2\"",
       "f.json:2:13: schema 'railtune.net-env/2' is not railtune.net-env/1"},
      {"\"generated_by\": \"test\",", "", "f.json:1:1: missing field 'generated_by'"},
      {"\"generated_by\": \"test\",", "\"generated_by\": \"test\", \"extra\": 1,",
       "f.json:3:27: unknown field 'extra'"},
      {"\"generated_by\": \"test\",", "\"generated_by\": \"test\", \"generated_by\": \"x\",",
       "f.json:3:27: duplicate key \"generated_by\""},
      {"\"ranks\": 8,", "\"ranks\": \"8\",", "field 'entries/0/shape/ranks' must be an integer from 1"},
      {"\"nodes\": 2,", "\"nodes\": 1,", "field 'entries/0/shape/nodes' is 1: one node never touches the network"},
      {"\"link_layer\": \"RoCE\"", "\"link_layer\": \"Ethernet\"", "must be \"IB\", \"RoCE\" or \"unknown\""},
      {"\"NCCL_IB_QPS_PER_CONNECTION\": \"2\"", "\"NCCL_IB_QPS_PER_CONNECTION\": \"0\"",
       "'NCCL_IB_QPS_PER_CONNECTION' must be a decimal integer from 1 to 128"},
      {"\"NCCL_IB_QPS_PER_CONNECTION\": \"2\"", "\"NCCL_IB_QPS_PER_CONNECTION\": \"010\"", "must be a decimal integer"},
      {"\"NCCL_IB_QPS_PER_CONNECTION\": \"2\"", "\"NCCL_IB_QPS_PER_CONNECTION\": 2", "must be a string"},
      {"\"NCCL_IB_QPS_PER_CONNECTION\": \"2\"", "\"NCCL_ALGO\": \"Ring\"", "is a choice the sweep forces"},
      {"\"NCCL_IB_QPS_PER_CONNECTION\": \"2\"", "\"NCCL_IB_TC\": \"106\"", "is a fact of the fabric description"},
      {"\"NCCL_IB_QPS_PER_CONNECTION\": \"2\"", "\"nccl_ib_qps\": \"2\"", "is not an NCCL variable"},
      {"\"NCCL_IB_QPS_PER_CONNECTION\": \"2\"", "", "field 'entries/0/env' names no variable"},
      {"\"NCCL_CROSS_NIC\": \"1\"", "\"NCCL_CROSS_NIC\": \"3\"",
       "'NCCL_CROSS_NIC' must be a decimal integer from 0 to 2"},
      {"1048576,\n          1073741824", "1073741824,\n          1048576", "is not larger than the size before it"},
      {"\"min_gain\": 0.1,", "\"min_gain\": 0.6,", "min_gain <= median_gain <= max_gain does not hold"},
      {"\"worst_regression\": 0.0", "\"worst_regression\": 2.0", "is a fraction of the baseline, 0 to 1"},
      {"\"runs\": 3,", "\"runs\": 0,", "field 'entries/0/evidence/runs' must be an integer from 1"},
      {"\"why\": \"one node\"", "\"because\": \"one node\"", "unknown field 'not_decided/0/because'"},
      {"\"datasets\": [", "\"datasets\": [1, ", "field 'datasets/0' must be a string"},
      {"\"entries\": [", "\"entries\": {\"a\": [", "not JSON"},
  };
  for (const Malformed& c : cases) {
    const std::string what = problemOf(replaced(good, c.from, c.to));
    EXPECT_NE(what.find(c.message), std::string::npos) << c.to << "\n got: " << what;
    EXPECT_EQ(what.rfind("f.json:", 0), 0u) << what;
  }
}

TEST(NetEnv, ASecondEntryForOneShapeAndCollectiveIsRefused) {
  NetEnvFile file = twoShapes();
  file.entries.push_back(file.entries[0]);
  file.entries.back().env = {{"NCCL_IB_QPS_PER_CONNECTION", "4"}};
  EXPECT_NE(problemOf(writeNetEnv(file)).find("a second entry for 8 ranks on 2 nodes, allreduce"), std::string::npos);
}

TEST(NetEnv, OnlyARegularFileWithinTheLimitIsRead) {
  const std::string dir = ::testing::TempDir() + "net_env_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  EXPECT_THROW(readNetEnvFile(dir), NetEnvError);
  EXPECT_THROW(readNetEnvFile(dir + "/absent.json"), NetEnvError);
  const std::string big = dir + "/big.json";
  std::ofstream(big) << std::string(kMaxNetEnvBytes + 1, ' ');
  try {
    readNetEnvFile(big);
    ADD_FAILURE() << "a file over the limit was read";
  } catch (const NetEnvError& e) {
    EXPECT_NE(std::string(e.what()).find(big), std::string::npos) << e.what();
  }
  const std::string ok = dir + "/ok.json";
  std::ofstream(ok) << writeNetEnv(twoShapes());
  EXPECT_EQ(readNetEnvFile(ok).entries.size(), 2u);
  std::filesystem::remove_all(dir);
}

TEST(NetEnvPick, GpuNamesMatchTheFabricsModel) {
  EXPECT_TRUE(gpuNameMatches("NVIDIA GB300", "B300", true));
  EXPECT_FALSE(gpuNameMatches("NVIDIA GB300", "B300", false));  // a B300 without Grace is another machine
  EXPECT_TRUE(gpuNameMatches("NVIDIA H100 80GB HBM3", "H100", false));
  // Discovery's model is NVML's whole name less "NVIDIA ", and so is the dgx-h100 profile's.
  EXPECT_TRUE(gpuNameMatches("NVIDIA H100 80GB HBM3", "H100 80GB HBM3", false));
  EXPECT_FALSE(gpuNameMatches("NVIDIA H100 80GB HBM3", "H100 80GB HBM3e", false));  // whole words only
  EXPECT_FALSE(gpuNameMatches("NVIDIA H100 80GB HBM3", "100 80GB HBM3", false));
  EXPECT_FALSE(gpuNameMatches("NVIDIA H100 PCIe", "H100 80GB HBM3", false));
  EXPECT_TRUE(gpuNameMatches("NVIDIA B200", "b200", false));
  EXPECT_FALSE(gpuNameMatches("NVIDIA H200", "H100", false));
  EXPECT_FALSE(gpuNameMatches("NVIDIA GB300", "", true));  // a description naming no model matches nothing
}

TEST(NetEnvPick, TheShapeWithMostNodesIsChosenAndDisagreementNoted) {
  const NetEnvFile file = twoShapes();
  const NetEnvChoice choice = chooseNetEnv(file, {"B300", true, "RoCE", 800}, "net-env.json");
  ASSERT_TRUE(choice.entry);
  EXPECT_EQ(choice.entry->shape.nodes, 4);
  EXPECT_EQ(choice.measured.crossNic, 1);
  EXPECT_EQ(choice.measured.channelsPerNetPeer, 4);
  EXPECT_EQ(choice.measured.split, true);
  EXPECT_FALSE(choice.measured.qps);  // the 2-node entry's QP count is not mixed in
  EXPECT_EQ(choice.measured.source,
            "measured: net-env.json, allreduce on 16 ranks on 4 nodes, +50% median (+10% to +70%) at 1M-1G, 3 runs "
            "against 3");
  ASSERT_EQ(choice.notes.size(), 1u);
  EXPECT_NE(choice.notes[0].find("allreduce on 8 ranks on 2 nodes measured NCCL_IB_QPS_PER_CONNECTION=2"),
            std::string::npos)
      << choice.notes[0];
}

TEST(NetEnvPick, AFileForAnotherFabricChangesNothingAndSaysSoOnce) {
  const NetEnvFile file = twoShapes();
  for (const NetEnvCluster& other : {NetEnvCluster{"B300", true, "IB", 800}, NetEnvCluster{"B300", true, "RoCE", 400},
                                     NetEnvCluster{"H100", false, "RoCE", 800}}) {
    const NetEnvChoice choice = chooseNetEnv(file, other, "net-env.json");
    EXPECT_FALSE(choice.entry);
    EXPECT_FALSE(choice.measured.any());
    ASSERT_EQ(choice.notes.size(), 1u);
    EXPECT_NE(choice.notes[0].find("net-env.json: no entry is for this cluster (" + other.label() + ")"),
              std::string::npos)
        << choice.notes[0];
  }
}

TEST(NetEnvPick, AnUnknownNicSpeedMatchesWithANote) {
  const NetEnvChoice choice = chooseNetEnv(twoShapes(), {"B300", true, "RoCE", 0}, "n.json");
  ASSERT_TRUE(choice.entry);
  EXPECT_NE(choice.notes.front().find("the NIC speed is unknown to the fabric description"), std::string::npos);
}

TEST(NetEnvPick, OneNodeShapesNeverApply) {
  NetEnvFile file;
  file.entries.push_back(entry(shape(4, 1, "NVIDIA GB300", "RoCE", 800), "allreduce", {{"NCCL_CROSS_NIC", "1"}}));
  EXPECT_FALSE(chooseNetEnv(file, {"B300", true, "RoCE", 800}, "n.json").entry);
  // ... and the reader refuses to hold one among the entries.
  EXPECT_NE(problemOf(writeNetEnv(file)).find("one node never touches the network"), std::string::npos);
}

}  // namespace
}  // namespace railtune::formats
