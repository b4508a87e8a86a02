#include <gtest/gtest.h>

#include "tests/topo_gen/sched_fixture.h"
#include "topo_gen/launcher_env.h"

namespace railtune::topo {
namespace {

std::string valueOf(const EnvVars& vars, const std::string& name) {
  for (const auto& [k, v] : vars)
    if (k == name) return v;
  return "<unset>";
}

LauncherEnvOptions optionsFor(const std::string& host) {
  LauncherEnvOptions options;
  options.host = host;
  return options;
}

TEST(SchedLauncherEnv, RailHcasExactMatchCrossNicOffAndMnnvl) {
  const fabric::Fabric fabric = test::smallCluster(2, 18, 2);
  const EnvVars vars = launcherEnv(fabric, optionsFor("rack01-tray05"));
  EXPECT_EQ(valueOf(vars, "NCCL_IB_HCA"), "=mlx5_0:1:0,mlx5_1:1:1,mlx5_2:1:2,mlx5_3:1:3");
  EXPECT_EQ(valueOf(vars, "NCCL_CROSS_NIC"), "0");
  EXPECT_EQ(valueOf(vars, "NCCL_NET_MERGE_POLICY"), "RAIL");
  EXPECT_EQ(valueOf(vars, "NCCL_MNNVL_ENABLE"), "1");
  EXPECT_EQ(valueOf(vars, "NCCL_CUMEM_ENABLE"), "1");
  // NCCL's default (use NVLS where multicast works) is kept: "1" would skip NCCL's own check.
  EXPECT_EQ(valueOf(vars, "NCCL_NVLS_ENABLE"), "<unset>");
  EXPECT_EQ(valueOf(vars, "NCCL_TOPO_FILE"), "<unset>");
  EXPECT_EQ(valueOf(vars, "CUDA_VISIBLE_DEVICES"), "<unset>");
  EXPECT_EQ(valueOf(vars, "NCCL_NET"), "<unset>");
}

TEST(SchedLauncherEnv, Nccl228HasNoMergePolicyNorRailFields) {
  const fabric::Fabric fabric = test::smallCluster(1, 2, 1);
  LauncherEnvOptions options = optionsFor("rack00-tray00");
  options.ncclMinor = 28;
  const EnvVars vars = launcherEnv(fabric, options);
  EXPECT_EQ(valueOf(vars, "NCCL_IB_HCA"), "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1");
  EXPECT_EQ(valueOf(vars, "NCCL_NET_MERGE_POLICY"), "<unset>");
  options.ncclMinor = 27;
  EXPECT_THROW(launcherEnv(fabric, options), std::invalid_argument);
}

TEST(SchedLauncherEnv, PlanesAppearInTheHcaListFrom230) {
  fabric::Fabric fabric = test::smallCluster(1, 1, 1);
  fabric.hosts[0].nics[0].plane = 0;
  fabric.hosts[0].nics[1].plane = 1;
  fabric.hosts[0].nics[1].rail = 0;
  fabric.hosts[0].nics[1].nearestGpu = 0;
  const EnvVars vars = launcherEnv(fabric, optionsFor("rack00-tray00"));
  EXPECT_EQ(valueOf(vars, "NCCL_IB_HCA"), "=mlx5_0:1:0:0,mlx5_1:1:0:1,mlx5_2:1:2,mlx5_3:1:3");
}

TEST(SchedLauncherEnv, SingleTrayDomainGetsNoMnnvl) {
  const fabric::Fabric fabric = test::smallCluster(2, 1, 1);
  const EnvVars vars = launcherEnv(fabric, optionsFor("rack01-tray00"));
  EXPECT_EQ(valueOf(vars, "NCCL_MNNVL_ENABLE"), "<unset>");
  EXPECT_EQ(valueOf(vars, "NCCL_NVLS_ENABLE"), "<unset>");
}

TEST(SchedLauncherEnv, PerRankOptionsNeedAndUseTheLocalRank) {
  const fabric::Fabric fabric = test::smallCluster(1, 2, 1);
  LauncherEnvOptions options = optionsFor("rack00-tray01");
  options.oneHcaPerRank = true;
  options.isolateGpu = true;
  EXPECT_THROW(launcherEnv(fabric, options), std::invalid_argument);
  options.localRank = 2;
  const EnvVars vars = launcherEnv(fabric, options);
  EXPECT_EQ(valueOf(vars, "NCCL_IB_HCA"), "=mlx5_2:1:2");
  EXPECT_EQ(valueOf(vars, "CUDA_VISIBLE_DEVICES"), "2");
  options.localRank = 4;
  try {
    launcherEnv(fabric, options);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "local rank 4 has no GPU on host 'rack00-tray01' (it has 4)");
  }
}

TEST(SchedLauncherEnv, PathsAreAbsoluteAndTopoFileTakesTheHost) {
  const fabric::Fabric fabric = test::smallCluster(1, 2, 1);
  LauncherEnvOptions options = optionsFor("rack00-tray01");
  options.topoFile = "/etc/railtune/topo/{host}.xml";
  options.railMap = "/etc/railtune/./rail-map.json";
  options.pluginDir = "/opt/railtune/lib/";
  const EnvVars vars = launcherEnv(fabric, options);
  EXPECT_EQ(valueOf(vars, "NCCL_TOPO_FILE"), "/etc/railtune/topo/rack00-tray01.xml");
  EXPECT_EQ(valueOf(vars, "RAILTUNE_RAIL_MAP"), "/etc/railtune/rail-map.json");
  EXPECT_EQ(valueOf(vars, "NCCL_NET_PLUGIN"), "/opt/railtune/lib/libnccl-net-railtune.so");
  EXPECT_EQ(valueOf(vars, "NCCL_TUNER_PLUGIN"), "/opt/railtune/lib/libnccl-tuner-railtune.so");
  EXPECT_EQ(valueOf(vars, "NCCL_PROFILER_PLUGIN"), "/opt/railtune/lib/libnccl-profiler-railtune.so");
  options.topoFile = "relative.xml";
  EXPECT_EQ(valueOf(launcherEnv(fabric, options), "NCCL_TOPO_FILE").front(), '/');
}

TEST(SchedLauncherEnv, NeverSetsNcclNetWhateverTheOptions) {
  const fabric::Fabric fabric = test::smallCluster(2, 3, 1);
  for (const fabric::Host& host : fabric.hosts)
    for (int minor : {28, 29, 30, 31})
      for (int flags = 0; flags < 4; ++flags) {
        LauncherEnvOptions options = optionsFor(host.name);
        options.ncclMinor = minor;
        options.localRank = 1;
        options.isolateGpu = (flags & 1) != 0;
        options.oneHcaPerRank = (flags & 2) != 0;
        options.pluginDir = "/opt/railtune/lib";
        for (const auto& [name, value] : launcherEnv(fabric, options)) EXPECT_NE(name, "NCCL_NET");
      }
}

TEST(SchedLauncherEnv, UnknownHostAndHostWithoutRailsAreClearErrors) {
  fabric::Fabric fabric = test::smallCluster(1, 1, 1);
  try {
    launcherEnv(fabric, optionsFor("elsewhere"));
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "host 'elsewhere' is not in fabric 'sched-test'");
  }
  for (fabric::Nic& nic : fabric.hosts[0].nics) nic.rail = -1;
  EXPECT_THROW(launcherEnv(fabric, optionsFor("rack00-tray00")), std::invalid_argument);
}

TEST(SchedLauncherEnv, ExportLinesQuoteValues) {
  EXPECT_EQ(exportLines({{"A", "=mlx5_0:1"}, {"B", "/a b/c"}, {"C", "it's"}, {"D", ""}}),
            "export A='=mlx5_0:1'\nexport B='/a b/c'\nexport C='it'\\''s'\nexport D=''\n");
}

}  // namespace
}  // namespace railtune::topo
