// See offenders.h.
#include "analysis/synth/offenders.h"

#include <string>

#include "analysis/synth/random.h"

namespace railtune::analysis::synth {
namespace {

// `count` distinct members of `pool`, picked by a partial Fisher-Yates shuffle driven by the seed.
std::vector<int> pickDistinct(std::vector<int> pool, int count, uint64_t seed, OffenderLevel level) {
  std::vector<int> out;
  for (int i = 0; i < count; ++i) {
    const size_t left = pool.size() - static_cast<size_t>(i);
    const size_t j =
        static_cast<size_t>(i) +
        static_cast<size_t>(
            randomBits(seed, Stream::PickOffender, static_cast<uint64_t>(level), static_cast<uint64_t>(i)) % left);
    std::swap(pool[static_cast<size_t>(i)], pool[j]);
    out.push_back(pool[static_cast<size_t>(i)]);
  }
  return out;
}

void requireRoom(int wanted, size_t available, const char* option, const char* what) {
  // At least one of each kind stays on time, so lateness has something to be measured against.
  if (wanted < 0) throw SynthError(std::string(option) + " must be >= 0");
  if (wanted > 0 && static_cast<size_t>(wanted) >= available)
    throw SynthError(std::string(option) + " " + std::to_string(wanted) + ": the job has " + std::to_string(available) +
                     " " + what + " outside the other offenders, and at least one must stay on time");
}

void addOffender(Offenders& out, OffenderLevel level, int index, const std::vector<int>& ranks) {
  const int o = static_cast<int>(out.list.size());
  out.list.push_back(Offender{level, index, ranks});
  for (int r : ranks) out.ofRank[static_cast<size_t>(r)] = o;
}

std::vector<int> freeRanksOf(const std::vector<int>& ranks, const Offenders& out) {
  std::vector<int> free;
  for (int r : ranks)
    if (out.ofRank[static_cast<size_t>(r)] < 0) free.push_back(r);
  return free;
}

}  // namespace

const char* offenderLevelName(OffenderLevel level) {
  switch (level) {
    case OffenderLevel::Rank:
      return "rank";
    case OffenderLevel::Tray:
      return "tray";
    case OffenderLevel::Rack:
      return "rack";
  }
  return "unknown";
}

int64_t Offenders::delayNs(uint64_t seed, int o, uint64_t seq) const {
  if (randomUnit(seed, Stream::Late, static_cast<uint64_t>(o), seq) >= kLateShare) return 0;
  return randomBetween(seed, Stream::LateDelay, kMinDelayNs, kMaxDelayNs, static_cast<uint64_t>(o), seq);
}

Offenders pickOffenders(const JobPlacement& job, const OffenderCounts& counts, uint64_t seed) {
  Offenders out;
  out.ofRank.assign(job.ranks.size(), -1);
  std::vector<std::vector<int>> ranksOfDomain(job.domains.size()), ranksOfHost(job.hosts.size());
  for (size_t r = 0; r < job.ranks.size(); ++r) {
    const int host = job.ranks[r].host;
    ranksOfHost[static_cast<size_t>(host)].push_back(static_cast<int>(r));
    ranksOfDomain[static_cast<size_t>(job.hosts[static_cast<size_t>(host)].domain)].push_back(static_cast<int>(r));
  }
  // A rack is late as a whole only with ranks on two trays or more, a tray only with two ranks or more.
  std::vector<int> traysOfDomain(job.domains.size(), 0);
  for (const PlacedHost& host : job.hosts) traysOfDomain[static_cast<size_t>(host.domain)] += 1;
  std::vector<int> domains;
  for (size_t d = 0; d < job.domains.size(); ++d)
    if (traysOfDomain[d] >= 2) domains.push_back(static_cast<int>(d));
  requireRoom(counts.slowRacks, domains.size(), "--slow-racks", "racks");
  for (int d : pickDistinct(domains, counts.slowRacks, seed, OffenderLevel::Rack))
    addOffender(out, OffenderLevel::Rack, d, ranksOfDomain[static_cast<size_t>(d)]);

  std::vector<int> hosts;
  for (size_t h = 0; h < job.hosts.size(); ++h)
    if (ranksOfHost[h].size() >= 2 && freeRanksOf(ranksOfHost[h], out).size() == ranksOfHost[h].size())
      hosts.push_back(static_cast<int>(h));
  requireRoom(counts.slowTrays, hosts.size(), "--slow-trays", "trays");
  for (int h : pickDistinct(hosts, counts.slowTrays, seed, OffenderLevel::Tray))
    addOffender(out, OffenderLevel::Tray, h, ranksOfHost[static_cast<size_t>(h)]);

  std::vector<int> all(job.ranks.size());
  for (size_t r = 0; r < all.size(); ++r) all[r] = static_cast<int>(r);
  const std::vector<int> ranks = freeRanksOf(all, out);
  requireRoom(counts.stragglers, ranks.size(), "--stragglers", "ranks");
  for (int r : pickDistinct(ranks, counts.stragglers, seed, OffenderLevel::Rank))
    addOffender(out, OffenderLevel::Rank, r, {r});
  return out;
}

}  // namespace railtune::analysis::synth
