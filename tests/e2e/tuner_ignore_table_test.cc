// NCCL 2.31.2 calls the tuner where it has nothing to choose. ncclTuningCompute fills the table only from the
// general (algorithm, protocol) candidates and leaves every other cell NCCL_TUNING_IGNORE (-1.0), nMaxChannels
// starting at 0 (src/tuning/tuning.cc:197-216@v2.31.2). Where only symmetric kernels are candidates
// (ncclMakeSymmetricTaskList, src/scheduler/symmetric_sched.cc:171-200@v2.31.2: numPipeOps 0, NCCL's regBuff) or
// only copy-engine methods (ncclCeAllGatherUseMulticast, src/ce_coll.cc:53-74@v2.31.2: numPipeOps 0, regBuff 0),
// every cell is IGNORE. The real .so (v5, v6, v7, called as NCCL does) must leave such a call alone in every
// configuration a user can give: no rules, rules (CSV through RAILTUNE_TUNER_CONFIG or NCCL_TUNER_CONFIG_FILE,
// JSON) that match the call's size, a fitted model, the cost model on with a rail map. "Alone": the table bit for
// bit, nChannels as NCCL set it, no WARN, and nothing in the model advice the communicator's finalize reports.
// Each configuration first acts on a real table of the same call in another communicator, so an inert plugin
// fails here rather than passing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>

#include "emulator/tuner_driver.h"
#include "tests/e2e/plugin_fixture.h"
#include "tests/e2e/tuner_api.h"
#include "tests/support/file_text.h"

namespace railtune::testing {
namespace {

enum class Config { None, RulesCsv, NcclRulesCsv, RulesJson, Fit, ModelOnRailMap };

const char* configName(Config c) {
  switch (c) {
    case Config::None:
      return "NoConfig";
    case Config::RulesCsv:
      return "RulesCsv";
    case Config::NcclRulesCsv:
      return "NcclTunerConfigFile";
    case Config::RulesJson:
      return "RulesJson";
    case Config::Fit:
      return "FittedModel";
    case Config::ModelOnRailMap:
      return "ModelOnWithRailMap";
  }
  return "?";
}

// Every size the tests call at, for each collective a symmetric kernel or the copy engines run; channels 8.
const char* kCsvRules =
    "allreduce,0,-1,ring,simple,8,-1,-1\n"
    "allgather,0,-1,ring,simple,8,-1,-1\n"
    "reducescatter,0,-1,ring,simple,8,-1,-1\n";
const char* kJsonRules = R"({"schema": "railtune.tuner-rules/1", "rules": [
  {"collective": "allreduce", "algorithm": "ring", "protocol": "simple", "channels": 8},
  {"collective": "allgather", "algorithm": "ring", "protocol": "simple", "channels": 8},
  {"collective": "reducescatter", "algorithm": "ring", "protocol": "simple", "channels": 8}]})";

// The golden fitted model, marked for the releases that bind v5 (2.28), v6 (2.30) and v7 (2.32) alike.
std::string fittedForEveryRelease() {
  std::string text = readFile(std::string(RAILTUNE_SOURCE_DIR) + "/docs/formats/tuner-model.example.json");
  const std::string releases = R"("nccl": ["2.28", "2.30"])";
  const size_t at = text.find(releases);
  if (at != std::string::npos) text.replace(at, releases.size(), R"("nccl": ["2.28", "2.30", "2.32"])");
  return text;
}

std::string gb300RailMap() {  // the fitted example covers GB300 at 800 Gb/s
  return R"({"schema": "railtune.rail_map.v1", "cluster": "c", "gpu": "NVIDIA GB300", "rails": 1, "planes": 1,
    "hosts": [{"name": "h0", "domain": "d0", "gpus": [{"index": 0, "bus_id": "0000:01:00.0", "nics": [{"hca":
    "mlx5_0", "netdev": "ib0", "bus_id": "0000:03:00.0", "port": 1, "rail": 0, "plane": -1, "speed_mbps":
    800000}]}]}]})";
}

class TunerIgnoreTableTest : public PluginTest, public ::testing::WithParamInterface<std::tuple<int, Config>> {
 protected:
  void SetUp() override {
    PluginTest::SetUp();
    for (const char* v : {"RAILTUNE_TUNER_CONFIG", "NCCL_TUNER_CONFIG_FILE", "RAILTUNE_TUNER_MODEL",
                          "RAILTUNE_TUNER_MODEL_FILE", "RAILTUNE_RAIL_MAP"})
      env.unset(v);
    ASSERT_TRUE(lib.loaded()) << lib.path() << ": " << dlerror();
    api = bindTuner(lib, std::get<0>(GetParam()));
    ASSERT_EQ(api.version, std::get<0>(GetParam()));
    dir = std::filesystem::temp_directory_path() / ("railtune-e2e-ignore-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    configure(std::get<1>(GetParam()));
    constants = emu::defaultTunerConstants(emu::NcclBehaviour::V2_30);
    initArgs.constants = &constants;
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  void configure(Config c) {
    switch (c) {
      case Config::None:
        break;
      case Config::RulesCsv:
        env.set("RAILTUNE_TUNER_CONFIG", write("rules.conf", kCsvRules));
        break;
      case Config::NcclRulesCsv:
        env.set("NCCL_TUNER_CONFIG_FILE", write("nccl.conf", kCsvRules));
        break;
      case Config::RulesJson:
        env.set("RAILTUNE_TUNER_CONFIG", write("rules.json", kJsonRules));
        break;
      case Config::Fit:
        env.set("RAILTUNE_TUNER_MODEL_FILE", write("model.json", fittedForEveryRelease()));
        env.set("RAILTUNE_RAIL_MAP", write("rail-map.json", gb300RailMap()));
        initArgs.nRanks = 4;  // a shape the example's fit covers (1 node, 4..16 ranks)
        initArgs.nNodes = 1;
        initArgs.domains = {1, 4, 4};
        break;
      case Config::ModelOnRailMap:
        env.set("RAILTUNE_TUNER_MODEL", "on");
        env.set("RAILTUNE_RAIL_MAP", write("rail-map.json", gb300RailMap()));
        break;
    }
  }

  void* init() {
    void* ctx = nullptr;
    EXPECT_EQ(api.init(&ctx, initArgs), ncclSuccess) << logText();
    EXPECT_NE(ctx, nullptr);
    return ctx;
  }
  ncclResult_t call(void* ctx, ncclFunc_t coll, size_t nBytes, int numPipeOps, int regBuff, CostTable& table,
                    int& nChannels) {
    CollArgs args;
    args.coll = coll;
    args.nBytes = nBytes;
    args.numPipeOps = numPipeOps;
    args.regBuff = regBuff;
    args.table = reinterpret_cast<float**>(table);
    args.nChannels = &nChannels;
    return api.getCollInfo(ctx, args);
  }
  // What the configuration does to a real table of the same call, in a communicator of its own: proof that the
  // plugin is active, so that "left alone" below means something.
  void expectActsOnARealTable(Config c) {
    void* ctx = init();
    CostTable table, before;
    fillNcclLikeTable(table);
    std::memcpy(before, table, sizeof(table));
    int nChannels = 0;
    ASSERT_EQ(call(ctx, ncclFuncAllReduce, size_t{1} << 20, 1, 0, table, nChannels), ncclSuccess);
    const bool edited = std::memcmp(before, table, sizeof(table)) != 0;
    LogCapture::instance().clear();
    ASSERT_EQ(api.finalize(ctx), ncclSuccess);
    switch (c) {
      case Config::None:
        EXPECT_FALSE(edited) << "advice never edits NCCL's table";
        EXPECT_TRUE(logged("model advice where it differs from NCCL's pick")) << logText();
        break;
      case Config::RulesCsv:
      case Config::NcclRulesCsv:
      case Config::RulesJson:
        EXPECT_EQ(table[NCCL_ALGO_RING][NCCL_PROTO_SIMPLE], 0.0f) << "the rule's cell became NCCL's pick";
        EXPECT_EQ(nChannels, 8);
        break;
      case Config::Fit:
        EXPECT_NE(table[NCCL_ALGO_RING][NCCL_PROTO_SIMPLE], before[NCCL_ALGO_RING][NCCL_PROTO_SIMPLE])
            << "the fit corrects Ring/Simple";
        break;
      case Config::ModelOnRailMap:
        EXPECT_TRUE(edited) << "the model's cell became NCCL's pick";
        break;
    }
  }

  PluginLibrary lib{"tuner"};
  TunerApi api;
  TunerInitArgs initArgs;
  ncclTunerConstants_v5_t constants{};
  std::filesystem::path dir;
};

TEST_P(TunerIgnoreTableTest, EveryCellIgnoredIsLeftAloneAndNotRecorded) {
  const Config config = std::get<1>(GetParam());
  expectActsOnARealTable(config);
  LogCapture::instance().clear();
  void* ctx = init();
  const size_t warningsAfterInit = warnCount();
  CostTable ignored;
  for (auto& row : ignored)
    for (float& cell : row) cell = -1.0f;  // NCCL_TUNING_IGNORE
  for (ncclFunc_t coll : {ncclFuncAllReduce, ncclFuncAllGather, ncclFuncReduceScatter}) {
    for (size_t bytes : {size_t{0}, size_t{4096}, size_t{1} << 20, size_t{1} << 30}) {
      for (int regBuff : {0, 1}) {
        for (int preset : {0, 13}) {  // 0 is what NCCL sets; 13 shows nothing is written, not even 0
          CostTable table;
          std::memcpy(table, ignored, sizeof(table));
          int nChannels = preset;
          ASSERT_EQ(call(ctx, coll, bytes, 0, regBuff, table, nChannels), ncclSuccess);
          EXPECT_EQ(std::memcmp(table, ignored, sizeof(table)), 0)
              << "an IGNORE cell became a cost: coll " << coll << ", " << bytes << " B, regBuff " << regBuff;
          EXPECT_EQ(nChannels, preset) << "coll " << coll << ", " << bytes << " B, regBuff " << regBuff;
        }
      }
    }
  }
  EXPECT_EQ(warnCount(), warningsAfterInit) << logText();
  LogCapture::instance().clear();
  ASSERT_EQ(api.finalize(ctx), ncclSuccess);
  EXPECT_FALSE(logged("model advice")) << "a call NCCL decided alone is no advice to report: " << logText();
  EXPECT_EQ(warnCount(), 0u) << logText();
}

// The general re-run inside ncclTuningCompute (tuning.cc:252-291@v2.31.2) copies the symmetric query, numPipeOps 0
// included, and passes a real table: the plugin handles numPipeOps 0 like any call and never turns a cost into IGNORE
// (which NCCL 2.31.2's lowest-time selection, tuning.cc:153-167, would take as the cheapest).
TEST_P(TunerIgnoreTableTest, ARealTableWithNoPipelinedOperationsKeepsItsCostsValid) {
  void* ctx = init();
  const size_t warningsAfterInit = warnCount();
  for (ncclFunc_t coll : {ncclFuncAllReduce, ncclFuncAllGather, ncclFuncReduceScatter}) {
    for (size_t bytes : {size_t{4096}, size_t{1} << 20, size_t{1} << 30}) {
      CostTable table, before;
      fillNcclLikeTable(table);
      std::memcpy(before, table, sizeof(table));
      int nChannels = 0;
      ASSERT_EQ(call(ctx, coll, bytes, 0, 0, table, nChannels), ncclSuccess);
      for (int a = 0; a < NCCL_NUM_ALGORITHMS; ++a)
        for (int p = 0; p < NCCL_NUM_PROTOCOLS; ++p) {
          if (before[a][p] < 0) {
            EXPECT_EQ(table[a][p], before[a][p]) << "IGNORE became a cost at " << a << "/" << p;
          } else {
            EXPECT_GE(table[a][p], 0.0f) << "a cost became IGNORE or NaN at " << a << "/" << p;
          }
        }
      EXPECT_GE(nChannels, 0);
      EXPECT_LE(nChannels, 64);
    }
  }
  ASSERT_EQ(api.finalize(ctx), ncclSuccess);
  EXPECT_EQ(warnCount(), warningsAfterInit) << logText();
}

std::string paramName(const ::testing::TestParamInfo<std::tuple<int, Config>>& info) {
  return std::string("v").append(std::to_string(std::get<0>(info.param))).append("_") +
         configName(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(NcclDecidesAlone, TunerIgnoreTableTest,
                         ::testing::Combine(::testing::Values(5, 6, 7),
                                            ::testing::Values(Config::None, Config::RulesCsv, Config::NcclRulesCsv,
                                                              Config::RulesJson, Config::Fit, Config::ModelOnRailMap)),
                         paramName);

}  // namespace
}  // namespace railtune::testing
