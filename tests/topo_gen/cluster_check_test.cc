// `topo check`'s checks called as a library (topo_gen/cluster_check.h), without the CLI: what each file given
// adds to the findings and to the per-file lines.
#include "topo_gen/cluster_check.h"

#include <gtest/gtest.h>

#include <string>

namespace railtune::topo {
namespace {

const std::string kData = RAILTUNE_SOURCE_DIR "/tests/data";

TEST(ClusterCheck, TheBuiltInClusterPassesEveryCheck) {
  const ClusterCheck check = checkCluster({});
  EXPECT_EQ(check.diagnostics.errorCount(), 0u);
  ASSERT_EQ(check.files.size(), 1u);
  EXPECT_EQ(check.files[0].line().rfind("the built-in default cluster: ok (2 NVLink domains, 36 hosts, 4 rails", 0), 0u)
      << check.files[0].line();
}

TEST(ClusterCheck, AnUnknownKeyIsAFindingAtItsPositionAndTheFileFails) {
  const std::string path = kData + "/fabric/unknown_key.yaml";
  const ClusterCheck check = checkCluster({.fabric = path});
  ASSERT_EQ(check.diagnostics.errorCount(), 1u);
  EXPECT_EQ(check.diagnostics.all()[0].str().rfind(path + ":4:1: error: cluster: unknown key 'rials'", 0), 0u)
      << check.diagnostics.all()[0].str();
  ASSERT_EQ(check.files.size(), 1u);
  EXPECT_EQ(check.files[0].errors, 1u);
  // Reading goes on past an unknown key, so the model is still checked and described.
  EXPECT_EQ(
      check.files[0].line().rfind(path + ": 1 error(s) (1 NVLink domains, 18 hosts, 4 rails x 1 planes); checked: ", 0),
      0u)
      << check.files[0].line();
}

TEST(ClusterCheck, ARailMapThePluginsWouldRefuseIsCheckedAsTheyReadIt) {
  const std::string good = kData + "/golden/rail_map/gb300-2racks.json";
  const ClusterCheck clean = checkCluster({.railMap = good});
  EXPECT_EQ(clean.diagnostics.errorCount(), 0u);
  ASSERT_EQ(clean.files.size(), 2u);
  EXPECT_EQ(clean.files[1].line().rfind(good + ": ok (36 hosts, 4 rails x 1 planes)", 0), 0u) << clean.files[1].line();

  const std::string bad = kData + "/fabric/bad_rail_map.json";
  const ClusterCheck refused = checkCluster({.railMap = bad});
  ASSERT_EQ(refused.files.size(), 2u);
  EXPECT_GT(refused.files[1].errors, 0u);
  EXPECT_EQ(refused.files[0].errors, 0u);  // the description's own line stays clean
  for (const fabric::Diagnostic& d : refused.diagnostics.all()) EXPECT_EQ(d.loc.file, bad) << d.str();
}

TEST(ClusterCheck, ATopologyFileThatCannotBeReadIsAFindingNotAnException) {
  const std::string rails = kData + "/golden/rail_map/gb300-2racks.json";
  const std::string xml = kData + "/fabric/no-such-topo.xml";
  const ClusterCheck check = checkCluster({.railMap = rails, .topoFile = xml});
  ASSERT_EQ(check.files.size(), 3u);
  EXPECT_GT(check.files[2].errors, 0u);
  EXPECT_EQ(check.files[2].line().rfind(xml + ": ", 0), 0u) << check.files[2].line();
}

}  // namespace
}  // namespace railtune::topo
