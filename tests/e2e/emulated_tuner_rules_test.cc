// The tuner's rules through the real .so and the emulator, every ABI version in both NCCL
// behaviours: RAILTUNE_TUNER_CONFIG / NCCL_TUNER_CONFIG_FILE select the rules, the first fitting rule
// becomes NCCL's pick (its channels too), IGNORE cells are skipped, nothing applies -> NCCL's
// choice, v6 chunk sizes, and a bad file follows the failure table (one WARN naming file and line;
// an init error under RAILTUNE_STRICT=1).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "emulator/plugin_open.h"
#include "emulator/tuner_driver.h"
#include "tests/e2e/emulated_fixture.h"

namespace railtune::testing {
namespace {

using emu::NcclBehaviour;
using emu::PluginKind;

constexpr ncclNvlDomainInfo_v5_t kTwoDomains{2, 4, 4};

const char* kRules =
    "# NCCL example-tuner CSV, unchanged format\n"
    "allreduce,0,65535,tree,ll,-1,2,-1\n"         // two nodes only
    "allreduce,0,65535,ring,ll128,6,-1,-1\n"      // any shape: 6 channels
    "allgather,0,1048575,ring,simple,-1,-1,-1\n"  // AllGather nBytes is the gathered total
    "reducescatter,1048576,-1,pat,simple,-1,-1,-1\n";

class EmulatedTunerRulesTest : public EmulatedTest,
                               public ::testing::WithParamInterface<std::tuple<NcclBehaviour, int>> {
 protected:
  void SetUp() override {
    EmulatedTest::SetUp();
    for (const char* v : {"RAILTUNE_TUNER_CONFIG", "NCCL_TUNER_CONFIG_FILE", "RAILTUNE_TUNER_MODEL"}) env.unset(v);
    binding = emu::Loader::bindVersion(PluginKind::Tuner, pluginPath("tuner"), std::get<1>(GetParam()));
    ASSERT_TRUE(binding);
    constants = emu::defaultTunerConstants(std::get<0>(GetParam()));
    dir = std::filesystem::temp_directory_path() / ("railtune-e2e-rules-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  static void fill(emu::CostTable& t) {
    for (int a = 0; a < NCCL_NUM_ALGORITHMS; ++a)
      for (int p = 0; p < NCCL_NUM_PROTOCOLS; ++p) t[a][p] = 5.0f + static_cast<float>(a + p);
  }
  // What NCCL runs after the tuner: its pick over the edited table, and the channels returned.
  struct Outcome {
    int algorithm = -1, protocol = -1, nChannels = 0;
  };
  Outcome call(emu::TunerDriver& driver, ncclFunc_t coll, size_t bytes, emu::CostTable& table) {
    Outcome o;
    EXPECT_EQ(driver.getCollInfo(coll, bytes, 1, table, 0, &o.nChannels), ncclSuccess);
    emu::pickFromCostTable(table, &o.algorithm, &o.protocol);
    return o;
  }
  emu::Binding binding;
  ncclTunerConstants_v5_t constants;
  std::filesystem::path dir;
};

TEST_P(EmulatedTunerRulesTest, FirstFittingRuleIsWhatNcclRuns) {
  env.set("RAILTUNE_TUNER_CONFIG", write("rules.conf", kRules));
  emu::TunerDriver driver(binding);
  ASSERT_EQ(driver.init(0xab, 8, 2, kTwoDomains, &constants), ncclSuccess) << pluginLogText();
  emu::CostTable t;
  fill(t);
  Outcome o = call(driver, ncclFuncAllReduce, 4096, t);
  EXPECT_EQ(o.algorithm, NCCL_ALGO_TREE);
  EXPECT_EQ(o.protocol, NCCL_PROTO_LL);
  EXPECT_EQ(o.nChannels, 0) << "channels -1: NCCL keeps its own";
  fill(t);
  t[NCCL_ALGO_TREE][NCCL_PROTO_LL] = -1.0f;  // IGNORE (as NCCL_PROTO=^LL would): never chosen
  o = call(driver, ncclFuncAllReduce, 4096, t);
  EXPECT_EQ(t[NCCL_ALGO_TREE][NCCL_PROTO_LL], -1.0f);
  if (std::get<1>(GetParam()) > 2) {  // the next rule applies
    EXPECT_EQ(o.algorithm, NCCL_ALGO_RING);
    EXPECT_EQ(o.protocol, NCCL_PROTO_LL128);
    EXPECT_EQ(o.nChannels, 6);
  } else {  // v2 has no cost table: NCCL's adapter drops a pick on an IGNORE cell and keeps its own
    EXPECT_EQ(o.algorithm, NCCL_ALGO_TREE);
    EXPECT_EQ(o.protocol, NCCL_PROTO_LL128);
  }
  fill(t);
  o = call(driver, ncclFuncAllGather, 1 << 20, t);  // the gathered total is 1 MiB: past the rule's range
  EXPECT_EQ(o.algorithm, NCCL_ALGO_TREE) << "nothing applies: NCCL's cheapest cell";
  EXPECT_EQ(o.nChannels, 0);
  EXPECT_EQ(driver.finalize(), ncclSuccess);
  EXPECT_TRUE(driver.violations().empty());
  EXPECT_TRUE(pluginWarnings().empty()) << pluginLogText();
}

TEST_P(EmulatedTunerRulesTest, NcclsOwnVariableAndCommunicatorKeys) {
  env.set("NCCL_TUNER_CONFIG_FILE", write("nccl.conf", kRules));
  emu::TunerDriver driver(binding);
  ASSERT_EQ(driver.init(0xcd, 4, 1, ncclNvlDomainInfo_v5_t{1, 4, 4}, &constants), ncclSuccess) << pluginLogText();
  emu::CostTable t;
  fill(t);
  const Outcome o = call(driver, ncclFuncAllReduce, 4096, t);  // one node: the two-node rule does not fit
  EXPECT_EQ(o.algorithm, NCCL_ALGO_RING);
  EXPECT_EQ(o.protocol, NCCL_PROTO_LL128);
  EXPECT_NE(pluginLogText().find("from NCCL_TUNER_CONFIG_FILE"), std::string::npos) << pluginLogText();
  EXPECT_NE(pluginLogText().find("config digest "), std::string::npos);
}

TEST_P(EmulatedTunerRulesTest, BadRulesFileIsOneWarningAndPassThrough) {
  const std::string path =
      write("bad.conf", "allreduce,0,65535,tree,ll,-1,-1,-1\nallreduce,0,1,ring,simpel,-1,-1,-1\n");
  env.set("RAILTUNE_TUNER_CONFIG", path);
  emu::TunerDriver driver(binding);
  ASSERT_EQ(driver.init(0xef, 8, 2, kTwoDomains, &constants), ncclSuccess);
  emu::CostTable t, before;
  fill(t);
  std::memcpy(before, t, sizeof(t));
  int nChannels = 0;
  ASSERT_EQ(driver.getCollInfo(ncclFuncAllReduce, 4096, 1, t, 0, &nChannels), ncclSuccess);
  EXPECT_EQ(std::memcmp(before, t, sizeof(t)), 0) << "a bad file means no rule at all, not some rules";
  const std::vector<std::string> warnings = pluginWarnings();
  ASSERT_EQ(warnings.size(), 1u) << pluginLogText();
  EXPECT_NE(warnings[0].find(path + ":2:"), std::string::npos) << warnings[0];
}

TEST_P(EmulatedTunerRulesTest, BadRulesFileFailsInitUnderStrict) {
  env.set("RAILTUNE_TUNER_CONFIG", write("bad.conf", "allreduce,zero,1,ring,simple,-1,-1,-1\n"));
  env.set("RAILTUNE_STRICT", "1");
  emu::TunerDriver driver(binding);
  EXPECT_NE(driver.init(0x12, 8, 2, kTwoDomains, &constants), ncclSuccess);
  EXPECT_EQ(pluginWarnings().size(), 1u) << pluginLogText();
}

TEST_P(EmulatedTunerRulesTest, ChunkSizeFromTheRule) {
  env.set("RAILTUNE_TUNER_CONFIG", write("rules.json", R"({"schema": "railtune.tuner-rules/1", "rules": [
      {"collective": "allreduce", "nBytes": {"min": 1048576}, "algorithm": "ring", "protocol": "simple",
       "channels": 16, "chunkSize": 524288}]})"));
  emu::TunerDriver driver(binding);
  ASSERT_EQ(driver.init(0x34, 8, 2, kTwoDomains, &constants), ncclSuccess) << pluginLogText();
  emu::CostTable t;
  fill(t);
  const Outcome o = call(driver, ncclFuncAllReduce, 1 << 26, t);
  EXPECT_EQ(o.algorithm, NCCL_ALGO_RING);
  EXPECT_EQ(o.protocol, NCCL_PROTO_SIMPLE);
  EXPECT_EQ(o.nChannels, 16);
  if (!driver.hasChunkSize()) return;  // v6 only
  size_t chunk = 1 << 17;
  ASSERT_EQ(driver.getChunkSize(ncclFuncAllReduce, 1 << 26, NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, 16, &chunk),
            ncclSuccess);
  EXPECT_EQ(chunk, size_t{524288});
  chunk = 1 << 17;
  ASSERT_EQ(driver.getChunkSize(ncclFuncAllReduce, 1 << 26, NCCL_ALGO_TREE, NCCL_PROTO_SIMPLE, 16, &chunk),
            ncclSuccess);
  EXPECT_EQ(chunk, size_t{1} << 17) << "another cell: NCCL's chunk size stands";
}

// RAILTUNE_TUNER_MODEL through the .so: `on` makes the model's cell NCCL's pick where no rule applies;
// `advise` (the default) leaves every table as NCCL made it and reports the model's disagreements
// when the communicator is destroyed.
TEST_P(EmulatedTunerRulesTest, ModelOnPicksAndAdviseOnlyReports) {
  env.set("RAILTUNE_TUNER_MODEL", "on");
  {
    emu::TunerDriver driver(binding);
    ASSERT_EQ(driver.init(0x56, 144, 2, ncclNvlDomainInfo_v5_t{2, 72, 72}, &constants), ncclSuccess) << pluginLogText();
    emu::CostTable t;
    fill(t);
    int nChannels = 0;
    ASSERT_EQ(driver.getCollInfo(ncclFuncAllReduce, 1 << 24, 1, t, 0, &nChannels), ncclSuccess);
    int zeros = 0;
    for (auto& row : t)
      for (float cell : row) zeros += cell == 0.0f;
    if (std::get<1>(GetParam()) > 2) {
      EXPECT_EQ(zeros, 1) << "the model's cell became NCCL's pick";
    }
    EXPECT_EQ(driver.finalize(), ncclSuccess);
  }
  env.set("RAILTUNE_TUNER_MODEL", "advise");
  emu::TunerDriver driver(binding);
  ASSERT_EQ(driver.init(0x57, 144, 2, ncclNvlDomainInfo_v5_t{2, 72, 72}, &constants), ncclSuccess);
  for (size_t bytes = 8; bytes <= (size_t{1} << 30); bytes *= 4) {
    emu::CostTable t, before;
    fill(t);
    std::memcpy(before, t, sizeof(t));
    int nChannels = 0;
    ASSERT_EQ(driver.getCollInfo(ncclFuncAllReduce, bytes, 1, t, 0, &nChannels), ncclSuccess);
    EXPECT_EQ(std::memcmp(before, t, sizeof(t)), 0) << "advice never edits NCCL's table";
    EXPECT_EQ(nChannels, 0);
  }
  EXPECT_EQ(driver.finalize(), ncclSuccess);
  EXPECT_NE(pluginLogText().find("model advice where it differs from NCCL's pick"), std::string::npos)
      << pluginLogText();
  EXPECT_TRUE(pluginWarnings().empty()) << pluginLogText();
}

INSTANTIATE_TEST_SUITE_P(
    AllVersions, EmulatedTunerRulesTest,
    ::testing::Combine(::testing::Values(NcclBehaviour::V2_28, NcclBehaviour::V2_30), ::testing::Values(2, 3, 4, 5, 6)),
    [](const ::testing::TestParamInfo<std::tuple<NcclBehaviour, int>>& p) {
      return behaviourTag(std::get<0>(p.param)).append("_v").append(std::to_string(std::get<1>(p.param)));
    });

}  // namespace
}  // namespace railtune::testing

namespace railtune::testing {
namespace {

// NCCL_TUNER_PLUGIN unset: NCCL takes the tuner from the net plugin's library, and railtune's net
// library carries the same tuner, rules included.
class EmulatedTunerFromNetLibraryTest : public EmulatedTest {};

TEST_F(EmulatedTunerFromNetLibraryTest, TheNetLibraryServesTheTunerWithItsRules) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("railtune-e2e-netlib-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "rules.conf") << "allreduce,0,-1,ring,ll128,12,-1,-1\n";
  env.set("RAILTUNE_TUNER_CONFIG", (dir / "rules.conf").string());
  for (auto [behaviour, expected] : {std::pair{NcclBehaviour::V2_28, 5}, std::pair{NcclBehaviour::V2_30, 6}}) {
    emu::Loader loader(behaviour, emu::EnvSource::fromMap({}));
    std::string error;
    loader.setActiveNetLibrary(emu::openLibrary(pluginPath("net").c_str(), &error));
    const emu::Binding binding = loader.openTuner();
    ASSERT_TRUE(binding) << error;
    EXPECT_TRUE(binding.viaNetLibrary);
    EXPECT_EQ(binding.version, expected);
    emu::TunerDriver driver(binding);
    ncclTunerConstants_v5_t constants = emu::defaultTunerConstants(behaviour);
    ASSERT_EQ(driver.init(7, 8, 2, ncclNvlDomainInfo_v5_t{2, 4, 4}, &constants), ncclSuccess) << pluginLogText();
    emu::CostTable t;
    for (auto& row : t)
      for (float& cell : row) cell = 9.0f;
    int nChannels = 0, algorithm = -1, protocol = -1;
    ASSERT_EQ(driver.getCollInfo(ncclFuncAllReduce, 1 << 20, 1, t, 0, &nChannels), ncclSuccess);
    emu::pickFromCostTable(t, &algorithm, &protocol);
    EXPECT_EQ(algorithm, NCCL_ALGO_RING);
    EXPECT_EQ(protocol, NCCL_PROTO_LL128);
    EXPECT_EQ(nChannels, 12);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace railtune::testing
