// libnccl-env-railtune.so as NCCL uses it (src/plugin/env.cc@v2.30.7 and v2.32.3): dlopen, ncclEnvPlugin_v2 or _v1,
// init with NCCL's version, getEnv for each variable, finalize. The host's table from the rail map, the user's
// environment winning, every other name passing through, one WARN and a pass-through plugin for no map, an unknown
// host or a bad file, NULL and huge names, and strings that stay valid as NCCL's header requires.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/e2e/env_plugin_fixture.h"

namespace railtune::testing {
namespace {

const std::string kExampleMap = std::string(RAILTUNE_SOURCE_DIR) + "/docs/formats/rail-map.example.json";
constexpr const char* kExampleHost = "dgx-h100-01";  // its one host: 8 GPUs, mlx5_0..7 on rails 0..7, one plane

std::string text(const char* value) {
  return value == nullptr ? "<null>" : value;
}

class EnvPluginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(lib_.loaded()) << dlerror();
    ASSERT_NE(lib_.v2(), nullptr);
    clearPluginInputs(vars_);
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
  EXPECT_EQ(text(get("NCCL_IB_HCA")),
            "=mlx5_0:1:0,mlx5_1:1:1,mlx5_2:1:2,mlx5_3:1:3,mlx5_4:1:4,mlx5_5:1:5,mlx5_6:1:6,mlx5_7:1:7");
  EXPECT_EQ(text(get("NCCL_CROSS_NIC")), "0");
  EXPECT_EQ(text(get("NCCL_NET_MERGE_POLICY")), "RAIL");
  EXPECT_EQ(text(get("NCCL_TOPO_FILE")), "/etc/railtune/topo-dgx-h100-01.xml");
  const std::string dir = std::filesystem::path(envPluginPath()).parent_path().lexically_normal().string();
  EXPECT_EQ(text(get("NCCL_TUNER_PLUGIN")), dir + "/libnccl-tuner-railtune.so");
  EXPECT_EQ(text(get("NCCL_PROFILER_PLUGIN")), dir + "/libnccl-profiler-railtune.so");
  EXPECT_EQ(get("NCCL_NET_PLUGIN"), nullptr);    // not asked for
  EXPECT_EQ(get("NCCL_MNNVL_ENABLE"), nullptr);  // a one-host NVLink domain
  EXPECT_EQ(warnings(), 0u) << LogCapture::instance().dump();
}

TEST_F(EnvPluginTest, Nccl228ThroughV1GetsPortsOnlyAndNoMergePolicy) {
  useExampleMap();
  ASSERT_NE(lib_.v1(), nullptr);
  ASSERT_EQ(lib_.v1()->init(2, 28, 9, ""), ncclSuccess);
  EXPECT_EQ(text(lib_.v1()->getEnv("NCCL_IB_HCA")),
            "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1");
  EXPECT_EQ(lib_.v1()->getEnv("NCCL_NET_MERGE_POLICY"), nullptr);  // 2.28 has no such variable
  EXPECT_EQ(lib_.v1()->finalize(), ncclSuccess);
}

TEST_F(EnvPluginTest, TheProcessEnvironmentWins) {
  useExampleMap();
  vars_.set("NCCL_IB_HCA", "=mlx5_9:1");
  vars_.set("NCCL_CROSS_NIC", "");  // empty: NCCL takes it for unset, and so does the plugin
  initV2();
  EXPECT_EQ(text(get("NCCL_IB_HCA")), "=mlx5_9:1");
  EXPECT_EQ(text(get("NCCL_CROSS_NIC")), "0");
  vars_.set("NCCL_NET_MERGE_POLICY", "ALL");  // set after init: read live, as NCCL's default plugin reads it
  EXPECT_EQ(text(get("NCCL_NET_MERGE_POLICY")), "ALL");
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
  EXPECT_EQ(get("NCCL_IB_HCA"), nullptr);
  EXPECT_EQ(get("NCCL_DEBUG"), std::getenv("NCCL_DEBUG"));
}

TEST_F(EnvPluginTest, UnknownHostIsOneWarnNamingTheHost) {
  useExampleMap();
  vars_.set("RAILTUNE_HOST", "node-that-is-not-there");
  initV2();
  const auto warns = LogCapture::instance().warnings();
  ASSERT_EQ(warns.size(), 1u) << LogCapture::instance().dump();
  EXPECT_NE(warns[0].text.find("node-that-is-not-there"), std::string::npos) << warns[0].text;
  EXPECT_EQ(get("NCCL_IB_HCA"), nullptr);
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
  EXPECT_EQ(get("NCCL_IB_HCA"), nullptr);
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
  EXPECT_EQ(get("NCCL_IB_HCA"), nullptr);  // a bad switch: no half-right table
}

TEST_F(EnvPluginTest, NullAndHugeNamesAreAnsweredWithoutACrash) {
  useExampleMap();
  initV2();
  EXPECT_EQ(get(nullptr), nullptr);
  const std::string huge = "NCCL_" + std::string(100 * 1024, 'A');
  EXPECT_EQ(get(huge.c_str()), nullptr);
  const std::string hugeSet = "RAILTUNE_HUGE_" + std::string(100 * 1024, 'B');
  vars_.set(hugeSet, "yes");
  EXPECT_EQ(text(get(hugeSet.c_str())), "yes");
  EXPECT_EQ(get((huge + "X").c_str()), nullptr);
}

TEST_F(EnvPluginTest, AnsweredStringsStayValidAcrossCallsFinalizeAndReinit) {
  useExampleMap();
  initV2();
  const char* first = get("NCCL_IB_HCA");
  ASSERT_NE(first, nullptr);
  const std::string value = first;
  EXPECT_EQ(get("NCCL_IB_HCA"), first);  // the same storage, unchanged, on the next call of the same name
  ASSERT_EQ(lib_.v2()->finalize(), ncclSuccess);
  EXPECT_EQ(std::string(first), value);    // a retired table is kept while the library is loaded
  EXPECT_EQ(get("NCCL_IB_HCA"), nullptr);  // after finalize: pass-through
  initV2(30);
  EXPECT_EQ(std::string(first), value);
  EXPECT_EQ(text(get("NCCL_IB_HCA")), value);
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
  EXPECT_EQ(get("NCCL_IB_HCA"), nullptr);
  EXPECT_EQ(get("NCCL_DEBUG"), std::getenv("NCCL_DEBUG"));
}

TEST_F(EnvPluginTest, AGetEnvFailureAnswersTheEnvironment) {
  useExampleMap();
  vars_.set("RAILTUNE_INJECT_FAULT", "env.getEnv");
  vars_.set("NCCL_DEBUG", "WARN");
  initV2();
  EXPECT_EQ(get("NCCL_IB_HCA"), nullptr);  // the table is not reached
  EXPECT_EQ(get("NCCL_DEBUG"), std::getenv("NCCL_DEBUG"));
  vars_.set("RAILTUNE_INJECT_FAULT", "");
  ASSERT_EQ(lib_.v2()->finalize(), ncclSuccess);
  initV2();  // init re-arms from the variable: nothing armed now
  EXPECT_NE(get("NCCL_IB_HCA"), nullptr);
}

TEST_F(EnvPluginTest, GetEnvBeforeInitPassesThrough) {
  vars_.set("NCCL_IB_HCA", "=mlx5_4:1");
  EXPECT_EQ(get("NCCL_IB_HCA"), std::getenv("NCCL_IB_HCA"));
  EXPECT_EQ(get("NCCL_CROSS_NIC"), nullptr);
}

}  // namespace
}  // namespace railtune::testing
