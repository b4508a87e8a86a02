#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "formats/nccl_if_list.h"
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
  fabric.network.planes = 2;  // the table is computed from the rail map, which holds planes to the fabric's count
  fabric.hosts[0].nics[0].plane = 0;
  fabric.hosts[0].nics[1].plane = 1;
  fabric.hosts[0].nics[1].rail = 0;
  fabric.hosts[0].nics[1].nearestGpu = 0;
  const EnvVars vars = launcherEnv(fabric, optionsFor("rack00-tray00"));
  EXPECT_EQ(valueOf(vars, "NCCL_IB_HCA"), "=mlx5_0:1:0:0,mlx5_1:1:0:1,mlx5_2:1:2,mlx5_3:1:3");
}

TEST(SchedLauncherEnv, HcaListReadsBackAsNcclReadsIt) {
  // What `topo env` writes, read by the parser the net plugin and doctor use (NCCL's own rules): exact names,
  // every rail NIC accepted on its port and no other, the rail and plane NCCL 2.30 takes from it.
  fabric::Fabric fabric = test::smallCluster(1, 1, 1);
  fabric.network.planes = 2;
  fabric.hosts[0].nics[1].plane = 1;
  const formats::NcclIfList list = formats::parseNcclIfList(
      valueOf(launcherEnv(fabric, optionsFor("rack00-tray00")), "NCCL_IB_HCA"), formats::kMaxIbHcaEntries);
  EXPECT_TRUE(list.exact);
  EXPECT_FALSE(list.exclude);
  ASSERT_EQ(list.entries.size(), fabric.hosts[0].nics.size());
  for (size_t i = 0; i < list.entries.size(); ++i) {
    const fabric::Nic& nic = fabric.hosts[0].nics[i];
    const formats::NcclIfMatch match = formats::matchNcclIfList(list, nic.hca, nic.port);
    EXPECT_TRUE(match.accepted) << nic.hca;
    EXPECT_EQ(match.entry, static_cast<int>(i));
    EXPECT_EQ(list.entries[i].rail, nic.rail);
    EXPECT_EQ(list.entries[i].plane, nic.plane);
    EXPECT_FALSE(formats::matchNcclIfList(list, nic.hca + "0", nic.port).accepted);
    EXPECT_FALSE(formats::matchNcclIfList(list, nic.hca, nic.port + 1).accepted);
  }
}

TEST(SchedLauncherEnv, MoreRailNicsThanNcclKeepsIsAnError) {
  fabric::Fabric fabric = test::smallCluster(1, 1, 1);
  std::vector<fabric::Nic>& nics = fabric.hosts[0].nics;
  const fabric::Nic first = nics.at(0);
  while (nics.size() <= formats::kMaxIbHcaEntries) {
    nics.push_back(first);
    nics.back().hca = "mlx5_" + std::to_string(nics.size() - 1);
  }
  try {
    launcherEnv(fabric, optionsFor("rack00-tray00"));
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "host 'rack00-tray00' has 33 rail NICs; NCCL_IB_HCA holds at most 32");
  }
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

// A RoCE copy of the small cluster: Ethernet rail NICs with the RoCE v2 GID at index 3.
fabric::Fabric roceCluster() {
  fabric::Fabric fabric = test::smallCluster(1, 2, 1);
  fabric.network.linkLayer = "Ethernet";
  for (fabric::Host& host : fabric.hosts)
    for (fabric::Nic& nic : host.nics) {
      nic.linkLayer = "Ethernet";
      nic.gidIndex = 3;
    }
  return fabric;
}

const char* const kQpPolicyVars[] = {"NCCL_IB_QPS_PER_CONNECTION",
                                     "NCCL_IB_SPLIT_DATA_ON_QPS",
                                     "NCCL_IB_ADAPTIVE_ROUTING",
                                     "NCCL_IB_AR_THRESHOLD",
                                     "NCCL_IB_GID_INDEX",
                                     "NCCL_IB_TC",
                                     "NCCL_IB_SL"};

TEST(SchedLauncherEnv, InfiniBandKeepsNcclsQpDefaults) {
  const EnvVars vars = launcherEnv(test::smallCluster(1, 2, 1), optionsFor("rack00-tray00"));
  for (const char* name : kQpPolicyVars) EXPECT_EQ(valueOf(vars, name), "<unset>") << name;
}

TEST(SchedLauncherEnv, RoceWithEcmpGetsFourQpsAndTheGidIndex) {
  const EnvVars vars = launcherEnv(roceCluster(), optionsFor("rack00-tray00"));
  EXPECT_EQ(valueOf(vars, "NCCL_IB_QPS_PER_CONNECTION"), "4");
  EXPECT_EQ(valueOf(vars, "NCCL_IB_GID_INDEX"), "3");
  EXPECT_EQ(valueOf(vars, "NCCL_IB_SPLIT_DATA_ON_QPS"), "<unset>");
  EXPECT_EQ(valueOf(vars, "NCCL_IB_ADAPTIVE_ROUTING"), "<unset>");
  EXPECT_EQ(valueOf(vars, "NCCL_IB_TC"), "<unset>");
  // The QP variables follow NCCL_CROSS_NIC, whatever the NCCL version.
  for (const int minor : {28, 30}) {
    LauncherEnvOptions options = optionsFor("rack00-tray00");
    options.ncclMinor = minor;
    const EnvVars versioned = launcherEnv(roceCluster(), options);
    auto at = [&](const std::string& name) {
      return std::find_if(versioned.begin(), versioned.end(), [&](const auto& v) { return v.first == name; });
    };
    EXPECT_LT(at("NCCL_CROSS_NIC"), at("NCCL_IB_QPS_PER_CONNECTION")) << minor;
    EXPECT_EQ(valueOf(versioned, "NCCL_IB_QPS_PER_CONNECTION"), "4") << minor;
  }
}

TEST(SchedLauncherEnv, RoceWithAdaptiveRoutingAndQosFromTheFabric) {
  fabric::Fabric fabric = roceCluster();
  fabric.network.adaptiveRouting = true;
  fabric.network.trafficClass = 106;
  fabric.network.serviceLevel = 3;
  const EnvVars vars = launcherEnv(fabric, optionsFor("rack00-tray01"));
  EXPECT_EQ(valueOf(vars, "NCCL_IB_ADAPTIVE_ROUTING"), "1");  // what OCI GB300 measured (PR #287)
  EXPECT_EQ(valueOf(vars, "NCCL_IB_QPS_PER_CONNECTION"), "4");
  EXPECT_EQ(valueOf(vars, "NCCL_IB_SPLIT_DATA_ON_QPS"), "1");
  EXPECT_EQ(valueOf(vars, "NCCL_IB_TC"), "106");
  EXPECT_EQ(valueOf(vars, "NCCL_IB_SL"), "3");
}

TEST(SchedLauncherEnv, InfiniBandWithoutAdaptiveRoutingKeepsNcclsDefault) {
  // No measurement supports turning NCCL's AR sequence off, so nothing is exported (docs/qp-policy.md).
  fabric::Fabric fabric = test::smallCluster(1, 1, 1);
  fabric.network.adaptiveRouting = false;
  EXPECT_EQ(valueOf(launcherEnv(fabric, optionsFor("rack00-tray00")), "NCCL_IB_ADAPTIVE_ROUTING"), "<unset>");
}

TEST(SchedLauncherEnv, RailNicsThatDisagreeOnTheGidIndexLeaveItToNccl) {
  fabric::Fabric fabric = roceCluster();
  fabric.hosts[0].nics[2].gidIndex = -1;
  EXPECT_EQ(valueOf(launcherEnv(fabric, optionsFor("rack00-tray00")), "NCCL_IB_GID_INDEX"), "<unset>");
  EXPECT_EQ(valueOf(launcherEnv(fabric, optionsFor("rack00-tray01")), "NCCL_IB_GID_INDEX"), "3");
}

std::optional<std::string> qpsEnv(const char* name) {
  if (std::string(name) == "RAILTUNE_NET_QPS") return "2";
  return std::nullopt;
}

TEST(SchedLauncherEnv, RailtuneNetQpsFromTheEnvironmentIsExported) {
  LauncherEnvOptions options = optionsFor("rack00-tray00");
  options.env = qpsEnv;
  EXPECT_EQ(valueOf(launcherEnv(roceCluster(), options), "NCCL_IB_QPS_PER_CONNECTION"), "2");
  EXPECT_EQ(valueOf(launcherEnv(test::smallCluster(1, 1, 1), options), "NCCL_IB_QPS_PER_CONNECTION"), "2");
  EXPECT_EQ(launcherQpPolicy(roceCluster(), options).why.front().source, "RAILTUNE_NET_QPS");
}

TEST(SchedLauncherEnv, FabricShapeOfAHost) {
  fabric::Fabric fabric = roceCluster();
  fabric::Host& host = fabric.hosts[0];
  host.nics[1].rail = 0;  // rail 0 with two planes, rail 1 gone
  host.nics[0].plane = 0;
  host.nics[1].plane = 1;
  host.nics[3].speedMbps = 200000;
  const qp::FabricShape shape = fabricShape(fabric, host.name);
  EXPECT_EQ(shape.linkLayer, qp::LinkLayer::Ethernet);
  EXPECT_EQ(shape.rails, 3);
  EXPECT_EQ(shape.planes, 2);
  EXPECT_EQ(shape.speedMbps, 200000);
  EXPECT_EQ(shape.gidIndex, 3);
  EXPECT_FALSE(shape.adaptiveRouting.has_value());
  EXPECT_THROW(fabricShape(fabric, "nowhere"), std::invalid_argument);
}

}  // namespace
}  // namespace railtune::topo
