// The rules engine and its configuration (tuner_plugin/decision_engine.h, tuner_config.h): which
// variable names the rules, what a rule does to NCCL's table and channels, IGNORE cells, chunk
// sizes, the digest, and bad configuration as an error naming variable, file and line.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/config_digest.h"
#include "formats/rail_map.h"
#include "nccl/tuner_common.h"
#include "tuner_plugin/decision_engine.h"
#include "tuner_plugin/tuner_config.h"

namespace railtune::tuner {
namespace {

using Table = float[kNumAlgorithms][kNumProtocols];

void fillCosts(Table& t) {
  for (int a = 0; a < kNumAlgorithms; ++a)
    for (int p = 0; p < kNumProtocols; ++p) t[a][p] = 10.0f + static_cast<float>(a * 3 + p);
}

// A rules file in a fresh temporary directory, and the environment pointing at it for one test.
class ConfigEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v :
         {"RAILTUNE_TUNER_CONFIG", "NCCL_TUNER_CONFIG_FILE", "RAILTUNE_TUNER_MODEL", "RAILTUNE_RAIL_MAP"})
      unsetenv(v);
    dir_ = std::filesystem::temp_directory_path() / ("railtune-rules-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    clearTunerConfigCache();
  }
  void TearDown() override {
    for (const char* v :
         {"RAILTUNE_TUNER_CONFIG", "NCCL_TUNER_CONFIG_FILE", "RAILTUNE_TUNER_MODEL", "RAILTUNE_RAIL_MAP"})
      unsetenv(v);
    std::filesystem::remove_all(dir_);
    clearTunerConfigCache();
  }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::filesystem::path dir_;
};

CommInfo comm(size_t nRanks, size_t nNodes) {
  CommInfo c;
  c.nRanks = nRanks;
  c.nNodes = nNodes;
  return c;
}

const char* kCsv =
    "# comment\n"
    "allreduce,0,65535,tree,ll,-1,2,-1\n"
    "allreduce,0,65535,ring,ll128,8,-1,-1\n"
    "allgather,1024,4194304,pat,simple,4,-1,16\n";

// The net plugin computes the digest on its own (common/config_digest.h) and must arrive at the
// tuner's value, or every connection would report a mismatch.
TEST_F(ConfigEnv, TheDigestFromTheEnvironmentIsTheTunersDigest) {
  EXPECT_EQ(configDigest(digestInputsFromEnvironment()), loadTunerConfig().digest) << "no rules, no rail map";
  setenv("NCCL_TUNER_CONFIG_FILE", write("nccl.conf", kCsv).c_str(), 1);
  setenv("RAILTUNE_RAIL_MAP", write("map.json", "{\"not\": \"read as a map here\"}").c_str(), 1);
  setenv("RAILTUNE_TUNER_MODEL", "on", 1);
  clearTunerConfigCache();
  const uint64_t tuner = loadTunerConfig().digest;
  EXPECT_EQ(configDigest(digestInputsFromEnvironment()), tuner);
  setenv("RAILTUNE_TUNER_CONFIG", write("ours.conf", kCsv).c_str(), 1);  // the same bytes elsewhere
  clearTunerConfigCache();
  EXPECT_EQ(configDigest(digestInputsFromEnvironment()), loadTunerConfig().digest);
  EXPECT_EQ(loadTunerConfig().digest, tuner) << "a path is not part of the configuration";
}

TEST_F(ConfigEnv, NcclVariableIsReadWhenOursIsUnset) {
  setenv("NCCL_TUNER_CONFIG_FILE", write("nccl.conf", kCsv).c_str(), 1);
  const TunerConfig config = loadTunerConfig();
  ASSERT_TRUE(config.rules);
  EXPECT_EQ(config.rules->rules.size(), 3u);
  EXPECT_STREQ(config.rulesVariable, "NCCL_TUNER_CONFIG_FILE");
  EXPECT_NE(config.describe().find("3 rules, from NCCL_TUNER_CONFIG_FILE"), std::string::npos) << config.describe();
  setenv("RAILTUNE_TUNER_CONFIG", write("ours.conf", "allreduce,0,-1,ring,simple,-1,-1,-1\n").c_str(), 1);
  EXPECT_EQ(loadTunerConfig().rules->rules.size(), 1u);
}

TEST_F(ConfigEnv, FirstMatchingRuleBecomesNcclsPickWithItsChannels) {
  setenv("RAILTUNE_TUNER_CONFIG", write("r.conf", kCsv).c_str(), 1);
  const TunerConfig config = loadTunerConfig();
  std::unique_ptr<Engine> engine = makeEngine(comm(16, 2), config, nullptr, Log("tuner"));
  EXPECT_STREQ(engine->name(), "rules (model advises)");
  Table t;
  fillCosts(t);
  CollDecision decision;
  engine->decide({Collective::AllReduce, 4096, 1, false}, CostTableView(t), decision);
  EXPECT_EQ(t[NCCL_ALGO_TREE][NCCL_PROTO_LL], 0.0f);
  EXPECT_EQ(decision.nChannels, 0) << "channels -1 keeps NCCL's";
  // IGNORE on the first rule's cell: matching goes on to the next rule.
  fillCosts(t);
  t[NCCL_ALGO_TREE][NCCL_PROTO_LL] = -1.0f;
  decision = {};
  engine->decide({Collective::AllReduce, 4096, 1, false}, CostTableView(t), decision);
  EXPECT_EQ(t[NCCL_ALGO_RING][NCCL_PROTO_LL128], 0.0f);
  EXPECT_EQ(t[NCCL_ALGO_TREE][NCCL_PROTO_LL], -1.0f) << "an IGNORE cell is never chosen";
  EXPECT_EQ(decision.nChannels, 8);
  // Nothing applies (size out of every range): table and channels untouched.
  Table before;
  fillCosts(t);
  std::memcpy(before, t, sizeof(t));
  decision = {};
  engine->decide({Collective::AllReduce, 1 << 20, 1, false}, CostTableView(t), decision);
  EXPECT_EQ(std::memcmp(before, t, sizeof(t)), 0);
  EXPECT_EQ(decision.nChannels, 0);
}

TEST_F(ConfigEnv, ChunkSizeComesFromTheRuleOfTheChosenCell) {
  setenv("RAILTUNE_TUNER_CONFIG",
         write("r.json", R"({"schema": "railtune.tuner-rules/1", "rules": [
             {"collective": "allreduce", "nBytes": {"max": 1048576}, "algorithm": "ring", "protocol": "simple",
              "chunkSize": 131072}]})")
             .c_str(),
         1);
  std::unique_ptr<Engine> engine = makeEngine(comm(8, 1), loadTunerConfig(), nullptr, Log("tuner"));
  EXPECT_EQ(engine->chunkSize({Collective::AllReduce, 4096, Algorithm::Ring, Protocol::Simple, 4}), 131072u);
  EXPECT_FALSE(engine->chunkSize({Collective::AllReduce, 4096, Algorithm::Tree, Protocol::Simple, 4}).has_value());
  EXPECT_FALSE(engine->chunkSize({Collective::AllReduce, 1 << 21, Algorithm::Ring, Protocol::Simple, 4}).has_value());
}

TEST_F(ConfigEnv, BadRulesAreAnErrorNamingVariableFileAndLine) {
  const std::string path =
      write("bad.conf", "allreduce,0,65535,ring,simple,-1,-1,-1\nallreduce,0,10,torus,ll,-1,-1,-1\n");
  setenv("RAILTUNE_TUNER_CONFIG", path.c_str(), 1);
  try {
    loadTunerConfig();
    FAIL() << "accepted an unknown algorithm";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("RAILTUNE_TUNER_CONFIG: " + path + ":2:"), std::string::npos) << e.what();
  }
  setenv("RAILTUNE_TUNER_CONFIG", (dir_ / "missing.conf").c_str(), 1);
  EXPECT_THROW(loadTunerConfig(), std::runtime_error);
  unsetenv("RAILTUNE_TUNER_CONFIG");
  setenv("RAILTUNE_TUNER_MODEL", "maybe", 1);
  EXPECT_THROW(loadTunerConfig(), std::runtime_error);
}

TEST_F(ConfigEnv, DigestFollowsTheBytesNotThePath) {
  const std::string a = write("a.conf", kCsv);
  const std::string b = write("b.conf", kCsv);
  setenv("RAILTUNE_TUNER_CONFIG", a.c_str(), 1);
  const uint64_t first = loadTunerConfig().digest;
  setenv("RAILTUNE_TUNER_CONFIG", b.c_str(), 1);
  EXPECT_EQ(loadTunerConfig().digest, first) << "the same rules at another path are the same configuration";
  setenv("RAILTUNE_TUNER_MODEL", "on", 1);
  EXPECT_NE(loadTunerConfig().digest, first);
  EXPECT_EQ(loadTunerConfig().model, ModelMode::On);
}

TEST_F(ConfigEnv, RailMapIsParsedOnceAndABadOneIsNamed) {
  setenv("RAILTUNE_RAIL_MAP", write("bad-map.json", "{\"schema\": 1}").c_str(), 1);
  TunerConfig config = loadTunerConfig();
  EXPECT_FALSE(config.railMap);
  EXPECT_NE(config.railMapError.find("bad-map.json"), std::string::npos) << config.railMapError;
  const uint64_t badDigest = config.digest;
  setenv("RAILTUNE_RAIL_MAP",
         write("map.json", R"({"schema": "railtune.rail_map.v1", "cluster": "c", "rails": 1,
      "planes": 1, "hosts": []})")
             .c_str(),
         1);
  config = loadTunerConfig();
  ASSERT_TRUE(config.railMap);
  EXPECT_EQ(config.railMap->cluster, "c");
  EXPECT_TRUE(config.railMapError.empty());
  EXPECT_NE(config.digest, badDigest);
  EXPECT_EQ(loadTunerConfig().railMap, config.railMap) << "the same file is parsed once";
}

TEST_F(ConfigEnv, AChangedFileIsReadAgain) {
  const std::string path = write("r.conf", kCsv);
  setenv("RAILTUNE_TUNER_CONFIG", path.c_str(), 1);
  EXPECT_EQ(loadTunerConfig().rules->rules.size(), 3u);
  write("r.conf", "allreduce,0,-1,ring,simple,-1,-1,-1\n");  // a different size: a new stamp
  EXPECT_EQ(loadTunerConfig().rules->rules.size(), 1u);
}

// RAILTUNE_TUNER_MODEL: off leaves NCCL alone where no rule applies; on applies the model's pick;
// advise (the default) leaves NCCL's choice and reports where the model would differ.
TEST_F(ConfigEnv, ModelModes) {
  Table t, before;
  CollDecision decision;
  const CollQuery query{Collective::AllReduce, 1 << 20, 1, false};
  setenv("RAILTUNE_TUNER_MODEL", "off", 1);
  std::unique_ptr<Engine> off = makeEngine(comm(144, 2), loadTunerConfig(), nullptr, Log("tuner"));
  EXPECT_STREQ(off->name(), "pass-through");

  setenv("RAILTUNE_TUNER_MODEL", "on", 1);
  std::unique_ptr<Engine> on = makeEngine(comm(144, 2), loadTunerConfig(), nullptr, Log("tuner"));
  EXPECT_STREQ(on->name(), "model");
  fillCosts(t);
  on->decide(query, CostTableView(t), decision);
  int zeros = 0;
  for (auto& row : t)
    for (float cell : row) zeros += cell == 0.0f;
  EXPECT_EQ(zeros, 1) << "the model's pick, and only it, becomes NCCL's cheapest cell";
  EXPECT_EQ(decision.nChannels, 0);

  unsetenv("RAILTUNE_TUNER_MODEL");  // advise
  std::unique_ptr<Engine> advise = makeEngine(comm(144, 2), loadTunerConfig(), nullptr, Log("tuner"));
  EXPECT_STREQ(advise->name(), "NCCL (model advises)");
  for (size_t bytes = 8; bytes <= (size_t{1} << 32); bytes *= 2) {
    fillCosts(t);
    std::memcpy(before, t, sizeof(t));
    advise->decide({Collective::AllReduce, bytes, 1, false}, CostTableView(t), decision);
    EXPECT_EQ(std::memcmp(before, t, sizeof(t)), 0) << "advice never changes NCCL's table";
  }
  // fillCosts makes Tree/LL NCCL's pick at every size; the model disagrees somewhere, and says so.
  const std::string summary = advise->summary();
  EXPECT_NE(summary.find("AllReduce "), std::string::npos) << summary;
  EXPECT_NE(summary.find(": NCCL Tree/LL, model "), std::string::npos) << summary;
}

}  // namespace
}  // namespace railtune::tuner
