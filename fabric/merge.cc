// mergeFabrics: see merge.h. Host names must be unique across the parts (validate() reports a
// duplicate with both positions); everything else is joined by name.
#include "fabric/merge.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

namespace railtune::fabric {
namespace {

void mergeDomain(Fabric& into, const NvlDomain& domain, Diagnostics& out) {
  auto same = [&](const NvlDomain& d) { return d.name == domain.name; };
  auto existing = std::find_if(into.domains.begin(), into.domains.end(), same);
  if (existing == into.domains.end()) {
    into.domains.push_back(domain);
    return;
  }
  if (existing->cliqueId.empty()) existing->cliqueId = domain.cliqueId;
  if (!domain.cliqueId.empty() && domain.cliqueId != existing->cliqueId)
    out.error(domain.loc, "domain " + domain.name + ": clique " + domain.cliqueId + " differs from " +
                              existing->cliqueId + " (" + existing->loc.str() + ")");
  if (domain.rack != existing->rack && domain.rack != domain.name)
    out.error(domain.loc, "domain " + domain.name + ": rack " + domain.rack + " differs from " + existing->rack + " (" +
                              existing->loc.str() + ")");
  if (existing->railGroup.empty()) existing->railGroup = domain.railGroup;
  existing->hosts.insert(existing->hosts.end(), domain.hosts.begin(), domain.hosts.end());
}

void mergeRailGroup(Network& into, const RailGroup& group, Diagnostics& out) {
  auto existing = std::find_if(into.railGroups.begin(), into.railGroups.end(),
                               [&](const RailGroup& g) { return g.name == group.name; });
  if (existing == into.railGroups.end()) {
    into.railGroups.push_back(group);
    return;
  }
  if (group.spine != existing->spine)
    out.error(group.loc, "rail group " + group.name + ": spine " + group.spine + " differs from " + existing->spine +
                             " (" + existing->loc.str() + ")");
  for (const std::string& d : group.domains)
    if (std::find(existing->domains.begin(), existing->domains.end(), d) == existing->domains.end())
      existing->domains.push_back(d);
}

bool sameSwitch(const Switch& a, const Switch& b) {
  return a.tier == b.tier && a.rail == b.rail && a.plane == b.plane && a.railGroup == b.railGroup &&
         a.speedGbps == b.speedGbps && a.up == b.up;
}

void mergeSwitch(Network& into, const Switch& s, Diagnostics& out) {
  auto existing =
      std::find_if(into.switches.begin(), into.switches.end(), [&](const Switch& x) { return x.name == s.name; });
  if (existing == into.switches.end())
    into.switches.push_back(s);
  else if (!sameSwitch(*existing, s))
    out.error(s.loc, "switch " + s.name + " differs from its declaration at " + existing->loc.str());
}

// A part that states adaptive routing, traffic class or service level (a YAML part; discovery knows
// none of them) sets it; two parts that state different values are an error at the second.
void mergeSwitchPolicy(Network& net, const Fabric& part, Diagnostics& out) {
  const Network& p = part.network;
  if (p.adaptiveRouting && net.adaptiveRouting && *p.adaptiveRouting != *net.adaptiveRouting)
    out.error(part.loc, std::string("network: adaptiveRouting ") + (*p.adaptiveRouting ? "true" : "false") +
                            ", but an earlier part says " + (*net.adaptiveRouting ? "true" : "false"));
  else if (p.adaptiveRouting)
    net.adaptiveRouting = p.adaptiveRouting;
  const std::pair<int Network::*, const char*> fields[] = {{&Network::trafficClass, "trafficClass"},
                                                           {&Network::serviceLevel, "serviceLevel"}};
  for (const auto& [field, name] : fields) {
    if (p.*field >= 0 && net.*field >= 0 && p.*field != net.*field)
      out.error(part.loc, std::string("network: ") + name + " " + std::to_string(p.*field) +
                              ", but an earlier part says " + std::to_string(net.*field));
    else if (p.*field >= 0)
      net.*field = p.*field;
  }
}

void mergeNetwork(Fabric& into, const Fabric& part, bool first, Diagnostics& out) {
  Network& net = into.network;
  if (first) {
    net.rails = part.network.rails;
    net.planes = part.network.planes;
    net.linkLayer = part.network.linkLayer;
  } else if (part.network.rails != net.rails || part.network.planes != net.planes ||
             part.network.linkLayer != net.linkLayer) {
    out.error(part.loc, "network: " + std::to_string(part.network.rails) + " rails x " +
                            std::to_string(part.network.planes) + " planes " + part.network.linkLayer +
                            ", but the first part has " + std::to_string(net.rails) + " x " +
                            std::to_string(net.planes) + " " + net.linkLayer);
  }
  mergeSwitchPolicy(net, part, out);
  for (const RailGroup& g : part.network.railGroups) mergeRailGroup(net, g, out);
  for (const Switch& s : part.network.switches) mergeSwitch(net, s, out);
}

// The same host in two parts (discovered twice, or a stale file) is an error at the second one.
void reportDuplicateHosts(const std::vector<Fabric>& parts, Diagnostics& out) {
  std::map<std::string, const Host*> seen;
  for (const Fabric& part : parts)
    for (const Host& host : part.hosts)
      if (auto [it, fresh] = seen.emplace(host.name, &host); !fresh)
        out.error(host.loc, "host '" + host.name + "' is also declared at " + it->second->loc.str());
}

}  // namespace

Fabric mergeFabrics(const std::vector<Fabric>& parts, const std::string& name, Diagnostics& out) {
  Fabric merged;
  if (parts.empty()) return merged;
  merged.name = name.empty() ? parts.front().name : name;
  merged.loc = parts.front().loc;
  for (size_t i = 0; i < parts.size(); ++i) {
    for (const NvlDomain& d : parts[i].domains) mergeDomain(merged, d, out);
    mergeNetwork(merged, parts[i], i == 0, out);
  }
  reportDuplicateHosts(parts, out);
  // Hosts in domain order, then in the order the parts listed them (their tray order).
  for (NvlDomain& domain : merged.domains) {
    int tray = 0;
    for (const std::string& hostName : domain.hosts)
      for (const Fabric& part : parts)
        if (const Host* host = part.findHost(hostName); host && host->domain == domain.name) {
          merged.hosts.push_back(*host);
          merged.hosts.back().tray = tray++;
          break;
        }
  }
  return merged;
}

}  // namespace railtune::fabric
