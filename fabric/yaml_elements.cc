// GPU and NIC entries of the cluster description: the full form's lists and the compact form's
// per-host overrides read the same keys.
#include "fabric/yaml_parts.h"

namespace railtune::fabric::yaml {

MapReader gpuReader(const YAML::Node& node, const std::string& file) {
  return MapReader(node, file, "gpu", {"index", "busId", "sm", "numa", "nvlinks", "c2cLinks", "c2cBwMBps", "model"});
}

MapReader nicReader(const YAML::Node& node, const std::string& file) {
  return MapReader(node, file, "nic",
                   {"hca", "netdev", "busId", "port", "speedMbps", "guid", "rail", "plane", "numa", "nearestGpu",
                    "linkLayer", "gidIndex", "gid"});
}

void readGpu(const MapReader& map, Gpu& gpu) {
  gpu.index = map.integer("index", gpu.index, 0, kMaxIndex);
  gpu.busId = map.busId("busId", gpu.busId);
  gpu.sm = map.integer("sm", gpu.sm, 0, 1000);
  gpu.numa = map.integer("numa", gpu.numa, 0, kMaxIndex);
  gpu.nvlinks = map.integer("nvlinks", gpu.nvlinks, 0, 64);
  gpu.c2cLinks = map.integer("c2cLinks", gpu.c2cLinks, 0, 64);
  gpu.c2cBwMBps = map.integer("c2cBwMBps", gpu.c2cBwMBps, 0, 10000000);
  gpu.model = map.text("model", gpu.model);
  gpu.loc = map.loc();
}

void readNic(const MapReader& map, Nic& nic) {
  nic.hca = map.text("hca", nic.hca);
  nic.netdev = map.text("netdev", nic.netdev);
  nic.busId = map.busId("busId", nic.busId);
  nic.port = map.integer("port", nic.port, 1, 255);
  nic.speedMbps = map.integer("speedMbps", nic.speedMbps, 0, 100000000);
  nic.guid = map.guid("guid", nic.guid);
  nic.rail = map.integer("rail", nic.rail, -1, 1023);
  nic.plane = map.integer("plane", nic.plane, -1, 15);
  nic.numa = map.integer("numa", nic.numa, 0, kMaxIndex);
  nic.nearestGpu = map.integer("nearestGpu", nic.nearestGpu, -1, kMaxIndex);
  nic.linkLayer = map.text("linkLayer", nic.linkLayer);
  if (nic.linkLayer != "InfiniBand" && nic.linkLayer != "Ethernet")
    map.fail("linkLayer", "expected InfiniBand or Ethernet, got '" + nic.linkLayer + "'");
  nic.gidIndex = map.integer("gidIndex", nic.gidIndex, -1, 65535);
  nic.gid = map.text("gid", nic.gid);
  if (!nic.gid.empty() && !isGidText(nic.gid))
    map.fail("gid", "expected a GID as sysfs prints it (8 groups of 4 hex digits), got '" + nic.gid + "'");
  nic.loc = map.loc();
}

}  // namespace railtune::fabric::yaml
