// libnccl-env-railtune.so as NCCL uses it (src/plugin/env.cc@v2.30.7 and v2.32.3): dlopen, ncclEnvPlugin_v2 or _v1,
// init with NCCL's version, getEnv for each variable, finalize. The host's table from the rail map, the user's
// environment winning, every other name passing through, one WARN and a pass-through plugin for no map, an unknown
// host or a bad file, NULL and huge names, and strings that stay valid as NCCL's header requires. The machine's own
// NCCL_* settings are a case of every test: each expectation takes them in (expectedAnswer), and where a test needs
// the user's value it also sets one of its own.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tests/e2e/env_plugin_fixture.h"

namespace railtune::testing {
namespace {

const std::string kExampleMap = std::string(RAILTUNE_SOURCE_DIR) + "/docs/formats/rail-map.example.json";
constexpr const char* kExampleHost = "dgx-h100-01";  // its one host: 8 GPUs, mlx5_0..7 on rails 0..7, one plane
const std::string kExampleHca =
    "=mlx5_0:1:0,mlx5_1:1:1,mlx5_2:1:2,mlx5_3:1:3,mlx5_4:1:4,mlx5_5:1:5,mlx5_6:1:6,mlx5_7:1:7";
// Names the example map's table sets under NCCL 2.30+, whatever the case asks for.
constexpr const char* kTableNames[] = {"NCCL_IB_HCA", "NCCL_CROSS_NIC", "NCCL_NET_MERGE_POLICY"};

class EnvPluginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(lib_.loaded()) << dlerror();
    ASSERT_NE(lib_.v2(), nullptr);
    setCaseInputs(vars_, {"", kExampleHost, "", ""});  // no rail map until the test names one
    LogCapture::instance().clear();
  }
  void TearDown() override {
    if (lib_.loaded()) lib_.v2()->finalize();
  }
  void useExampleMap() {
    vars_.set("RAILTUNE_RAIL_MAP", kExampleMap);
    vars_.set("RAILTUNE_HOST", kExampleHost);
  }
  void initV2(uint8_t minor = 31) { ASSERT_EQ(lib_.v2()->init(2, minor, 2, "", captureLogger), ncclSuccess); }
  const char* get(const char* name) { return lib_.v2()->getEnv(name); }
  size_t warnings() const { return LogCapture::instance().warnings().size(); }
  // Without a table every name is the environment's: the very pointer getenv returns, the user's value or NULL.
  void expectPassThrough() {
    for (const char* name : kTableNames) EXPECT_EQ(get(name), std::getenv(name)) << name;
  }

  EnvPluginLibrary lib_;
  ScopedVars vars_;
};

TEST_F(EnvPluginTest, ExportsBothVersionsNamedRailtune) {
  ASSERT_NE(lib_.v1(), nullptr);
  EXPECT_STREQ(lib_.v2()->name, "railtune");
  EXPECT_STREQ(lib_.v1()->name, "railtune");
  EXPECT_EQ(lib_.v1()->getEnv, lib_.v2()->getEnv);  // one implementation behind both
}

TEST_F(EnvPluginTest, AnswersTheHostsTableFromTheRailMap) {
  useExampleMap();
  vars_.set("RAILTUNE_ENV_TOPO_FILE", "/etc/railtune/topo-{host}.xml");
  vars_.set("RAILTUNE_ENV_PLUGINS", "tuner,profiler");
  initV2();
  const std::string dir = std::filesystem::path(envPluginPath()).parent_path().lexically_normal().string();
  const std::pair<const char*, std::optional<std::string>> table[] = {
      {"NCCL_IB_HCA", kExampleHca},
      {"NCCL_CROSS_NIC", "0"},
      {"NCCL_NET_MERGE_POLICY", "RAIL"},
      {"NCCL_TOPO_FILE", "/etc/railtune/topo-dgx-h100-01.xml"},
      {"NCCL_TUNER_PLUGIN", dir + "/libnccl-tuner-railtune.so"},
      {"NCCL_PROFILER_PLUGIN", dir + "/libnccl-profiler-railtune.so"},
      {"NCCL_NET_PLUGIN", std::nullopt},     // not asked for
      {"NCCL_MNNVL_ENABLE", std::nullopt}};  // a one-host NVLink domain
  for (const auto& [name, value] : table) EXPECT_EQ(answerText(get(name)), expectedAnswer(name, value)) << name;
  EXPECT_EQ(warnings(), 0u) << LogCapture::instance().dump();
  // The second case: a user sets each of them (after init: read live). Every one answers the user's value.
  for (const auto& [name, value] : table) {
    vars_.set(name, std::string("set-by-the-user-") + name);
    EXPECT_EQ(answerText(get(name)), std::string("set-by-the-user-") + name);
  }
}

TEST_F(EnvPluginTest, Nccl228ThroughV1GetsPortsOnlyAndNoMergePolicy) {
  useExampleMap();
  ASSERT_NE(lib_.v1(), nullptr);
  ASSERT_EQ(lib_.v1()->init(2, 28, 9, ""), ncclSuccess);
  EXPECT_EQ(answerText(lib_.v1()->getEnv("NCCL_IB_HCA")),
            expectedAnswer("NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1"));
  EXPECT_EQ(answerText(lib_.v1()->getEnv("NCCL_NET_MERGE_POLICY")),  // 2.28 has no such variable: not in the table
            expectedAnswer("NCCL_NET_MERGE_POLICY", std::nullopt));
  EXPECT_EQ(lib_.v1()->finalize(), ncclSuccess);
}

TEST_F(EnvPluginTest, TheProcessEnvironmentWins) {
  useExampleMap();
  initV2();  // the user's environment as it is: each name set there answers the user's value, the others the table's
  EXPECT_EQ(answerText(get("NCCL_IB_HCA")), expectedAnswer("NCCL_IB_HCA", kExampleHca));
  EXPECT_EQ(answerText(get("NCCL_CROSS_NIC")), expectedAnswer("NCCL_CROSS_NIC", "0"));
  EXPECT_EQ(answerText(get("NCCL_NET_MERGE_POLICY")), expectedAnswer("NCCL_NET_MERGE_POLICY", "RAIL"));
  ASSERT_EQ(lib_.v2()->finalize(), ncclSuccess);
  // ...and the test's own values: one set, one set empty, one set after init.
  vars_.set("NCCL_IB_HCA", "=mlx5_9:1");
  vars_.set("NCCL_CROSS_NIC", "");  // empty: NCCL takes it for unset, and so does the plugin
  initV2();
  EXPECT_EQ(answerText(get("NCCL_IB_HCA")), "=mlx5_9:1");
  EXPECT_EQ(answerText(get("NCCL_CROSS_NIC")), "0");
  vars_.set("NCCL_NET_MERGE_POLICY", "ALL");  // set after init: read live, as NCCL's default plugin reads it
  EXPECT_EQ(answerText(get("NCCL_NET_MERGE_POLICY")), "ALL");
}

TEST_F(EnvPluginTest, EveryOtherNamePassesThroughUnchanged) {
  useExampleMap();
  vars_.set("NCCL_DEBUG", "INFO");
  vars_.set("RAILTUNE_TEST_EMPTY", "");
  initV2();
  EXPECT_EQ(get("NCCL_DEBUG"), std::getenv("NCCL_DEBUG"));  // the very pointer getenv returns
  EXPECT_EQ(get("HOME"), std::getenv("HOME"));
  EXPECT_EQ(get("RAILTUNE_TEST_EMPTY"), std::getenv("RAILTUNE_TEST_EMPTY"));
  EXPECT_EQ(get("NCCL_NOT_A_VARIABLE_ANYONE_SETS"), nullptr);
  EXPECT_EQ(get("NCCL_"), nullptr);
  EXPECT_EQ(get(""), nullptr);
}

TEST_F(EnvPluginTest, NoRailMapIsOneWarnThenPassThrough) {
  vars_.set("NCCL_DEBUG", "WARN");
  initV2();
  const auto warns = LogCapture::instance().warnings();
  ASSERT_EQ(warns.size(), 1u) << LogCapture::instance().dump();
  EXPECT_NE(warns[0].text.find("RAILTUNE_RAIL_MAP is not set"), std::string::npos) << warns[0].text;
  expectPassThrough();
  EXPECT_EQ(get("NCCL_DEBUG"), std::getenv("NCCL_DEBUG"));
}

TEST_F(EnvPluginTest, UnknownHostIsOneWarnNamingTheHost) {
  useExampleMap();
  vars_.set("RAILTUNE_HOST", "node-that-is-not-there");
  initV2();
  const auto warns = LogCapture::instance().warnings();
  ASSERT_EQ(warns.size(), 1u) << LogCapture::instance().dump();
  EXPECT_NE(warns[0].text.find("node-that-is-not-there"), std::string::npos) << warns[0].text;
  expectPassThrough();
}

TEST_F(EnvPluginTest, BadFileIsOneWarnNamingTheFile) {
  const std::string path = ::testing::TempDir() + "/env-plugin-bad-rail-map.json";
  std::ofstream(path) << "{\"schema\": \"railtune.rail_map.v1\", \"hosts\": [";
  vars_.set("RAILTUNE_RAIL_MAP", path);
  vars_.set("RAILTUNE_HOST", kExampleHost);
  initV2();
  const auto warns = LogCapture::instance().warnings();
  ASSERT_EQ(warns.size(), 1u) << LogCapture::instance().dump();
  EXPECT_NE(warns[0].text.find(path), std::string::npos) << warns[0].text;
  expectPassThrough();
  std::remove(path.c_str());
}

TEST_F(EnvPluginTest, AMissingFileAndABadSwitchAreOneWarnEach) {
  vars_.set("RAILTUNE_RAIL_MAP", ::testing::TempDir() + "/no-such-rail-map.json");
  vars_.set("RAILTUNE_HOST", kExampleHost);
  initV2();
  EXPECT_EQ(warnings(), 1u) << LogCapture::instance().dump();
  EXPECT_EQ(lib_.v2()->finalize(), ncclSuccess);
  LogCapture::instance().clear();
  useExampleMap();
  vars_.set("RAILTUNE_ENV_PLUGINS", "tuner,gpu");
  initV2();
  const auto warns = LogCapture::instance().warnings();
  ASSERT_EQ(warns.size(), 1u) << LogCapture::instance().dump();
  EXPECT_NE(warns[0].text.find("RAILTUNE_ENV_PLUGINS"), std::string::npos) << warns[0].text;
  expectPassThrough();  // a bad switch: no half-right table
}

TEST_F(EnvPluginTest, NullAndHugeNamesAreAnsweredWithoutACrash) {
  useExampleMap();
  initV2();
  EXPECT_EQ(get(nullptr), nullptr);
  const std::string huge = "NCCL_" + std::string(100 * 1024, 'A');
  EXPECT_EQ(get(huge.c_str()), nullptr);
  const std::string hugeSet = "RAILTUNE_HUGE_" + std::string(100 * 1024, 'B');
  vars_.set(hugeSet, "yes");
  EXPECT_EQ(answerText(get(hugeSet.c_str())), "yes");
  EXPECT_EQ(get((huge + "X").c_str()), nullptr);
}

// Checked on each table name: one the user's environment leaves to the table is a table string, which must outlive
// its table; one the user sets is the user's string, the very pointer getenv returns, before and after.
TEST_F(EnvPluginTest, AnsweredStringsStayValidAcrossCallsFinalizeAndReinit) {
  useExampleMap();
  initV2();
  std::vector<std::pair<const char*, std::string>> held;  // what NCCL holds, and its value when answered
  for (const char* name : kTableNames) {
    const char* first = get(name);
    ASSERT_NE(first, nullptr) << name;
    EXPECT_EQ(get(name), first) << name;  // the same storage, unchanged, on the next call of the same name
    held.emplace_back(first, first);
  }
  ASSERT_EQ(lib_.v2()->finalize(), ncclSuccess);
  for (const auto& [pointer, value] : held) EXPECT_EQ(std::string(pointer), value);  // a retired table is kept
  expectPassThrough();                                                               // after finalize
  initV2(30);
  for (size_t i = 0; i < held.size(); ++i) {
    EXPECT_EQ(std::string(held[i].first), held[i].second);
    EXPECT_EQ(answerText(get(kTableNames[i])), held[i].second);
  }
}

// The failure table's env rows (docs/design.md), by injection: init's failure is one WARN and a pass-through
// plugin; getEnv's answers what NCCL's default plugin would.
TEST_F(EnvPluginTest, AnInitFailureIsOneWarnThenPassThrough) {
  useExampleMap();
  vars_.set("RAILTUNE_INJECT_FAULT", "env.init");
  vars_.set("NCCL_DEBUG", "WARN");
  initV2();
  const auto warns = LogCapture::instance().warnings();
  ASSERT_EQ(warns.size(), 1u) << LogCapture::instance().dump();
  EXPECT_NE(warns[0].text.find("env.init"), std::string::npos) << warns[0].text;
  expectPassThrough();
  EXPECT_EQ(get("NCCL_DEBUG"), std::getenv("NCCL_DEBUG"));
}

TEST_F(EnvPluginTest, AGetEnvFailureAnswersTheEnvironment) {
  useExampleMap();
  vars_.set("RAILTUNE_INJECT_FAULT", "env.getEnv");
  vars_.set("NCCL_DEBUG", "WARN");
  initV2();
  expectPassThrough();  // the table is not reached
  EXPECT_EQ(get("NCCL_DEBUG"), std::getenv("NCCL_DEBUG"));
  vars_.set("RAILTUNE_INJECT_FAULT", "");
  ASSERT_EQ(lib_.v2()->finalize(), ncclSuccess);
  initV2();  // init re-arms from the variable: nothing armed now
  EXPECT_EQ(answerText(get("NCCL_IB_HCA")), expectedAnswer("NCCL_IB_HCA", kExampleHca));
  EXPECT_EQ(answerText(get("NCCL_NET_MERGE_POLICY")), expectedAnswer("NCCL_NET_MERGE_POLICY", "RAIL"));
}

TEST_F(EnvPluginTest, GetEnvBeforeInitPassesThrough) {
  vars_.set("NCCL_IB_HCA", "=mlx5_4:1");
  expectPassThrough();
}

}  // namespace
}  // namespace railtune::testing
