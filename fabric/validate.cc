// Fabric consistency checks (fabric/validate.h).
#include "fabric/validate.h"

#include <map>
#include <set>
#include <string>
#include <utility>

#include "fabric/profiles.h"
#include "formats/names.h"

namespace railtune::fabric {
namespace {

void checkHostNames(const Fabric& fabric, Diagnostics& out) {
  std::map<std::string, const Host*> seen;
  for (const Host& host : fabric.hosts) {
    auto [it, fresh] = seen.emplace(host.name, &host);
    if (!fresh)
      out.error(host.loc, "host '" + host.name + "' is declared twice (first at " + it->second->loc.str() + ")");
  }
}

// Host and domain names become Kubernetes node and object names and file names under an output
// folder; a rack name is a label value (formats/names.h, docs/fabric.md "Names").
void checkNames(const Fabric& fabric, Diagnostics& out) {
  for (const NvlDomain& domain : fabric.domains) {
    if (const std::string why = formats::dnsSubdomainProblem(domain.name); !why.empty())
      out.error(domain.loc, "domain name '" + formats::printableName(domain.name) + "' " + why);
    if (domain.rack.empty() || domain.rack == domain.name) continue;
    if (const std::string why = formats::labelValueProblem(domain.rack); !why.empty())
      out.error(domain.loc, "domain " + formats::printableName(domain.name) + ": rack '" +
                                formats::printableName(domain.rack) + "' " + why);
  }
  for (const Host& host : fabric.hosts)
    if (const std::string why = formats::dnsSubdomainProblem(host.name); !why.empty())
      out.error(host.loc, "host name '" + formats::printableName(host.name) + "' " + why);
}

void checkBusIds(const Host& host, Diagnostics& out) {
  std::map<std::string, std::string> owner;  // bus id -> what uses it
  auto claim = [&](const std::string& busId, const std::string& what, const SourceLoc& loc) {
    if (busId.empty()) return;
    auto [it, fresh] = owner.emplace(busId, what);
    if (!fresh)
      out.error(loc, "host " + host.name + ": " + what + " has bus id " + busId + ", already used by " + it->second);
  };
  for (const Gpu& gpu : host.gpus) claim(gpu.busId, "GPU " + std::to_string(gpu.index), gpu.loc);
  // Two planes of one NIC may be two functions of one device, never the same function.
  for (const Nic& nic : host.nics) claim(nic.busId, "NIC " + nic.hca, nic.loc);
}

// The (rail, plane) pairs of a host, its rail signature.
std::set<std::pair<int, int>> railsOf(const Host& host) {
  std::set<std::pair<int, int>> rails;
  for (const Nic& nic : host.nics)
    if (nic.rail >= 0) rails.emplace(nic.rail, nic.plane);
  return rails;
}

std::string describe(const std::set<std::pair<int, int>>& rails) {
  std::string text;
  for (const auto& [rail, plane] : rails)
    text += (text.empty() ? "" : " ") + std::to_string(rail) + (plane >= 0 ? "/" + std::to_string(plane) : "");
  return "{" + text + "}";
}

void checkNics(const Fabric& fabric, Diagnostics& out) {
  const Host* reference = nullptr;
  std::set<std::pair<int, int>> referenceRails;
  for (const Host& host : fabric.hosts) {
    for (const Nic& nic : host.nics) {
      if (nic.rail < 0) out.error(nic.loc, "host " + host.name + ": NIC " + nic.hca + " has no rail");
      // Not fatal for the XML or the schedulers, but the rail map pairs every NIC with a GPU.
      if (nic.nearestGpu < 0) {
        out.warning(nic.loc, "host " + host.name + ": NIC " + nic.hca +
                                 " has no nearestGpu; `railtune topo rail-map` cannot pair it with a GPU");
      }
    }
    const auto rails = railsOf(host);
    if (!reference) {
      reference = &host;
      referenceRails = rails;
    } else if (rails != referenceRails) {
      out.error(host.loc, "host " + host.name + " has rails/planes " + describe(rails) + " but " + reference->name +
                              " has " + describe(referenceRails) + ": rails must be the same on every host");
    }
  }
}

void checkNvlinks(const Host& host, Diagnostics& out) {
  const Profile* profile = host.profile.empty() ? nullptr : findProfile(host.profile);
  if (!profile) return;
  for (const Gpu& gpu : host.gpus)
    if (gpu.nvlinks < profile->gpu.nvlinks)
      out.error(gpu.loc, "host " + host.name + ": GPU " + std::to_string(gpu.index) + " has " +
                             std::to_string(gpu.nvlinks) + " NVLinks, profile " + profile->name + " has " +
                             std::to_string(profile->gpu.nvlinks) + " (NCCL would lose NVLS or NVLink paths)");
}

// More hosts in one NVLink domain than its hardware holds (20 trays in an NVL72 rack of 18) is most
// likely a typo; NCCL would size MNNVL cliques from it. A warning: custom racks exist.
void checkDomainSizes(const Fabric& fabric, Diagnostics& out) {
  for (const NvlDomain& domain : fabric.domains) {
    const Host* first = domain.hosts.empty() ? nullptr : fabric.findHost(domain.hosts.front());
    const Profile* profile = first && !first->profile.empty() ? findProfile(first->profile) : nullptr;
    if (profile && static_cast<int>(domain.hosts.size()) > profile->trays)
      out.warning(domain.loc, "domain " + domain.name + " has " + std::to_string(domain.hosts.size()) +
                                  " hosts, more than the " + std::to_string(profile->trays) +
                                  " of one NVLink domain of profile " + profile->name);
  }
}

void checkRailGroups(const Fabric& fabric, Diagnostics& out) {
  std::map<std::string, std::string> groupOf;
  for (const RailGroup& group : fabric.network.railGroups)
    for (const std::string& domain : group.domains) {
      if (!fabric.findDomain(domain))
        out.error(group.loc, "rail group " + group.name + ": unknown domain '" + domain + "'");
      auto [it, fresh] = groupOf.emplace(domain, group.name);
      if (!fresh)
        out.error(group.loc, "domain " + domain + " is in two rail groups: " + it->second + " and " + group.name);
    }
  for (const NvlDomain& domain : fabric.domains)
    if (!groupOf.count(domain.name)) out.error(domain.loc, "domain " + domain.name + " is in no rail group");
}

void checkLeaves(const Fabric& fabric, Diagnostics& out) {
  std::set<std::pair<int, int>> rails;
  for (const Host& host : fabric.hosts) rails.merge(railsOf(host));
  for (const RailGroup& group : fabric.network.railGroups)
    for (const auto& [rail, plane] : rails)
      if (!fabric.leafFor(group.name, rail, plane))
        out.error(group.loc, "rail group " + group.name + " has no leaf for rail " + std::to_string(rail) +
                                 (plane >= 0 ? " plane " + std::to_string(plane) : ""));
}

}  // namespace

void validate(const Fabric& fabric, Diagnostics& out) {
  checkNames(fabric, out);
  checkHostNames(fabric, out);
  for (const Host& host : fabric.hosts) {
    checkBusIds(host, out);
    checkNvlinks(host, out);
  }
  checkNics(fabric, out);
  checkDomainSizes(fabric, out);
  checkRailGroups(fabric, out);
  checkLeaves(fabric, out);
}

}  // namespace railtune::fabric
