#include "emulator/net_job/job_plan.h"

#include <algorithm>

namespace railtune::emu::netjob {
namespace {

std::vector<const formats::RailMapHost*> hostsByName(const formats::RailMap& map,
                                                     const std::vector<std::string>& names) {
  std::vector<const formats::RailMapHost*> out;
  for (const std::string& name : names) {
    const formats::RailMapHost* host = map.findHost(name);
    if (host == nullptr) throw PlanError("--hosts: the rail map has no host '" + name + "'");
    if (std::find(out.begin(), out.end(), host) != out.end()) throw PlanError("--hosts: '" + name + "' given twice");
    out.push_back(host);
  }
  return out;
}

// The first `perRack` hosts of each of the map's first `racks` NVLink domains, domain by domain.
std::vector<const formats::RailMapHost*> hostsOverRacks(const formats::RailMap& map, int racks, int needed) {
  if (needed % racks != 0)
    throw PlanError(std::to_string(needed) + " host(s) cannot be spread evenly over " + std::to_string(racks) +
                    " rack(s): choose --ranks as a multiple of racks x GPUs per host");
  std::vector<std::string> domains;
  for (const auto& host : map.hosts)
    if (std::find(domains.begin(), domains.end(), host.domain) == domains.end()) domains.push_back(host.domain);
  if (static_cast<int>(domains.size()) < racks)
    throw PlanError("--racks " + std::to_string(racks) + ": the rail map has " + std::to_string(domains.size()) +
                    " NVLink domain(s)");
  const size_t perRack = static_cast<size_t>(needed / racks);
  std::vector<const formats::RailMapHost*> out;
  for (int d = 0; d < racks; ++d) {
    std::vector<const formats::RailMapHost*> inDomain;
    for (const auto& host : map.hosts)
      if (host.domain == domains[static_cast<size_t>(d)] && inDomain.size() < perRack) inDomain.push_back(&host);
    if (inDomain.size() < perRack)
      throw PlanError("domain '" + domains[static_cast<size_t>(d)] + "' has " + std::to_string(inDomain.size()) +
                      " host(s), " + std::to_string(perRack) + " needed");
    out.insert(out.end(), inDomain.begin(), inDomain.end());
  }
  return out;
}

std::vector<const formats::RailMapHost*> chooseHosts(const formats::RailMap& map, const PlacementOptions& options,
                                                     int needed) {
  if (!options.hosts.empty()) {
    auto hosts = hostsByName(map, options.hosts);
    if (static_cast<int>(hosts.size()) != needed)
      throw PlanError("--hosts names " + std::to_string(hosts.size()) + " host(s); " + std::to_string(options.ranks) +
                      " ranks need " + std::to_string(needed));
    return hosts;
  }
  if (options.racks > 0) return hostsOverRacks(map, options.racks, needed);
  if (static_cast<int>(map.hosts.size()) < needed)
    throw PlanError(std::to_string(options.ranks) + " ranks need " + std::to_string(needed) +
                    " hosts; the rail map has " + std::to_string(map.hosts.size()));
  std::vector<const formats::RailMapHost*> out;
  for (int h = 0; h < needed; ++h) out.push_back(&map.hosts[static_cast<size_t>(h)]);
  return out;
}

// Host h's NIC n binds 127.(1 + h / 250).(1 + h % 250).(1 + n): unique per NIC, never .0 or .255.
PlannedHost planHost(const formats::RailMapHost& host, int h, std::vector<std::string>& notes) {
  PlannedHost out{host.name, host.domain, {}};
  int n = 0;
  for (const auto& gpu : host.gpus) {
    for (const auto& nic : gpu.nics) {
      if (nic.netdev.empty()) {
        notes.push_back("host " + host.name + ": NIC " + nic.hca +
                        " has no netdev in the rail map; the plugin drops it");
        continue;
      }
      if (out.addresses.count(nic.netdev) != 0) continue;
      if (n >= 254) throw PlanError("host " + host.name + " has more than 254 NICs");
      out.addresses[nic.netdev] =
          "127." + std::to_string(1 + h / 250) + "." + std::to_string(1 + h % 250) + "." + std::to_string(1 + n++);
    }
  }
  return out;
}

RankPlace placeRank(const formats::RailMapHost& host, int rank, int h, int g) {
  if (g >= static_cast<int>(host.gpus.size()))
    throw PlanError("rank " + std::to_string(rank) + ": host " + host.name + " has no GPU " + std::to_string(g));
  const formats::RailMapGpu& gpu = host.gpus[static_cast<size_t>(g)];
  if (gpu.nics.empty())
    throw PlanError("host " + host.name + " GPU " + std::to_string(g) + " has no NIC in the rail map");
  const formats::RailMapNic& nic = gpu.nics.front();
  if (nic.netdev.empty())
    throw PlanError("rank " + std::to_string(rank) + ": NIC " + nic.hca + " of host " + host.name +
                    " has no netdev in the rail map, so it has no address to bind; add its netdev to the map");
  return RankPlace{rank, h, gpu.index, nic.hca, nic.rail, host.domain};
}

}  // namespace

JobPlan makePlan(const formats::RailMap& map, const PlacementOptions& options) {
  if (options.ranks < 2) throw PlanError("--ranks must be at least 2");
  if (map.hosts.empty() || map.hosts.front().gpus.empty()) throw PlanError("the rail map has no host with GPUs");
  JobPlan plan;
  plan.gpusPerHost = static_cast<int>(map.hosts.front().gpus.size());
  const int needed = (options.ranks + plan.gpusPerHost - 1) / plan.gpusPerHost;
  const auto hosts = chooseHosts(map, options, needed);
  for (size_t h = 0; h < hosts.size(); ++h) plan.hosts.push_back(planHost(*hosts[h], static_cast<int>(h), plan.notes));
  for (int r = 0; r < options.ranks; ++r) {
    const int h = r / plan.gpusPerHost;
    plan.ranks.push_back(placeRank(*hosts[static_cast<size_t>(h)], r, h, r % plan.gpusPerHost));
  }
  return plan;
}

std::string addressFileText(const PlannedHost& host) {
  std::string out = "# " + host.name + ": one loopback address per NIC (written by railtune emu net-job)\n";
  for (const auto& [netdev, address] : host.addresses) out += netdev + " " + address + "\n";
  return out;
}

}  // namespace railtune::emu::netjob
