// The QP policy's fabric shape from a rail map (rail_map.h, fabricShapeOf). `railtune topo env` builds the same
// shape from the fabric model (topo_gen/launcher_env.cc, fabricShape); tests/topo_gen/qp_shape_agreement_test.cc
// holds the two to the same answer for the map written from that model.
#include <algorithm>
#include <map>
#include <set>

#include "formats/rail_map.h"

namespace railtune::formats {

qp::FabricShape fabricShapeOf(const RailMap& map, const RailMapHost* host, const qp::FabricShape& unstated) {
  qp::FabricShape shape = unstated;
  const RailMapNetwork& net = map.network;
  if (net.linkLayer) shape.linkLayer = *net.linkLayer;
  if (net.adaptiveRouting) shape.adaptiveRouting = net.adaptiveRouting;
  if (net.trafficClass >= 0) shape.trafficClass = net.trafficClass;
  if (net.serviceLevel >= 0) shape.serviceLevel = net.serviceLevel;
  if (net.gidIndex >= 0) shape.gidIndex = net.gidIndex;
  if (!net.measured.empty()) shape.measured = measuredNetOf(net.measured, net.measuredSource);

  std::map<int, std::set<int>> planesByRail;
  int slowest = -1;
  if (host != nullptr)
    for (const RailMapGpu& gpu : host->gpus)
      for (const RailMapNic& nic : gpu.nics) {
        planesByRail[nic.rail].insert(nic.plane);
        slowest = slowest < 0 ? nic.speedMbps : std::min(slowest, nic.speedMbps);
      }
  if (planesByRail.empty()) {
    shape.rails = std::max(map.rails, 1);
    shape.planes = std::max(map.planes, 1);
    return shape;
  }
  shape.rails = static_cast<int>(planesByRail.size());
  shape.planes = 1;
  for (const auto& [rail, planes] : planesByRail)
    shape.planes = std::max(shape.planes, static_cast<int>(planes.size()));
  shape.speedMbps = slowest;
  return shape;
}

}  // namespace railtune::formats
