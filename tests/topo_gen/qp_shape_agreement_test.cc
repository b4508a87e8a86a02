// The QP policy's two consumers read the same facts: `railtune topo env` builds its fabric shape from the
// fabric model (topo_gen/launcher_env.h, fabricShape), the net plugin's verbs transport from the rail map
// written from that model (formats/rail_map.h, fabricShapeOf). For every host of a fabric the two shapes,
// and so the two policies, must be equal (docs/qp-policy.md).
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "fabric/default_cluster.h"
#include "fabric/rail_map_write.h"
#include "fabric/yaml_reader.h"
#include "formats/rail_map.h"
#include "topo_gen/launcher_env.h"

namespace railtune::topo {
namespace {

void expectSameShape(const qp::FabricShape& fromModel, const qp::FabricShape& fromMap, const std::string& host) {
  EXPECT_EQ(fromModel.linkLayer, fromMap.linkLayer) << host;
  EXPECT_EQ(fromModel.rails, fromMap.rails) << host;
  EXPECT_EQ(fromModel.planes, fromMap.planes) << host;
  EXPECT_EQ(fromModel.speedMbps, fromMap.speedMbps) << host;
  EXPECT_EQ(fromModel.adaptiveRouting, fromMap.adaptiveRouting) << host;
  EXPECT_EQ(fromModel.gidIndex, fromMap.gidIndex) << host;
  EXPECT_EQ(fromModel.trafficClass, fromMap.trafficClass) << host;
  EXPECT_EQ(fromModel.serviceLevel, fromMap.serviceLevel) << host;
  const std::string fromModelWhy = qp::describe(qp::chooseQpPolicy(fromModel, nullptr), false);
  EXPECT_EQ(fromModelWhy, qp::describe(qp::chooseQpPolicy(fromMap, nullptr), false)) << host;
}

// Every host: topo env's shape against the shape of the rail map written for the same fabric.
void expectConsumersAgree(const fabric::Fabric& fabric) {
  const formats::RailMap map = formats::parseRailMap(fabric::writeRailMap(fabric), "rail-map.json");
  ASSERT_EQ(map.hosts.size(), fabric.hosts.size());
  for (const fabric::Host& host : fabric.hosts) {
    const formats::RailMapHost* mapped = map.findHost(host.name);
    ASSERT_NE(mapped, nullptr) << host.name;
    expectSameShape(fabricShape(fabric, host.name), formats::fabricShapeOf(map, mapped), host.name);
  }
}

// The default cluster as a RoCE fabric that states its switch settings (Spectrum-X with adaptive routing).
fabric::Fabric roceDefaultCluster(std::optional<bool> adaptiveRouting) {
  fabric::Fabric fabric = fabric::loadDefaultCluster();
  fabric.network.linkLayer = "Ethernet";
  fabric.network.adaptiveRouting = adaptiveRouting;
  fabric.network.trafficClass = 106;
  fabric.network.serviceLevel = 3;
  for (fabric::Host& host : fabric.hosts)
    for (fabric::Nic& nic : host.nics) {
      nic.linkLayer = "Ethernet";
      nic.gidIndex = 3;
    }
  return fabric;
}

TEST(QpShapeAgreement, DefaultCluster) {
  expectConsumersAgree(fabric::loadDefaultCluster());
}

TEST(QpShapeAgreement, RoceWithAdaptiveRoutingTrafficClassServiceLevelAndGidIndex) {
  const fabric::Fabric fabric = roceDefaultCluster(true);
  expectConsumersAgree(fabric);
  // The case that drifted: AR on with OCI GB300's measured 4 QPs split, not four QPs with AR off.
  const formats::RailMap map = formats::parseRailMap(fabric::writeRailMap(fabric), "rail-map.json");
  const qp::QpPolicy policy = qp::chooseQpPolicy(formats::fabricShapeOf(map, &map.hosts.front()), nullptr);
  EXPECT_EQ(policy.qpsPerConnection, 4);
  EXPECT_TRUE(policy.splitDataOnQps);
  EXPECT_TRUE(policy.adaptiveRouting);
  EXPECT_EQ(policy.gidIndex, 3);
  EXPECT_EQ(policy.trafficClass, 106);
  EXPECT_EQ(policy.serviceLevel, 3);
}

TEST(QpShapeAgreement, RoceWithEcmpAndInfiniBandWithoutAdaptiveRouting) {
  expectConsumersAgree(roceDefaultCluster(false));
  expectConsumersAgree(roceDefaultCluster(std::nullopt));
  fabric::Fabric ib = fabric::loadDefaultCluster();
  ib.network.adaptiveRouting = false;
  ib.network.serviceLevel = 5;
  expectConsumersAgree(ib);
}

TEST(QpShapeAgreement, DiscoveredHosts) {
  for (const char* name : {"roce-h100.yaml", "gb300-tray.yaml", "gb300-tray-2plane.yaml"})
    expectConsumersAgree(
        fabric::loadFabricFile(std::string(RAILTUNE_SOURCE_DIR) + "/tests/data/golden/discover/" + name));
}

}  // namespace
}  // namespace railtune::topo
