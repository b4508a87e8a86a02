// See placement.h.
#include "analysis/synth/placement.h"

#include <map>

namespace railtune::analysis::synth {
namespace {

PlacedHost placeHost(const formats::RailMapHost& entry, int domain) {
  PlacedHost host{&entry, domain, {}, {}};
  std::map<std::string, int> deviceOf;
  for (const formats::RailMapGpu& gpu : entry.gpus) {
    std::vector<int> devices;
    for (const formats::RailMapNic& nic : gpu.nics) {
      auto [it, inserted] = deviceOf.emplace(nic.hca, static_cast<int>(host.nics.size()));
      if (inserted) host.nics.push_back(HostNic{nic.hca, nic.netdev, nic.rail, nic.plane});
      devices.push_back(it->second);
    }
    host.gpuDevices.push_back(std::move(devices));
  }
  return host;
}

// Fills hosts, domains and ranks (local indices still unset).
void fillHosts(const formats::RailMap& map, int ranks, JobPlacement& job) {
  std::map<std::string, int> domainIndex;
  for (const formats::RailMapHost& entry : map.hosts) {
    if (static_cast<int>(job.ranks.size()) == ranks) break;
    if (entry.gpus.empty()) continue;
    const std::string domain = entry.domain.empty() ? entry.name : entry.domain;
    auto [it, inserted] = domainIndex.emplace(domain, static_cast<int>(job.domains.size()));
    if (inserted) job.domains.push_back(domain);
    job.hosts.push_back(placeHost(entry, it->second));
    const int h = static_cast<int>(job.hosts.size()) - 1;
    for (size_t g = 0; g < entry.gpus.size() && static_cast<int>(job.ranks.size()) < ranks; ++g) {
      if (entry.gpus[g].nics.empty())
        throw SynthError("host " + entry.name + " GPU " + std::to_string(entry.gpus[g].index) +
                         " has no NIC in the rail map");
      job.ranks.push_back(RankPlace{h, static_cast<int>(g), entry.gpus[g].index, 0});
    }
  }
  if (static_cast<int>(job.ranks.size()) < ranks)
    throw SynthError(std::to_string(ranks) + " ranks need more GPUs than the rail map's " +
                     std::to_string(job.ranks.size()) + " (" + std::to_string(map.hosts.size()) + " hosts)");
}

// Ranks of each NCCL node: a domain with MNNVL, a host without.
std::vector<std::vector<int>> ncclNodes(const JobPlacement& job) {
  std::vector<std::vector<int>> nodes(job.mnnvl ? job.domains.size() : job.hosts.size());
  for (size_t r = 0; r < job.ranks.size(); ++r) {
    const RankPlace& place = job.ranks[r];
    const size_t node = job.mnnvl ? static_cast<size_t>(job.hosts[static_cast<size_t>(place.host)].domain)
                                  : static_cast<size_t>(place.host);
    nodes[node].push_back(static_cast<int>(r));
  }
  return nodes;
}

void linkRings(JobPlacement& job) {
  std::vector<std::vector<int>> rings;  // by local index: its ranks in node order
  for (const std::vector<int>& node : ncclNodes(job)) {
    for (size_t i = 0; i < node.size(); ++i) {
      job.ranks[static_cast<size_t>(node[i])].localIndex = static_cast<int>(i);
      if (rings.size() <= i) rings.resize(i + 1);
      rings[i].push_back(node[i]);
    }
  }
  job.ringNext.assign(job.ranks.size(), -1);
  job.ringPrev.assign(job.ranks.size(), -1);
  for (const std::vector<int>& ring : rings) {
    if (ring.size() < 2) continue;  // one node has this local index: its ring stays on NVLink
    for (size_t i = 0; i < ring.size(); ++i) {
      job.ringNext[static_cast<size_t>(ring[i])] = ring[(i + 1) % ring.size()];
      job.ringPrev[static_cast<size_t>(ring[i])] = ring[(i + ring.size() - 1) % ring.size()];
    }
  }
}

}  // namespace

const std::vector<int>& JobPlacement::devicesOf(int rank) const {
  const RankPlace& place = ranks[static_cast<size_t>(rank)];
  return hosts[static_cast<size_t>(place.host)].gpuDevices[static_cast<size_t>(place.gpu)];
}

int JobPlacement::expectedRailOf(int rank) const {
  const RankPlace& place = ranks[static_cast<size_t>(rank)];
  const PlacedHost& host = hosts[static_cast<size_t>(place.host)];
  return host.nics[static_cast<size_t>(devicesOf(rank).front())].rail;
}

JobPlacement placeJob(const formats::RailMap& map, int ranks, bool mnnvl) {
  if (ranks < 2) throw SynthError("--ranks must be at least 2");
  JobPlacement job;
  job.mnnvl = mnnvl;
  job.rails = map.rails;
  fillHosts(map, ranks, job);
  linkRings(job);
  return job;
}

}  // namespace railtune::analysis::synth
