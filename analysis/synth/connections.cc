// See connections.h.
#include "analysis/synth/connections.h"

#include <algorithm>
#include <set>
#include <string>

#include "analysis/synth/random.h"

namespace railtune::analysis::synth {
namespace {

// The NIC a misbound device sends through: the next rail's NIC on the same plane, else any NIC of
// another rail; -1 when the host has a single rail.
int otherRailDevice(const PlacedHost& host, int device) {
  const HostNic& from = host.nics[static_cast<size_t>(device)];
  int fallback = -1;
  for (int step = 1; step <= static_cast<int>(host.nics.size()); ++step) {
    const int d = (device + step) % static_cast<int>(host.nics.size());
    const HostNic& nic = host.nics[static_cast<size_t>(d)];
    if (nic.rail == from.rail) continue;
    if (nic.plane == from.plane) return d;
    if (fallback < 0) fallback = d;
  }
  return fallback;
}

}  // namespace

ConnectionPlan::ConnectionPlan(const JobPlacement& job, int channels, int crossRail, uint64_t seed)
    : job_(job), channels_(channels) {
  if (crossRail < 0) throw SynthError("--cross-rail must be >= 0");
  std::vector<int> senders;
  for (size_t r = 0; r < job.ranks.size(); ++r)
    if (job.hasNetPeers(static_cast<int>(r))) senders.push_back(static_cast<int>(r));
  const uint64_t sends = static_cast<uint64_t>(senders.size()) * static_cast<uint64_t>(channels);
  if (static_cast<uint64_t>(crossRail) > sends)
    throw SynthError("--cross-rail " + std::to_string(crossRail) + ": the job has only " + std::to_string(sends) +
                     " send connections over the network");
  std::set<uint64_t> picked;
  for (uint64_t i = 0; picked.size() < static_cast<size_t>(crossRail); ++i) {
    const uint64_t k = randomBits(seed, Stream::PickCrossRail, i) % sends;
    if (!picked.insert(k).second) continue;
    const int rank = senders[static_cast<size_t>(k / static_cast<uint64_t>(channels))];
    const int channel = static_cast<int>(k % static_cast<uint64_t>(channels));
    const int device = chosenDevice(rank, channel);
    const PlacedHost& host = job.hosts[static_cast<size_t>(job.ranks[static_cast<size_t>(rank)].host)];
    const int actual = otherRailDevice(host, device);
    if (actual < 0)
      throw SynthError("--cross-rail: host " + host.entry->name + " has NICs on one rail only, none to misbind to");
    crossRail_.push_back(CrossRailConnection{rank, channel, device, actual});
  }
  std::sort(crossRail_.begin(), crossRail_.end(), [](const CrossRailConnection& a, const CrossRailConnection& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.channel < b.channel;
  });
}

int ConnectionPlan::chosenDevice(int rank, int channel) const {
  const std::vector<int>& devices = job_.devicesOf(rank);
  return devices[static_cast<size_t>(channel) % devices.size()];
}

int ConnectionPlan::sendDevice(int rank, int channel) const {
  const auto it = std::lower_bound(crossRail_.begin(), crossRail_.end(), std::make_pair(rank, channel),
                                   [](const CrossRailConnection& c, const std::pair<int, int>& key) {
                                     return c.rank != key.first ? c.rank < key.first : c.channel < key.second;
                                   });
  if (it != crossRail_.end() && it->rank == rank && it->channel == channel) return it->actual;
  return chosenDevice(rank, channel);
}

}  // namespace railtune::analysis::synth
