// See offenders.h.
#include "analysis/synth/offenders.h"

#include <stdexcept>
#include <string>
#include <vector>

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
  if (!onlyTag.empty() && onlyTag[static_cast<size_t>(o)] != 0 && stepTag(seq) != onlyTag[static_cast<size_t>(o)])
    return 0;
  if (!named.empty()) {
    const NamedOffender& n = named[static_cast<size_t>(o)];
    const uint64_t every = n.share >= 1.0 ? 1 : static_cast<uint64_t>(1.0 / n.share + 0.5);
    return seq % every == 0 ? n.delayNs : 0;
  }
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

NamedOffender parseNamedOffender(const std::string& text) {
  const auto fail = [&text](const std::string& why) {
    return SynthError("--late " + text + ": " + why +
                      " (expected LEVEL:INDEX:DELAY_US[:SHARE], e.g. rank:5:150 or tray:3:120:0.25)");
  };
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t colon = text.find(':');; colon = text.find(':', start)) {
    parts.push_back(text.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() != 3 && parts.size() != 4) throw fail("three or four fields");
  NamedOffender n;
  if (parts[0] == "rank")
    n.level = OffenderLevel::Rank;
  else if (parts[0] == "tray")
    n.level = OffenderLevel::Tray;
  else if (parts[0] == "rack")
    n.level = OffenderLevel::Rack;
  else
    throw fail("the level is rank, tray or rack");
  size_t used = 0;
  try {
    n.index = std::stoi(parts[1], &used);
    if (used != parts[1].size()) throw fail("the index is a whole number");
    const double delayUs = std::stod(parts[2], &used);
    // An hour at most: "inf", "nan" and 1e308 are numbers to stod, not delays (nor an int64 of ns).
    if (used != parts[2].size() || !(delayUs >= 0.0 && delayUs <= 3.6e9))
      throw fail("the delay is a number of microseconds, at most an hour");
    n.delayNs = static_cast<int64_t>(delayUs * 1000.0 + 0.5);
    if (parts.size() == 4) {
      n.share = std::stod(parts[3], &used);
      if (used != parts[3].size()) throw fail("the share is a number in (0, 1]");
    }
  } catch (const std::logic_error&) {  // std::stoi/stod: not a number, or out of range
    throw fail("a field is not a number");
  }
  return n;
}

Offenders nameOffenders(const JobPlacement& job, const std::vector<NamedOffender>& named) {
  Offenders out;
  out.ofRank.assign(job.ranks.size(), -1);
  for (const NamedOffender& n : named) {
    const std::string what = std::string("--late ") + offenderLevelName(n.level) + ":" + std::to_string(n.index);
    const size_t count = n.level == OffenderLevel::Rank   ? job.ranks.size()
                         : n.level == OffenderLevel::Tray ? job.hosts.size()
                                                          : job.domains.size();
    if (n.index < 0 || static_cast<size_t>(n.index) >= count)
      throw SynthError(what + ": the job has " + std::to_string(count) + " " + offenderLevelName(n.level) +
                       (count == 1 ? "" : "s") + ", numbered from 0");
    if (n.delayNs < 1000) throw SynthError(what + ": the delay must be at least 1 us");
    if (!(n.share > 0.0 && n.share <= 1.0)) throw SynthError(what + ": the share must be in (0, 1]");
    std::vector<int> ranks;
    for (size_t r = 0; r < job.ranks.size(); ++r) {
      const int host = job.ranks[r].host;
      const bool in = n.level == OffenderLevel::Rank   ? static_cast<int>(r) == n.index
                      : n.level == OffenderLevel::Tray ? host == n.index
                                                       : job.hosts[static_cast<size_t>(host)].domain == n.index;
      if (!in) continue;
      if (out.ofRank[r] >= 0) throw SynthError(what + ": rank " + std::to_string(r) + " is already another offender's");
      ranks.push_back(static_cast<int>(r));
    }
    addOffender(out, n.level, n.index, ranks);
    out.named.push_back(n);
  }
  return out;
}

Offenders withV7Truth(Offenders offenders, const V7Spec& spec, uint64_t seed) {
  if (!spec.enabled) return offenders;
  offenders.slowCompute.assign(offenders.list.size(), false);
  offenders.onlyTag.assign(offenders.list.size(), 0);
  for (size_t o = 0; o < offenders.list.size(); ++o) {
    offenders.slowCompute[o] = randomUnit(seed, Stream::SlowCompute, o) < spec.slowComputeShare;
    if (offenders.list[o].level == OffenderLevel::Rank && randomUnit(seed, Stream::TagOnly, o) < spec.tagOnlyShare)
      offenders.onlyTag[o] = static_cast<uint64_t>(randomBetween(seed, Stream::TagOnly, 1, 3, o, 1));
  }
  return offenders;
}

}  // namespace railtune::analysis::synth
