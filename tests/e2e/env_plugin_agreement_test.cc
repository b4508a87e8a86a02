// The env plugin and `railtune topo env` answer from one function (formats/host_nccl_env.h): for every host of the
// default cluster (and of its RoCE variant, where the QP policy sets NCCL_IB_* values), under NCCL 2.28 (v1), 2.30
// and 2.31 (v2), every NCCL_* variable topo env exports is what the loaded .so answers for that host from the rail map
// written for the same fabric, and the .so answers no NCCL_* variable topo env does not export.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "fabric/default_cluster.h"
#include "fabric/rail_map_write.h"
#include "formats/measured_env.h"
#include "tests/e2e/env_plugin_fixture.h"
#include "topo_gen/launcher_env.h"

namespace railtune::testing {
namespace {

struct Release {
  uint8_t minor, patch;
  int abi;  // the symbol NCCL binds: v1 for 2.28, v2 from 2.30 on
};

std::string pluginDir() {
  return std::filesystem::path(envPluginPath()).parent_path().string();
}

// Every NCCL_* name either side could set, so that "the plugin answers nothing more" is checked by name.
std::set<std::string> namesToAsk(const topo::EnvVars& expected) {
  std::set<std::string> names = {"NCCL_IB_HCA",
                                 "NCCL_CROSS_NIC",
                                 "NCCL_NET_MERGE_POLICY",
                                 "NCCL_TOPO_FILE",
                                 "NCCL_MNNVL_ENABLE",
                                 "NCCL_CUMEM_ENABLE",
                                 "NCCL_NET_PLUGIN",
                                 "NCCL_TUNER_PLUGIN",
                                 "NCCL_PROFILER_PLUGIN",
                                 "NCCL_IB_QPS_PER_CONNECTION",
                                 "NCCL_IB_SPLIT_DATA_ON_QPS",
                                 "NCCL_IB_ADAPTIVE_ROUTING",
                                 "NCCL_IB_GID_INDEX",
                                 "NCCL_IB_TC",
                                 "NCCL_IB_SL",
                                 "NCCL_NCHANNELS_PER_NET_PEER",
                                 "NCCL_NET",
                                 "NCCL_NVLS_ENABLE"};
  for (const auto& [name, value] : expected) names.insert(name);
  return names;
}

// `measured`: settings the map carries (`topo rail-map --measured`), given to topo env as `--measured` gives them.
void expectPluginAnswersTopoEnv(const fabric::Fabric& fabric, const std::string& label,
                                const formats::MeasuredEnv& measured = {}) {
  const std::string mapPath = ::testing::TempDir() + "/env-agreement-" + label + ".json";
  const std::string source = "measured on " + label;
  std::ofstream(mapPath) << fabric::writeRailMap(fabric, measured, source);
  EnvPluginLibrary lib;
  ASSERT_TRUE(lib.loaded()) << dlerror();
  for (const Release release : {Release{28, 9, 1}, Release{30, 7, 2}, Release{31, 2, 2}}) {
    for (const fabric::Host& host : fabric.hosts) {
      ScopedVars vars;
      clearPluginInputs(vars);
      vars.set("RAILTUNE_RAIL_MAP", mapPath);
      vars.set("RAILTUNE_HOST", host.name);
      vars.set("RAILTUNE_ENV_TOPO_FILE", "/shared/topo/{host}.xml");
      vars.set("RAILTUNE_ENV_PLUGINS", "net,tuner,profiler");
      topo::LauncherEnvOptions options;
      options.host = host.name;
      options.ncclMinor = release.minor;
      options.topoFile = "/shared/topo/{host}.xml";
      options.pluginDir = pluginDir();
      options.env = processEnv;
      if (!measured.empty()) options.measured = formats::measuredNetOf(measured, source);
      const topo::EnvVars expected = topo::launcherEnv(fabric, options);
      const auto getEnv = release.abi == 2 ? lib.v2()->getEnv : lib.v1()->getEnv;
      if (release.abi == 2)
        ASSERT_EQ(lib.v2()->init(2, release.minor, release.patch, "", captureLogger), ncclSuccess);
      else
        ASSERT_EQ(lib.v1()->init(2, release.minor, release.patch, ""), ncclSuccess);
      for (const std::string& name : namesToAsk(expected)) {
        const auto it = std::find_if(expected.begin(), expected.end(), [&](const auto& v) { return v.first == name; });
        const char* answer = getEnv(name.c_str());
        const std::string where = label + " " + host.name + " NCCL 2." + std::to_string(release.minor) + " " + name;
        if (it == expected.end())
          EXPECT_EQ(answer, nullptr) << where << " = " << answer;
        else
          EXPECT_EQ(answer == nullptr ? "<null>" : std::string(answer), it->second) << where;
      }
      lib.v2()->finalize();
    }
  }
  EXPECT_EQ(LogCapture::instance().warnings().size(), 0u) << LogCapture::instance().dump();
  std::filesystem::remove(mapPath);
}

TEST(EnvPluginAgreement, EveryHostOfTheDefaultClusterAnswersWhatTopoEnvExports) {
  LogCapture::instance().clear();
  const fabric::Fabric fabric = fabric::loadDefaultCluster();
  ASSERT_GT(fabric.hosts.size(), 1u);
  expectPluginAnswersTopoEnv(fabric, "default");
}

// The default cluster as a RoCE fabric that states its switch settings: the QP policy sets NCCL_IB_* values.
TEST(EnvPluginAgreement, EveryHostOfARoceDefaultClusterAnswersWhatTopoEnvExports) {
  LogCapture::instance().clear();
  fabric::Fabric fabric = fabric::loadDefaultCluster();
  fabric.network.linkLayer = "Ethernet";
  fabric.network.adaptiveRouting = true;
  fabric.network.trafficClass = 106;
  fabric.network.serviceLevel = 3;
  for (fabric::Host& host : fabric.hosts)
    for (fabric::Nic& nic : host.nics) {
      nic.linkLayer = "Ethernet";
      nic.gidIndex = 3;
    }
  expectPluginAnswersTopoEnv(fabric, "roce");
}

// Measured settings in the map: the QP policy's (QPs, split, AR) and the others (cross-NIC, channels per peer).
TEST(EnvPluginAgreement, MeasuredSettingsInTheMapAnswerWhatTopoEnvMeasuredExports) {
  LogCapture::instance().clear();
  const formats::MeasuredEnv measured = {{"NCCL_CROSS_NIC", "1"},
                                         {"NCCL_IB_QPS_PER_CONNECTION", "4"},
                                         {"NCCL_IB_SPLIT_DATA_ON_QPS", "1"},
                                         {"NCCL_NCHANNELS_PER_NET_PEER", "2"}};
  const fabric::Fabric fabric = fabric::loadDefaultCluster();
  expectPluginAnswersTopoEnv(fabric, "measured", measured);
  // ...and the measurement did enter both (equal answers that both ignored it would prove nothing).
  ScopedVars vars;
  clearPluginInputs(vars);
  topo::LauncherEnvOptions options;
  options.host = fabric.hosts.front().name;
  options.env = processEnv;
  options.measured = formats::measuredNetOf(measured, "measured");
  const topo::EnvVars exported = topo::launcherEnv(fabric, options);
  const auto value = [&](const std::string& name) {
    for (const auto& [n, v] : exported)
      if (n == name) return v;
    return std::string("<unset>");
  };
  EXPECT_EQ(value("NCCL_CROSS_NIC"), "1");
  EXPECT_EQ(value("NCCL_NCHANNELS_PER_NET_PEER"), "2");
  EXPECT_EQ(value("NCCL_IB_QPS_PER_CONNECTION"), "4");
}

}  // namespace
}  // namespace railtune::testing
