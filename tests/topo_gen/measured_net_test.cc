// Measured network settings from a railtune.net-env/1 file to both consumers of the QP policy: `railtune topo env`
// (topo_gen/launcher_env.h, topo_gen/measured_net.h) and the rail map the net plugin reads (`network.measured`,
// fabric/rail_map_write.h and formats/rail_map.h). docs/qp-policy.md, "Measured settings".
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>

#include "fabric/default_cluster.h"
#include "fabric/rail_map_write.h"
#include "formats/net_env.h"
#include "formats/rail_map.h"
#include "topo_gen/launcher_env.h"
#include "topo_gen/measured_net.h"

namespace railtune::topo {
namespace {

std::map<std::string, std::string>& userEnv() {
  static std::map<std::string, std::string> vars;
  return vars;
}
std::optional<std::string> userLookup(const char* name) {
  const auto it = userEnv().find(name);
  return it == userEnv().end() ? std::nullopt : std::optional<std::string>(it->second);
}

std::string valueOf(const EnvVars& vars, const std::string& name) {
  std::string out = "<unset>";
  int seen = 0;
  for (const auto& [k, v] : vars)
    if (k == name) out = v, ++seen;
  return seen > 1 ? "<twice>" : out;
}

// The default cluster (GB300 NVL72, 800 Gb/s InfiniBand): an entry for it and one for another fabric.
formats::NetEnvFile measuredFile() {
  formats::NetEnvFile file;
  file.generatedBy = "test";
  formats::NetEnvEntry e;
  e.shape = {144, 2, 2, 72, "NVIDIA GB300", {"IB", "IB", 800}};
  e.collective = "allreduce";
  e.env = {{"NCCL_CROSS_NIC", "1"},
           {"NCCL_IB_QPS_PER_CONNECTION", "8"},
           {"NCCL_IB_SPLIT_DATA_ON_QPS", "1"},
           {"NCCL_NCHANNELS_PER_NET_PEER", "4"},
           {"NCCL_NET_MERGE_POLICY", "NONE"},
           {"NCCL_SOCKET_NTHREADS", "2"}};
  e.evidence = {{1 << 20, 1u << 30}, 0.05, 0.2, 0.3, 3, 3, 0.02, 0};
  file.entries.push_back(e);
  e.shape.fabric.linkLayer = "RoCE";
  e.env = {{"NCCL_IB_QPS_PER_CONNECTION", "2"}};
  file.entries.push_back(e);
  return file;
}

class MeasuredNetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    userEnv().clear();
    dir_ = ::testing::TempDir() + "measured_net_" + std::to_string(getpid());
    std::filesystem::create_directories(dir_);
    path_ = dir_ + "/net-env.json";
    std::ofstream(path_) << formats::writeNetEnv(measuredFile());
  }
  void TearDown() override {
    userEnv().clear();
    std::filesystem::remove_all(dir_);
  }
  LauncherEnvOptions options(const fabric::Fabric& fabric) const {
    LauncherEnvOptions o;
    o.host = fabric.hosts.front().name;
    o.env = userLookup;
    o.measured = measuredForHost(fabric, o.host, path_).measured;
    return o;
  }
  std::string dir_, path_;
};

TEST_F(MeasuredNetTest, TheClusterIsDescribedAsTheEntriesAreMatched) {
  const formats::NetEnvCluster cluster = netEnvClusterOf(fabric::loadDefaultCluster(), "rack00-tray00");
  EXPECT_EQ(cluster.gpuModel, "B300");
  EXPECT_TRUE(cluster.grace);
  EXPECT_EQ(cluster.linkLayer, "IB");
  EXPECT_EQ(cluster.nicGbps, 800);
}

TEST_F(MeasuredNetTest, TopoEnvExportsTheMeasuredSettingsWithTheirSource) {
  const fabric::Fabric fabric = fabric::loadDefaultCluster();
  const LauncherEnvOptions o = options(fabric);
  const EnvVars vars = launcherEnv(fabric, o);
  EXPECT_EQ(valueOf(vars, "NCCL_IB_QPS_PER_CONNECTION"), "8");
  EXPECT_EQ(valueOf(vars, "NCCL_IB_SPLIT_DATA_ON_QPS"), "1");
  EXPECT_EQ(valueOf(vars, "NCCL_CROSS_NIC"), "1");  // in place of the rail policy's 0
  EXPECT_EQ(valueOf(vars, "NCCL_NCHANNELS_PER_NET_PEER"), "4");
  EXPECT_EQ(valueOf(vars, "NCCL_SOCKET_NTHREADS"), "2");      // another NCCL variable, as written
  EXPECT_EQ(valueOf(vars, "NCCL_NET_MERGE_POLICY"), "RAIL");  // set from the fabric: the fabric's value stays
  const qp::QpPolicy policy = launcherQpPolicy(fabric, o);
  EXPECT_EQ(policy.why.front().source.rfind("measured: net-env.json, allreduce on 144 ranks on 2 nodes", 0), 0u)
      << policy.why.front().source;
  for (const qp::Decision& d : measuredNcclDecisions(o.measured, o.env)) {
    EXPECT_TRUE(d.changed) << d.variable;
    EXPECT_EQ(d.source.rfind("measured: ", 0), 0u) << d.variable;
  }
}

TEST_F(MeasuredNetTest, TheUsersVariablesWinOverMeasuredOnes) {
  userEnv()["NCCL_IB_QPS_PER_CONNECTION"] = "2";
  userEnv()["NCCL_NCHANNELS_PER_NET_PEER"] = "2";
  userEnv()["NCCL_CROSS_NIC"] = "2";
  const fabric::Fabric fabric = fabric::loadDefaultCluster();
  const LauncherEnvOptions o = options(fabric);
  const EnvVars vars = launcherEnv(fabric, o);
  EXPECT_EQ(valueOf(vars, "NCCL_IB_QPS_PER_CONNECTION"), "2");
  EXPECT_EQ(valueOf(vars, "NCCL_NCHANNELS_PER_NET_PEER"), "<unset>");  // the user's own stays in force
  EXPECT_EQ(valueOf(vars, "NCCL_CROSS_NIC"), "0");                     // as without a measurement
  EXPECT_EQ(valueOf(vars, "NCCL_IB_SPLIT_DATA_ON_QPS"), "1");          // not set by the user: measured
  for (const qp::Decision& d : measuredNcclDecisions(o.measured, o.env))
    if (d.variable != "NCCL_SOCKET_NTHREADS" && d.variable != "NCCL_NET_MERGE_POLICY") {
      EXPECT_FALSE(d.changed) << d.variable;
      EXPECT_NE(d.source.find("set in the environment"), std::string::npos) << d.source;
    }
}

TEST_F(MeasuredNetTest, AFileForAnotherFabricChangesNothing) {
  fabric::Fabric fabric = fabric::loadDefaultCluster();
  for (fabric::Host& host : fabric.hosts)
    for (fabric::Nic& nic : host.nics) nic.speedMbps = 400000;  // 400 Gb/s: no entry is for it
  const formats::NetEnvChoice choice = measuredForHost(fabric, fabric.hosts.front().name, path_);
  EXPECT_FALSE(choice.entry);
  ASSERT_EQ(choice.notes.size(), 1u);
  EXPECT_NE(choice.notes[0].find("no entry is for this cluster (B300 (Grace), IB 400 Gb/s)"), std::string::npos)
      << choice.notes[0];
  LauncherEnvOptions o;
  o.host = fabric.hosts.front().name;
  const EnvVars without = launcherEnv(fabric, o);
  o.measured = choice.measured;
  EXPECT_EQ(launcherEnv(fabric, o), without);
}

TEST_F(MeasuredNetTest, TheRailMapCarriesTheMeasuredSettingsToTheNetPluginsPolicy) {
  const fabric::Fabric fabric = fabric::loadDefaultCluster();
  const formats::NetEnvChoice choice = measuredForHost(fabric, fabric.hosts.front().name, path_);
  ASSERT_TRUE(choice.entry);
  const std::string text = fabric::writeRailMap(fabric, choice.entry->env, choice.measured.source);
  const formats::RailMap map = formats::parseRailMap(text, "rail-map.json");
  formats::MeasuredEnv sorted = choice.entry->env;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(map.network.measured, sorted);
  EXPECT_EQ(map.network.measuredSource, choice.measured.source);
  // The same policy for both consumers, host by host, with the same sources.
  for (const fabric::Host& host : fabric.hosts) {
    const qp::FabricShape fromMap = formats::fabricShapeOf(map, map.findHost(host.name));
    qp::FabricShape fromModel = fabricShape(fabric, host.name);
    fromModel.measured = choice.measured;
    EXPECT_EQ(qp::describe(qp::chooseQpPolicy(fromMap, nullptr), false),
              qp::describe(qp::chooseQpPolicy(fromModel, nullptr), false))
        << host.name;
    EXPECT_EQ(qp::chooseQpPolicy(fromMap, nullptr).qpsPerConnection, 8);
  }
  // Without a measurement the map is byte for byte what it was.
  EXPECT_EQ(fabric::writeRailMap(fabric, {}, ""), fabric::writeRailMap(fabric));
}

TEST_F(MeasuredNetTest, AMalformedMeasuredObjectInTheRailMapIsNamed) {
  const fabric::Fabric fabric = fabric::loadDefaultCluster();
  const std::string good =
      fabric::writeRailMap(fabric, {{"NCCL_IB_QPS_PER_CONNECTION", "8"}}, "measured: net-env.json");
  const std::pair<std::string, std::string> cases[][1] = {
      {{"\"NCCL_IB_QPS_PER_CONNECTION\": \"8\"", "\"NCCL_IB_QPS_PER_CONNECTION\": \"200\""}},
      {{"\"NCCL_IB_QPS_PER_CONNECTION\": \"8\"", "\"NCCL_ALGO\": \"Ring\""}},
      {{"\"NCCL_IB_QPS_PER_CONNECTION\": \"8\"", "\"NCCL_IB_QPS_PER_CONNECTION\": 8"}},
      {{"\"source\": \"measured: net-env.json\",", ""}},
      {{"\"source\": \"measured: net-env.json\",", "\"source\": \"\","}},
      {{"\"source\": \"measured: net-env.json\",", "\"source\": \"m\", \"qps\": 8,"}},
  };
  const char* messages[] = {"'NCCL_IB_QPS_PER_CONNECTION' must be a decimal integer from 1 to 128",
                            "'NCCL_ALGO' is a choice the sweep forces",
                            "'NCCL_IB_QPS_PER_CONNECTION' must be a string",
                            "missing field 'source'",
                            "field 'source' is empty",
                            "unknown field 'qps'"};
  for (size_t i = 0; i < std::size(cases); ++i) {
    std::string text = good;
    const size_t at = text.find(cases[i][0].first);
    ASSERT_NE(at, std::string::npos) << cases[i][0].first << "\n" << text.substr(0, 600);
    text.replace(at, cases[i][0].first.size(), cases[i][0].second);
    try {
      formats::parseRailMap(text, "map.json");
      ADD_FAILURE() << "accepted: " << cases[i][0].second;
    } catch (const formats::RailMapError& e) {
      EXPECT_NE(std::string(e.what()).find(messages[i]), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("network measured"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("map.json:", 0), 0u) << e.what();
    }
  }
}

}  // namespace
}  // namespace railtune::topo
