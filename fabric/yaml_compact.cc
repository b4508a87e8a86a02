// The compact form of the cluster description: a profile, how many racks, how many rails, and
// optional overrides; expanded into the full model by fabric/expand.h.
#include <stdexcept>

#include "fabric/expand.h"
#include "fabric/profiles.h"
#include "fabric/yaml_parts.h"

namespace railtune::fabric::yaml {
namespace {

constexpr int kMaxCount = 1 << 20;

std::vector<RailGroupSpec> readRailGroups(const MapReader& root) {
  std::vector<RailGroupSpec> groups;
  for (const YAML::Node& item : root.sequence("railGroups")) {
    const MapReader group(item, root.file(), "railGroup", {"name", "domains", "spine"});
    group.require("name");
    groups.push_back({group.text("name", ""), group.texts("domains"), group.text("spine", "")});
  }
  return groups;
}

ClusterSpec readSpec(const MapReader& map) {
  ClusterSpec spec;
  spec.name = map.text("cluster", spec.name);
  spec.profile = map.text("profile", spec.profile);
  if (!findProfile(spec.profile))
    map.fail("profile", "unknown profile '" + spec.profile + "' (known: " + profileNameList() + ")");
  spec.domains = map.integer("domains", spec.domains, 1, kMaxCount);
  spec.trays = map.integer("trays", spec.trays, 1, kMaxCount);
  spec.rails = map.integer("rails", spec.rails, 1, 1024);
  spec.planes = map.integer("planes", spec.planes, 1, 16);
  spec.linkLayer = map.text("linkLayer", spec.linkLayer);
  spec.domainPattern = map.text("domainNames", spec.domainPattern);
  spec.hostPattern = map.text("hostNames", spec.hostPattern);
  spec.racksPerRailGroup = map.integer("racksPerRailGroup", spec.racksPerRailGroup, 1, kMaxCount);
  spec.railGroups = readRailGroups(map);
  spec.leafSpeedGbps = map.integer("leafSpeedGbps", spec.leafSpeedGbps, 1, 1000000);
  spec.nicGuids = map.text("nicGuids", spec.nicGuids);
  spec.loc = map.loc();
  // The expanded NICs are the user's file's: a finding about them (a missing GUID) points at the key that made
  // them, never at the built-in profile the user does not have.
  spec.nicLoc = spec.loc;
  for (const char* key : {"profile", "rails", "planes"})
    if (map.has(key)) spec.nicLoc = map.locOf(key);
  return spec;
}

// expand() names the offending field first ("<loc>: rails: ..."); point at that key when present.
Fabric expandAt(const ClusterSpec& spec, const MapReader& map) {
  try {
    return expand(spec);
  } catch (const std::invalid_argument& e) {
    std::string message = e.what();
    const std::string prefix = spec.loc.str() + ": ";
    if (message.rfind(prefix, 0) == 0) message = message.substr(prefix.size());
    const std::string field = message.substr(0, message.find_first_of(": "));
    throw FabricError(map.has(field.c_str()) ? map.locOf(field.c_str()) : spec.loc, message);
  }
}

Host& hostFor(Fabric& fabric, const YAML::Node& key, const std::string& file) {
  for (Host& host : fabric.hosts)
    if (key.IsScalar() && host.name == key.Scalar()) return host;
  throw FabricError(locOf(file, key), "overrides.hosts: no host named '" + (key.IsScalar() ? key.Scalar() : "") + "'");
}

void overrideHost(Host& host, const YAML::Node& node, const std::string& file) {
  const MapReader map(node, file, "overrides.hosts." + host.name, {"gpus", "nics"});
  for (const YAML::Node& item : map.sequence("gpus")) {
    const MapReader gpuMap = gpuReader(item, file);
    gpuMap.require("index");
    const int index = gpuMap.integer("index", 0, 0, kMaxCount);
    auto gpu = std::find_if(host.gpus.begin(), host.gpus.end(), [&](const Gpu& g) { return g.index == index; });
    if (gpu == host.gpus.end()) gpuMap.fail("index", "host " + host.name + " has no GPU " + std::to_string(index));
    readGpu(gpuMap, *gpu);
  }
  for (const YAML::Node& item : map.sequence("nics")) {
    const MapReader nicMap = nicReader(item, file);
    nicMap.require("rail");
    const int rail = nicMap.integer("rail", -1, 0, 1023), plane = nicMap.integer("plane", -1, -1, 15);
    auto nic = std::find_if(host.nics.begin(), host.nics.end(),
                            [&](const Nic& n) { return n.rail == rail && n.plane == plane; });
    if (nic == host.nics.end())
      nicMap.fail("rail", "host " + host.name + " has no NIC on rail " + std::to_string(rail) +
                              (plane >= 0 ? " plane " + std::to_string(plane) : " (give its plane)"));
    readNic(nicMap, *nic);
  }
}

void applyOverrides(Fabric& fabric, const MapReader& root) {
  const MapReader overrides(root.map("overrides"), root.file(), "overrides", {"domains", "hosts"});
  for (const auto& entry : overrides.map("domains")) {
    auto domain = std::find_if(fabric.domains.begin(), fabric.domains.end(), [&](const NvlDomain& d) {
      return entry.first.IsScalar() && d.name == entry.first.Scalar();
    });
    if (domain == fabric.domains.end())
      throw FabricError(
          locOf(root.file(), entry.first),
          "overrides.domains: no domain named '" + (entry.first.IsScalar() ? entry.first.Scalar() : "") + "'");
    const MapReader map(entry.second, root.file(), "overrides.domains." + domain->name, {"rack", "cliqueId"});
    domain->rack = map.text("rack", domain->rack);
    domain->cliqueId = map.text("cliqueId", domain->cliqueId);
  }
  for (const auto& entry : overrides.map("hosts"))
    overrideHost(hostFor(fabric, entry.first, root.file()), entry.second, root.file());
}

}  // namespace

Fabric readCompactForm(const YAML::Node& root, const std::string& file) {
  const MapReader map(root, file, "cluster",
                      {"cluster", "profile", "domains", "trays", "rails", "planes", "linkLayer", "adaptiveRouting",
                       "trafficClass", "serviceLevel", "domainNames", "hostNames", "racksPerRailGroup", "railGroups",
                       "leafSpeedGbps", "nicGuids", "overrides"});
  const ClusterSpec spec = readSpec(map);
  Fabric fabric = expandAt(spec, map);
  readSwitchPolicy(map, fabric.network);
  applyOverrides(fabric, map);
  return fabric;
}

}  // namespace railtune::fabric::yaml
