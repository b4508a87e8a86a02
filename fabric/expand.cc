// Compact cluster spec → full fabric model (fabric/expand.h): hosts from the profile, NICs on rails
// and planes, rail groups, one leaf per (rail group, rail, plane), spines and, when there are
// several spines, one core joining them.
#include "fabric/expand.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "fabric/expand_names.h"
#include "fabric/profiles.h"

namespace railtune::fabric {
namespace {

// Far above the largest cluster we know of (114 NVL72 racks = 2,052 hosts); it keeps a typo such as
// `domains: 1000000` from allocating gigabytes before anything can report it.
constexpr long kMaxHosts = 32768;

[[noreturn]] void fail(const ClusterSpec& spec, const std::string& message) {
  throw std::invalid_argument(spec.loc.str() + ": " + message);
}

struct Resolved {
  const Profile* profile = nullptr;
  int trays = 0, rails = 0, planes = 0, leafSpeedGbps = 0;
  std::string linkLayer;
};

Resolved resolve(const ClusterSpec& spec) {
  Resolved r;
  r.profile = findProfile(spec.profile);
  if (!r.profile) fail(spec, "profile: unknown profile '" + spec.profile + "' (known: " + profileNameList() + ")");
  const Profile& p = *r.profile;
  r.trays = spec.trays < 0 ? p.trays : spec.trays;
  r.rails = spec.rails < 0 ? static_cast<int>(p.nics.size()) : spec.rails;
  r.planes = spec.planes < 0 ? p.planes : spec.planes;
  r.linkLayer = spec.linkLayer.empty() ? p.linkLayer : spec.linkLayer;
  if (spec.domains < 1) fail(spec, "domains: must be at least 1, not " + std::to_string(spec.domains));
  if (r.trays < 1) fail(spec, "trays: must be at least 1, not " + std::to_string(r.trays));
  if (static_cast<long>(spec.domains) * r.trays > kMaxHosts)
    fail(spec, "domains x trays: more than " + std::to_string(kMaxHosts) + " hosts");
  if (r.rails < 1 || r.rails > static_cast<int>(p.nics.size()))
    fail(spec, "rails: " + std::to_string(r.rails) + " is not between 1 and the " + std::to_string(p.nics.size()) +
                   " NICs per host of profile " + p.name);
  if (std::find(p.planeCounts.begin(), p.planeCounts.end(), r.planes) == p.planeCounts.end())
    fail(spec, "planes: profile " + p.name + " NICs cannot expose " + std::to_string(r.planes) + " planes");
  if (r.linkLayer != "InfiniBand" && r.linkLayer != "Ethernet")
    fail(spec, "linkLayer: '" + r.linkLayer + "' is neither InfiniBand nor Ethernet");
  const int portMbps = p.nicSpeedMbps / r.planes;
  r.leafSpeedGbps = spec.leafSpeedGbps < 0 ? portMbps / 1000 : spec.leafSpeedGbps;
  if (r.leafSpeedGbps < 1) fail(spec, "leafSpeedGbps: must be positive");
  return r;
}

}  // namespace

std::string netdevForLinkLayer(const std::string& netdev, const std::string& linkLayer) {
  // systemd's predictable names: the type prefix ("ib" InfiniBand, "en" Ethernet) before the same PCI path
  // ("p3s0", "P2p3s0", "f1"); an mlx5 Ethernet port adds n<phys_port_name> ("np0", "np1" for function 1), as
  // in "enp25s0np0" of a ConnectX RoCE host.
  if (linkLayer == "Ethernet" && netdev.rfind("ib", 0) == 0) {
    std::string port = "0";
    const size_t f = netdev.find_last_of('f');
    if (f != std::string::npos && f + 1 < netdev.size() &&
        netdev.find_first_not_of("0123456789", f + 1) == std::string::npos && f > 2)
      port = netdev.substr(f + 1);
    return "en" + netdev.substr(2) + "np" + port;
  }
  if (linkLayer == "InfiniBand" && netdev.rfind("en", 0) == 0) {
    const size_t np = netdev.rfind("np");
    const bool portSuffix = np != std::string::npos && np > 2 && np + 2 < netdev.size() &&
                            netdev.find_first_not_of("0123456789", np + 2) == std::string::npos;
    return "ib" + netdev.substr(2, portSuffix ? np - 2 : std::string::npos);
  }
  return netdev;
}

namespace {

std::vector<Nic> nicsFor(const Resolved& r) {
  std::vector<Nic> nics;
  const Profile& p = *r.profile;
  for (int rail = 0; rail < r.rails; ++rail) {
    const ProfileNic& source = p.nics[static_cast<size_t>(rail)];
    for (int plane = 0; plane < r.planes; ++plane) {
      const ProfileNicDevice& device =
          r.planes == 1 ? source.single : source.planeDevices.at(static_cast<size_t>(plane));
      Nic nic;
      nic.hca = device.hca;
      nic.netdev = device.netdev;
      nic.busId = device.busId;
      nic.speedMbps = p.nicSpeedMbps / r.planes;
      nic.rail = rail;
      nic.plane = r.planes == 1 ? -1 : plane;
      nic.numa = source.numa;
      nic.nearestGpu = source.nearestGpu;
      nic.linkLayer = r.linkLayer;
      nic.netdev = netdevForLinkLayer(device.netdev, r.linkLayer);
      nic.loc = source.loc;
      nics.push_back(nic);
    }
  }
  return nics;
}

uint64_t parseGuid(const ClusterSpec& spec, const std::string& text, const Host& host, int rail) {
  std::string digits = text;
  const bool prefixed = digits.rfind("0x", 0) == 0 || digits.rfind("0X", 0) == 0;
  if (prefixed) digits = digits.substr(2);
  const bool hex = prefixed && !digits.empty() && digits.size() <= 16 &&
                   digits.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
  const std::string where = " for host " + host.name + " rail " + std::to_string(rail);
  if (!hex)
    fail(spec, "nicGuids: '" + spec.nicGuids + "' gives '" + text + "'" + where +
                   ", not a GUID (0x and 1 to 16 hexadecimal digits)");
  const uint64_t guid = std::stoull(digits, nullptr, 16);
  if (guid == 0) fail(spec, "nicGuids: '" + spec.nicGuids + "' gives 0" + where + ", the value of an unknown GUID");
  return guid;
}

// GUIDs from the spec's pattern: one per NIC ASIC (a rail), shared by its planes, never two NICs alike.
void assignGuids(const ClusterSpec& spec, const NameFields& fields, Host& host,
                 std::unordered_map<uint64_t, std::pair<std::string, int>>& seen) {
  if (spec.nicGuids.empty()) return;
  for (Nic& nic : host.nics) {
    NameFields nicFields = fields;
    nicFields.r = nic.rail;
    nic.guid = parseGuid(spec, formatName(spec.nicGuids, nicFields, "nicGuids"), host, nic.rail);
    const auto [it, added] = seen.try_emplace(nic.guid, host.name, nic.rail);
    if (!added && (it->second.first != host.name || it->second.second != nic.rail))
      fail(spec, "nicGuids: '" + spec.nicGuids + "' gives host " + it->second.first + " rail " +
                     std::to_string(it->second.second) + " and host " + host.name + " rail " +
                     std::to_string(nic.rail) +
                     " the same GUID: each NIC ASIC has its own (use {h} and {r}, or {d}, {t} and {r})");
  }
}

void addDomainsAndHosts(const ClusterSpec& spec, const Resolved& r, Fabric& fabric) {
  std::vector<Nic> nics = nicsFor(r);
  if (!spec.nicLoc.file.empty())
    for (Nic& nic : nics) nic.loc = spec.nicLoc;
  std::unordered_map<uint64_t, std::pair<std::string, int>> guids;
  std::unordered_set<std::string> hostNames;
  for (int d = 0; d < spec.domains; ++d) {
    NvlDomain domain;
    domain.name = formatName(spec.domainPattern, {d, 0, ""}, "domainNames");
    domain.rack = domain.name;
    domain.loc = spec.loc;
    if (fabric.findDomain(domain.name)) fail(spec, "domainNames: two domains named '" + domain.name + "'");
    for (int t = 0; t < r.trays; ++t) {
      Host host;
      host.name = formatName(spec.hostPattern, {d, t, domain.name}, "hostNames");
      // A pattern without {t} (or without the domain) names many hosts alike: one error, not one per host.
      if (!hostNames.insert(host.name).second)
        fail(spec, "hostNames: two hosts named '" + host.name + "' (domain " + domain.name + ", tray " +
                       std::to_string(t) + "): the pattern needs {t}, and {d} or {domain}");
      host.domain = domain.name;
      host.tray = t;
      host.profile = r.profile->name;
      host.cpus = r.profile->cpus;
      host.gpus = r.profile->gpus;
      host.nics = nics;
      host.loc = spec.loc;
      assignGuids(spec, {d, t, domain.name, d * r.trays + t, -1}, host, guids);
      domain.hosts.push_back(host.name);
      fabric.hosts.push_back(std::move(host));
    }
    fabric.domains.push_back(std::move(domain));
  }
}

NvlDomain* mutableDomain(Fabric& fabric, const std::string& name) {
  for (NvlDomain& d : fabric.domains)
    if (d.name == name) return &d;
  return nullptr;
}

// The spec's explicit groups, else consecutive runs of racksPerRailGroup domains named rg0, rg1...
std::vector<RailGroupSpec> groupsFor(const ClusterSpec& spec, const Fabric& fabric) {
  if (!spec.railGroups.empty()) return spec.railGroups;
  const int perGroup = spec.racksPerRailGroup < 0 ? spec.domains : spec.racksPerRailGroup;
  if (perGroup < 1) fail(spec, "racksPerRailGroup: must be at least 1");
  std::vector<RailGroupSpec> groups;
  for (size_t d = 0; d < fabric.domains.size(); ++d) {
    if (d % static_cast<size_t>(perGroup) == 0) groups.push_back({"rg" + std::to_string(groups.size()), {}, ""});
    groups.back().domains.push_back(fabric.domains[d].name);
  }
  return groups;
}

void assignRailGroups(const ClusterSpec& spec, Fabric& fabric) {
  for (const RailGroupSpec& g : groupsFor(spec, fabric)) {
    if (g.name.empty()) fail(spec, "railGroups: a rail group has no name");
    if (fabric.findRailGroup(g.name)) fail(spec, "railGroups: two rail groups named '" + g.name + "'");
    for (const std::string& name : g.domains) {
      NvlDomain* domain = mutableDomain(fabric, name);
      if (!domain) fail(spec, "railGroups: " + g.name + ": unknown domain '" + name + "'");
      if (!domain->railGroup.empty())
        fail(spec, "railGroups: domain '" + name + "' is in both " + domain->railGroup + " and " + g.name);
      domain->railGroup = g.name;
    }
    fabric.network.railGroups.push_back({g.name, g.domains, g.spine.empty() ? "spine0" : g.spine, spec.loc});
  }
  for (const NvlDomain& d : fabric.domains)
    if (d.railGroup.empty()) fail(spec, "railGroups: domain '" + d.name + "' is in no rail group");
}

void addSwitches(const ClusterSpec& spec, const Resolved& r, Fabric& fabric) {
  std::vector<std::string> spines;
  for (const RailGroup& g : fabric.network.railGroups) {
    for (int rail = 0; rail < r.rails; ++rail)
      for (int plane = 0; plane < r.planes; ++plane) {
        Switch leaf;
        leaf.name = g.name + "-leaf-r" + std::to_string(rail) + (r.planes > 1 ? "-p" + std::to_string(plane) : "");
        leaf.rail = rail;
        leaf.plane = r.planes > 1 ? plane : -1;
        leaf.railGroup = g.name;
        leaf.speedGbps = r.leafSpeedGbps;
        leaf.up = {g.spine};
        leaf.loc = spec.loc;
        fabric.network.switches.push_back(std::move(leaf));
      }
    if (std::find(spines.begin(), spines.end(), g.spine) == spines.end()) spines.push_back(g.spine);
  }
  for (const std::string& name : spines) {
    Switch spine{name, SwitchTier::Spine, -1, -1, "", r.leafSpeedGbps, {}, spec.loc};
    if (spines.size() > 1) spine.up = {"core0"};
    fabric.network.switches.push_back(std::move(spine));
  }
  if (spines.size() > 1)
    fabric.network.switches.push_back({"core0", SwitchTier::Core, -1, -1, "", r.leafSpeedGbps, {}, spec.loc});
}

}  // namespace

Fabric expand(const ClusterSpec& spec) {
  const Resolved r = resolve(spec);
  Fabric fabric;
  fabric.name = spec.name;
  fabric.loc = spec.loc;
  fabric.network.rails = r.rails;
  fabric.network.planes = r.planes;
  fabric.network.linkLayer = r.linkLayer;
  addDomainsAndHosts(spec, r, fabric);
  assignRailGroups(spec, fabric);
  addSwitches(spec, r, fabric);
  return fabric;
}

}  // namespace railtune::fabric
