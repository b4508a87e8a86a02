#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <set>

#include "tests/topo_gen/sched_fixture.h"
#include "topo_gen/labels.h"

namespace railtune::topo {
namespace {

std::string labelOf(const NodeLabels& node, const std::string& key) {
  for (const auto& [k, v] : node.labels)
    if (k == key) return v;
  return "<absent>";
}

TEST(SchedLabels, EveryHostLabelledWithItsDomainRackTrayAndRailGroup) {
  const fabric::Fabric fabric = test::smallCluster(3, 5, 2);
  const std::vector<NodeLabels> nodes = nodeLabels(fabric, {});
  ASSERT_EQ(nodes.size(), fabric.hosts.size());
  std::set<std::string> seen;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const fabric::Host& host = fabric.hosts[i];
    EXPECT_EQ(nodes[i].node, host.name);
    EXPECT_TRUE(seen.insert(nodes[i].node).second);
    EXPECT_EQ(labelOf(nodes[i], "railtune.io/nvlink-domain"), host.domain);
    EXPECT_EQ(labelOf(nodes[i], "railtune.io/rack"), host.domain);
    EXPECT_EQ(labelOf(nodes[i], "railtune.io/tray"), std::to_string(host.tray));
    EXPECT_EQ(labelOf(nodes[i], "railtune.io/rail-group"), host.domain == "rack02" ? "rg1" : "rg0");
    EXPECT_EQ(labelOf(nodes[i], "railtune.io/spine"), "spine0");
    EXPECT_EQ(labelOf(nodes[i], "railtune.io/clique"), "<absent>");
    EXPECT_EQ(labelOf(nodes[i], "accelerator.topograph.run/domain"), "<absent>");
    for (const auto& [key, value] : nodes[i].labels) {
      EXPECT_TRUE(isValidLabelValue(value)) << key << "=" << value;
      EXPECT_NE(key, "nvidia.com/gpu.clique");
    }
  }
}

TEST(SchedLabels, CliqueOnlyWhenKnownAndNeverTheGfdKey) {
  fabric::Fabric fabric = test::smallCluster(1, 2, 1);
  fabric.domains[0].cliqueId = "6f2f1b5e-0000-4000-8000-000000000001.32766";
  const std::vector<NodeLabels> nodes = nodeLabels(fabric, {});
  EXPECT_EQ(labelOf(nodes[0], "railtune.io/clique"), "6f2f1b5e-0000-4000-8000-000000000001.32766");
  EXPECT_EQ(labelOf(nodes[0], "nvidia.com/gpu.clique"), "<absent>");
}

TEST(SchedLabels, TopographCompatAddsDomainAndTiers) {
  const fabric::Fabric fabric = test::smallCluster(2, 2, 1);
  const std::vector<NodeLabels> nodes = nodeLabels(fabric, {true});
  EXPECT_EQ(labelOf(nodes[0], "accelerator.topograph.run/domain"), "rack00");
  EXPECT_EQ(labelOf(nodes[0], "fabric.topograph.run/tier-0"), "rg0");
  EXPECT_EQ(labelOf(nodes[0], "fabric.topograph.run/tier-1"), "spine0");
  EXPECT_EQ(labelOf(nodes[3], "fabric.topograph.run/tier-0"), "rg1");
}

TEST(SchedLabels, InvalidValuesAreHashedLikeTopograph) {
  EXPECT_EQ(labelValue("rack01"), "rack01");
  EXPECT_EQ(labelValue(""), "");
  const std::string long64(64, 'a');
  const std::string hashed = labelValue(long64);
  EXPECT_EQ(hashed.size(), 17u);
  EXPECT_EQ(hashed[0], 'x');
  EXPECT_TRUE(isValidLabelValue(hashed));
  EXPECT_EQ(labelValue(long64), hashed) << "hashing is deterministic";
  EXPECT_NE(labelValue(std::string(65, 'a')), hashed);
  EXPECT_EQ(labelValue("a"), "a");
  EXPECT_EQ(labelValue(std::string(63, 'a')), std::string(63, 'a'));
  // FNV-1a-64 of "rack 1", computed independently (a space is not allowed in a label value).
  EXPECT_EQ(labelValue("rack 1"), "x2eac1d826c86b3e5");
  EXPECT_FALSE(isValidLabelValue("-rack"));
  EXPECT_FALSE(isValidLabelValue("rack/1"));
  EXPECT_TRUE(isValidLabelValue("Rack_1.a-b"));
}

TEST(SchedLabels, JsonAndKubectlCarryTheSameLabels) {
  const fabric::Fabric fabric = test::smallCluster(1, 3, 1);
  const std::vector<NodeLabels> nodes = nodeLabels(fabric, {});
  const nlohmann::json json = nlohmann::json::parse(labelsJson(nodes));
  ASSERT_EQ(json.size(), 3u);
  EXPECT_EQ(json["rack00-tray02"]["railtune.io/tray"], "2");
  const std::string script = labelsKubectlScript(nodes);
  EXPECT_NE(script.find("kubectl label node rack00-tray02 railtune.io/nvlink-domain=rack00 railtune.io/rack=rack00 "
                        "railtune.io/tray=2 railtune.io/rail-group=rg0 railtune.io/spine=spine0 --overwrite\n"),
            std::string::npos)
      << script;
}

TEST(SchedLabels, KubectlScriptQuotesOddNodeNames) {
  fabric::Fabric fabric = test::smallCluster(1, 1, 1);
  fabric.hosts[0].name = "it's";
  const std::string script = labelsKubectlScript(nodeLabels(fabric, {}));
  EXPECT_NE(script.find("kubectl label node 'it'\\''s' "), std::string::npos) << script;
}

TEST(SchedLabels, UnknownDomainIsAClearError) {
  fabric::Fabric fabric = test::smallCluster(1, 1, 1);
  fabric.hosts[0].domain = "nowhere";
  try {
    nodeLabels(fabric, {});
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "host 'rack00-tray00' names NVLink domain 'nowhere', which the fabric does not declare");
  }
}

}  // namespace
}  // namespace railtune::topo
