// The env plugin's table without loading the .so: formats::hostNcclEnv over hand-built rail maps (the host's NIC
// filter and order, NCCL's 32-HCA limit, multi-tray NVLink domains, the map's measured settings and the user's
// environment over them, NCCL's version switch), and HostTable / buildHostTable as the plugin's init uses them.
#include <gtest/gtest.h>

#include <string>

#include "env_plugin/host_table.h"
#include "formats/host_nccl_env.h"
#include "tests/support/fake_env.h"

namespace railtune::envplugin {
namespace {

using formats::NcclEnvVars;
using testing::fakeEnv;
using testing::fakeEnvVars;

formats::RailMapNic nic(const std::string& hca, int rail, int plane = -1) {
  formats::RailMapNic n;
  n.hca = hca;
  n.rail = rail;
  n.plane = plane;
  n.speedMbps = 400000;
  return n;
}

// `hosts` hosts in one NVLink domain, each with `gpus` GPUs and one NIC per GPU on rail = GPU index.
formats::RailMap railMap(int hosts, int gpus) {
  formats::RailMap map;
  map.cluster = "c";
  map.rails = gpus;
  for (int h = 0; h < hosts; ++h) {
    formats::RailMapHost host;
    host.name = "tray" + std::to_string(h);
    host.domain = "rack0";
    for (int g = 0; g < gpus; ++g) {
      formats::RailMapGpu gpu;
      gpu.index = g;
      gpu.nics.push_back(nic("mlx5_" + std::to_string(g), g));
      host.gpus.push_back(gpu);
    }
    map.hosts.push_back(host);
  }
  return map;
}

std::string valueOf(const NcclEnvVars& vars, const std::string& name) {
  for (const auto& [n, v] : vars)
    if (n == name) return v;
  return "<unset>";
}

TEST(EnvPluginTable, HcasInRailThenPlaneOrderWhateverGpuServesThem) {
  formats::RailMap map = railMap(1, 2);
  map.planes = 2;
  map.hosts[0].gpus[0].nics = {nic("mlx5_3", 1, 1), nic("mlx5_2", 1, 0)};  // GPU 0 on rail 1, listed plane 1 first
  map.hosts[0].gpus[1].nics = {nic("mlx5_0", 0, 0)};
  const NcclEnvVars vars = formats::hostNcclEnv(map, map.hosts[0], {});
  EXPECT_EQ(valueOf(vars, "NCCL_IB_HCA"), "=mlx5_0:1:0:0,mlx5_2:1:1:0,mlx5_3:1:1:1");
  formats::HostNcclEnvOptions options;
  options.ncclMinor = 28;
  options.onlyGpu = 0;
  EXPECT_EQ(valueOf(formats::hostNcclEnv(map, map.hosts[0], options), "NCCL_IB_HCA"), "=mlx5_2:1,mlx5_3:1");
}

TEST(EnvPluginTable, ClearErrorsForOldNcclNoNicsAndTooManyHcas) {
  formats::RailMap map = railMap(1, 33);
  formats::HostNcclEnvOptions options;
  EXPECT_THROW(formats::hostNcclEnv(map, map.hosts[0], options), std::invalid_argument);  // 33 > NCCL's 32
  map = railMap(1, 2);
  options.onlyGpu = 7;
  EXPECT_THROW(formats::hostNcclEnv(map, map.hosts[0], options), std::invalid_argument);
  options.onlyGpu = -1;
  options.ncclMinor = 27;
  EXPECT_THROW(formats::hostNcclEnv(map, map.hosts[0], options), std::invalid_argument);
}

TEST(EnvPluginTable, MultiTrayDomainsGetMnnvlAndSingleTraysDoNot) {
  formats::RailMap map = railMap(2, 4);
  EXPECT_EQ(valueOf(formats::hostNcclEnv(map, map.hosts[0], {}), "NCCL_MNNVL_ENABLE"), "1");
  map.hosts[1].domain = "rack1";
  EXPECT_EQ(valueOf(formats::hostNcclEnv(map, map.hosts[0], {}), "NCCL_MNNVL_ENABLE"), "<unset>");
  EXPECT_EQ(valueOf(formats::hostNcclEnv(map, map.hosts[0], {}), "NCCL_CUMEM_ENABLE"), "<unset>");
}

TEST(EnvPluginTable, TheMapsMeasuredSettingsApplyUnlessTheUserSetsThem) {
  formats::RailMap map = railMap(1, 4);
  map.network.measured = {{"NCCL_CROSS_NIC", "1"}, {"NCCL_NCHANNELS_PER_NET_PEER", "4"}};
  map.network.measuredSource = "measured on c";
  fakeEnvVars().clear();
  formats::HostNcclEnvOptions options;
  options.env = fakeEnv;
  NcclEnvVars vars = formats::hostNcclEnv(map, map.hosts[0], options);
  EXPECT_EQ(valueOf(vars, "NCCL_CROSS_NIC"), "1");  // replaces the rail policy's 0 in place
  EXPECT_EQ(vars[1].first, "NCCL_CROSS_NIC");
  EXPECT_EQ(valueOf(vars, "NCCL_NCHANNELS_PER_NET_PEER"), "4");
  fakeEnvVars()["NCCL_NCHANNELS_PER_NET_PEER"] = "2";
  vars = formats::hostNcclEnv(map, map.hosts[0], options);
  EXPECT_EQ(valueOf(vars, "NCCL_NCHANNELS_PER_NET_PEER"), "<unset>");  // the user's own value is NCCL's to read
  fakeEnvVars().clear();
}

TEST(EnvPluginTable, FindAnswersOnlyTheTablesNames) {
  const HostTable table({{"NCCL_IB_HCA", "=mlx5_0:1"}, {"NCCL_CROSS_NIC", "0"}});
  EXPECT_STREQ(table.find("NCCL_IB_HCA"), "=mlx5_0:1");
  EXPECT_EQ(table.find("NCCL_IB_HC"), nullptr);
  EXPECT_EQ(table.find("NCCL_IB_HCA_"), nullptr);
  EXPECT_EQ(table.find("PATH"), nullptr);
  EXPECT_EQ(table.find(""), nullptr);
  EXPECT_EQ(table.find("NCCL_IB_HCA"), table.find("NCCL_IB_HCA"));  // the same storage every time
}

TEST(EnvPluginTable, NewerMajorCountsAsNewestMinor) {
  EXPECT_EQ(tableMinor(2, 28), 28);
  EXPECT_EQ(tableMinor(2, 31), 31);
  EXPECT_EQ(tableMinor(3, 0), 99);
}

TEST(EnvPluginTable, BuildSaysWhyThereIsNoTable) {
  fakeEnvVars().clear();
  TableInputs inputs;
  inputs.env = fakeEnv;
  EXPECT_NE(buildHostTable(inputs).problem.find("RAILTUNE_RAIL_MAP is not set"), std::string::npos);
  fakeEnvVars()["RAILTUNE_RAIL_MAP"] = std::string(RAILTUNE_SOURCE_DIR) + "/docs/formats/rail-map.example.json";
  fakeEnvVars()["RAILTUNE_HOST"] = "dgx-h100-01";
  fakeEnvVars()["RAILTUNE_ENV_PLUGINS"] = "tuner";
  const TableResult noDir = buildHostTable(inputs);  // asked to name plugins without knowing their folder
  EXPECT_NE(noDir.problem.find("RAILTUNE_ENV_PLUGINS"), std::string::npos) << noDir.problem;
  inputs.pluginDir = "/opt/railtune/lib";
  const TableResult built = buildHostTable(inputs);
  ASSERT_TRUE(built.problem.empty()) << built.problem;
  EXPECT_STREQ(built.table->find("NCCL_TUNER_PLUGIN"), "/opt/railtune/lib/libnccl-tuner-railtune.so");
  EXPECT_EQ(built.table->find("NCCL_PROFILER_PLUGIN"), nullptr);
  fakeEnvVars().clear();
}

}  // namespace
}  // namespace railtune::envplugin
