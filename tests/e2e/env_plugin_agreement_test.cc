// The env plugin and `railtune topo env` answer from one function (formats/host_nccl_env.h): for every host of the
// default cluster (and of its RoCE variant, where the QP policy sets NCCL_IB_* values), under NCCL 2.28 (v1), 2.30
// and 2.31 (v2), every NCCL_* variable topo env exports is what the loaded .so answers for that host from the rail map
// written for the same fabric, and the .so answers no NCCL_* variable topo env does not export; a name the user's
// environment sets non-empty is answered with the user's value instead. Both sides read the same process environment,
// which the tests leave as the user set it (one case), and in which they set a user's values of their own (another).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

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

// NCCL_* names the plugin must answer with a given table value for every host (each through expectedAnswer).
using TableValues = std::vector<std::pair<std::string, std::string>>;

// One release and host: the plugin, initialised as that NCCL does, answers every name as topo env exports it, except
// the names the user's environment sets, which it answers with the user's value. Both read the same process
// environment (topo env's QP policy and measured settings read RAILTUNE_NET_QPS and the user's NCCL_* from it).
void expectHostAnswers(const EnvPluginLibrary& lib, const Release& release, const fabric::Fabric& fabric,
                       const fabric::Host& host, const topo::LauncherEnvOptions& base, const std::string& where) {
  topo::LauncherEnvOptions options = base;
  options.host = host.name;
  options.ncclMinor = release.minor;
  const topo::EnvVars expected = topo::launcherEnv(fabric, options);
  const auto getEnv = release.abi == 2 ? lib.v2()->getEnv : lib.v1()->getEnv;
  if (release.abi == 2)
    ASSERT_EQ(lib.v2()->init(2, release.minor, release.patch, "", captureLogger), ncclSuccess);
  else
    ASSERT_EQ(lib.v1()->init(2, release.minor, release.patch, ""), ncclSuccess);
  for (const std::string& name : namesToAsk(expected)) {
    const auto it = std::find_if(expected.begin(), expected.end(), [&](const auto& v) { return v.first == name; });
    const std::optional<std::string> exported = it == expected.end() ? std::nullopt : std::optional(it->second);
    EXPECT_EQ(answerText(getEnv(name.c_str())), expectedAnswer(name, exported))
        << where << " " << host.name << " NCCL 2." << int(release.minor) << " " << name;
  }
  lib.v2()->finalize();
}

// `measured`: settings the map carries (`topo rail-map --measured`), given to topo env as `--measured` gives them.
// `table`: values the map's table must hold for every host, checked on the plugin's answers (expectedAnswer).
void expectPluginAnswersTopoEnv(const fabric::Fabric& fabric, const std::string& label,
                                const formats::MeasuredEnv& measured = {}, const TableValues& table = {}) {
  const std::string mapPath = ::testing::TempDir() + "/env-agreement-" + label + ".json";
  const std::string source = "measured on " + label;
  std::ofstream(mapPath) << fabric::writeRailMap(fabric, measured, source);
  EnvPluginLibrary lib;
  ASSERT_TRUE(lib.loaded()) << dlerror();
  topo::LauncherEnvOptions options;
  options.topoFile = "/shared/topo/{host}.xml";
  options.pluginDir = pluginDir();
  options.env = processEnv;
  if (!measured.empty()) options.measured = formats::measuredNetOf(measured, source);
  for (const Release release : {Release{28, 9, 1}, Release{30, 7, 2}, Release{31, 2, 2}}) {
    for (const fabric::Host& host : fabric.hosts) {
      ScopedVars vars;
      setCaseInputs(vars, {mapPath, host.name, "/shared/topo/{host}.xml", "net,tuner,profiler"});
      expectHostAnswers(lib, release, fabric, host, options, label);
      if (release.abi != 2 || table.empty()) continue;
      ASSERT_EQ(lib.v2()->init(2, release.minor, release.patch, "", captureLogger), ncclSuccess);
      for (const auto& [name, value] : table)
        EXPECT_EQ(answerText(lib.v2()->getEnv(name.c_str())), expectedAnswer(name, value)) << host.name << " " << name;
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
  expectPluginAnswersTopoEnv(fabric, "default");  // the user's environment as it is
  // The second case: a user sets NCCL_* names the table sets, and RAILTUNE_NET_QPS, which both sides' QP policy read.
  ScopedVars user;
  user.set("NCCL_IB_HCA", "=mlx5_9:1");
  user.set("NCCL_CROSS_NIC", "2");
  user.set("RAILTUNE_NET_QPS", "3");
  expectPluginAnswersTopoEnv(fabric, "default-user-set", {}, {{"NCCL_IB_QPS_PER_CONNECTION", "3"}});
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
  // ...and the measurement did enter both (equal answers that both ignored it would prove nothing): the plugin
  // answers the measured values where the user's environment leaves them to the table (RAILTUNE_NET_QPS would
  // decide NCCL_IB_QPS_PER_CONNECTION, so that one is checked on topo env alone, below)...
  expectPluginAnswersTopoEnv(
      fabric, "measured", measured,
      {{"NCCL_CROSS_NIC", "1"}, {"NCCL_IB_SPLIT_DATA_ON_QPS", "1"}, {"NCCL_NCHANNELS_PER_NET_PEER", "2"}});
  // ...and topo env, given no environment (the option's null), exports every one of them.
  topo::LauncherEnvOptions options;
  options.host = fabric.hosts.front().name;
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
