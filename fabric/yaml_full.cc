// The full form of the cluster description: every domain, host, GPU, NIC and switch written out.
#include <algorithm>

#include "fabric/yaml_parts.h"

namespace railtune::fabric::yaml {
namespace {

Cpu readCpu(const MapReader& map) {
  Cpu cpu;
  cpu.numa = map.integer("numa", 0, 0, kMaxIndex);
  const std::string arch = map.text("arch", "arm64");
  if (arch == "x86_64")
    cpu.arch = CpuArch::X86_64;
  else if (arch == "ppc64")
    cpu.arch = CpuArch::Ppc64;
  else if (arch != "arm64")
    map.fail("arch", "expected arm64, x86_64 or ppc64, got '" + arch + "'");
  cpu.vendor = map.text("vendor", "");
  cpu.affinity = map.text("affinity", "");
  cpu.familyId = map.integer("familyId", -1, -1, kMaxIndex);
  cpu.modelId = map.integer("modelId", -1, -1, kMaxIndex);
  cpu.loc = map.loc();
  return cpu;
}

Host readHost(const YAML::Node& node, const std::string& file, const std::string& domain, int tray) {
  const MapReader map(node, file, "host", {"name", "profile", "cpus", "gpus", "nics"});
  map.require("name");
  Host host;
  host.name = map.text("name", "");
  host.domain = domain;
  host.tray = tray;
  host.profile = map.text("profile", "");
  host.loc = map.loc();
  for (const YAML::Node& item : map.sequence("cpus"))
    host.cpus.push_back(
        readCpu(MapReader(item, file, "cpu", {"numa", "arch", "vendor", "affinity", "familyId", "modelId"})));
  for (const YAML::Node& item : map.sequence("gpus")) {
    const MapReader gpuMap = gpuReader(item, file);
    gpuMap.require("index");
    gpuMap.require("busId");
    Gpu gpu;
    readGpu(gpuMap, gpu);
    host.gpus.push_back(gpu);
  }
  for (const YAML::Node& item : map.sequence("nics")) {
    const MapReader nicMap = nicReader(item, file);
    nicMap.require("hca");
    Nic nic;
    readNic(nicMap, nic);
    host.nics.push_back(nic);
  }
  return host;
}

void readDomain(const YAML::Node& node, const std::string& file, Fabric& fabric) {
  const MapReader map(node, file, "domain", {"name", "rack", "cliqueId", "railGroup", "hosts"});
  map.require("name");
  NvlDomain domain;
  domain.name = map.text("name", "");
  domain.rack = map.text("rack", domain.name);
  domain.cliqueId = map.text("cliqueId", "");
  domain.railGroup = map.text("railGroup", "");
  domain.loc = map.loc();
  int tray = 0;
  for (const YAML::Node& item : map.sequence("hosts")) {
    Host host = readHost(item, file, domain.name, tray++);
    domain.hosts.push_back(host.name);
    fabric.hosts.push_back(std::move(host));
  }
  fabric.domains.push_back(std::move(domain));
}

Switch readSwitch(const YAML::Node& node, const std::string& file) {
  const MapReader map(node, file, "switch", {"name", "tier", "rail", "plane", "railGroup", "speedGbps", "up"});
  map.require("name");
  Switch s;
  s.name = map.text("name", "");
  const std::string tier = map.text("tier", "leaf");
  if (tier == "spine")
    s.tier = SwitchTier::Spine;
  else if (tier == "core")
    s.tier = SwitchTier::Core;
  else if (tier != "leaf")
    map.fail("tier", "expected leaf, spine or core, got '" + tier + "'");
  s.rail = map.integer("rail", -1, -1, kMaxIndex);
  s.plane = map.integer("plane", -1, -1, kMaxIndex);
  s.railGroup = map.text("railGroup", "");
  s.speedGbps = map.integer("speedGbps", 0, 0, kMaxIndex);
  s.up = map.texts("up");
  s.loc = map.loc();
  return s;
}

// A domain may name its rail group itself; the group then lists it (declared once is enough).
void joinRailGroups(Fabric& fabric) {
  for (const NvlDomain& domain : fabric.domains) {
    if (domain.railGroup.empty()) continue;
    auto group = std::find_if(fabric.network.railGroups.begin(), fabric.network.railGroups.end(),
                              [&](const RailGroup& g) { return g.name == domain.railGroup; });
    if (group == fabric.network.railGroups.end())
      throw FabricError(domain.loc, "domain " + domain.name + ": unknown rail group '" + domain.railGroup + "'");
    if (std::find(group->domains.begin(), group->domains.end(), domain.name) == group->domains.end())
      group->domains.push_back(domain.name);
  }
  for (const RailGroup& group : fabric.network.railGroups)
    for (NvlDomain& domain : fabric.domains)
      if (domain.railGroup.empty() &&
          std::find(group.domains.begin(), group.domains.end(), domain.name) != group.domains.end())
        domain.railGroup = group.name;
}

}  // namespace

void readSwitchPolicy(const MapReader& map, Network& net) {
  net.adaptiveRouting = map.boolean("adaptiveRouting");
  net.trafficClass = map.integer("trafficClass", -1, 0, 255);
  net.serviceLevel = map.integer("serviceLevel", -1, 0, 15);
}

namespace {

void readNetwork(const YAML::Node& node, const std::string& file, Fabric& fabric) {
  const MapReader map(
      node, file, "network",
      {"rails", "planes", "linkLayer", "adaptiveRouting", "trafficClass", "serviceLevel", "railGroups", "switches"});
  Network& net = fabric.network;
  net.rails = map.integer("rails", 0, 0, kMaxIndex);
  net.planes = map.integer("planes", 1, 1, 16);
  net.linkLayer = map.text("linkLayer", "InfiniBand");
  readSwitchPolicy(map, net);
  for (const YAML::Node& item : map.sequence("railGroups")) {
    const MapReader group(item, file, "railGroup", {"name", "domains", "spine"});
    group.require("name");
    net.railGroups.push_back({group.text("name", ""), group.texts("domains"), group.text("spine", ""), group.loc()});
  }
  for (const YAML::Node& item : map.sequence("switches")) net.switches.push_back(readSwitch(item, file));
}

}  // namespace

Fabric readFullForm(const YAML::Node& root, const std::string& file) {
  const MapReader map(root, file, "cluster", {"cluster", "domains", "network"});
  Fabric fabric;
  fabric.name = map.text("cluster", "cluster");
  fabric.loc = map.loc();
  for (const YAML::Node& item : map.sequence("domains")) readDomain(item, file, fabric);
  readNetwork(map.map("network"), file, fabric);
  joinRailGroups(fabric);
  return fabric;
}

}  // namespace railtune::fabric::yaml
