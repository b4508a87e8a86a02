// See timeline.h.
#include "analysis/synth/timeline.h"

#include <algorithm>

#include "analysis/synth/random.h"

namespace railtune::analysis::synth {
namespace {

constexpr double kRingBusBandwidth = 40e9;  // bytes/s a rank's ring link sustains over the fabric
// 2025-11-30 00:00 UTC: the synthetic job's true time 0, plus up to a day chosen by the seed.
constexpr int64_t kEpochNs = 1'764'460'800'000'000'000;

// The ring's share of `bytes` each rank sends, as nccl-tests' bus bandwidth factor counts it.
double ringFactor(const char* op, int ranks) {
  const double n = ranks;
  return op[3] == 'R' ? 2.0 * (n - 1) / n : (n - 1) / n;  // "AllReduce": 2(n-1)/n; AllGather, ReduceScatter
}

// A training step's mix: parameter AllGathers and gradient ReduceScatters of 16..512 MiB (FSDP), and
// AllReduces of 4 KiB..64 MiB (norms, losses, small buckets).
CollectiveSpec describe(uint64_t seed, uint64_t seq, int ranks, int nodes, int channels) {
  CollectiveSpec c;
  const double kind = randomUnit(seed, Stream::CollectiveKind, seq);
  if (kind < 0.2) {
    c.op = "AllReduce";
    c.datatype = "ncclFloat32";
    c.bytes = uint64_t{4096} << randomBetween(seed, Stream::CollectiveSize, 0, 14, seq);
  } else {
    c.op = kind < 0.6 ? "AllGather" : "ReduceScatter";
    c.datatype = "ncclBfloat16";
    c.bytes = uint64_t{16} << (20 + randomBetween(seed, Stream::CollectiveSize, 0, 5, seq));
  }
  c.algorithm = c.op[3] == 'R' && c.bytes <= (1u << 20) ? "TREE" : "RING";
  c.protocol = c.bytes <= (64u << 10) ? "LL" : c.bytes <= (2u << 20) ? "LL128" : "SIMPLE";
  const double ringBytes = static_cast<double>(c.bytes) * ringFactor(c.op, ranks);
  c.bytesPerChannel = static_cast<uint64_t>(ringBytes / channels);
  c.baseNs = 15'000 + 100 * static_cast<int64_t>(nodes) + static_cast<int64_t>(ringBytes / kRingBusBandwidth * 1e9);
  return c;
}

}  // namespace

Timeline::Timeline(const JobPlacement& job, const Offenders& offenders, int collectives, int channels, uint64_t seed,
                   TimingSpread spread, double symmetricShare)
    : offenders_(offenders), seed_(seed), spread_(spread), channels_(channels) {
  jobStartRealtimeNs_ = kEpochNs + randomBetween(seed, Stream::Identity, 0, 86'400'000'000'000, 0);
  const int ranks = static_cast<int>(job.ranks.size());
  const int nodes = static_cast<int>(job.mnnvl ? job.domains.size() : job.hosts.size());
  int64_t t0 = 2'000'000'000;  // connections are set up during the first two seconds
  for (int s = 0; s < collectives; ++s) {
    CollectiveSpec c = describe(seed, static_cast<uint64_t>(s), ranks, nodes, channels);
    c.t0Ns = t0;
    c.lastArrivalNs = t0;
    for (int r = 0; r < ranks; ++r) {
      c.lastArrivalNs = std::max(c.lastArrivalNs, arrivalNs(r, static_cast<size_t>(s), t0));
      c.computeDelayNs = std::max(c.computeDelayNs, computeDelayNs(r, static_cast<size_t>(s)));
    }
    c.symmetric = symmetricShare > 0 && randomUnit(seed, Stream::Symmetric, static_cast<uint64_t>(s)) < symmetricShare;
    const int64_t end = c.lastArrivalNs + c.baseNs + c.computeDelayNs + spread_.endJitterNs;
    t0 = end + randomBetween(seed, Stream::Gap, 50'000, 400'000, static_cast<uint64_t>(s));
    jobEndNs_ = end;
    collectives_.push_back(c);
  }
}

int64_t Timeline::arrivalNs(int rank, size_t seq, int64_t t0Ns) const {
  int64_t t =
      t0Ns + randomBetween(seed_, Stream::ArrivalJitter, 0, spread_.arrivalJitterNs, static_cast<uint64_t>(rank), seq);
  const int o = offenders_.ofRank[static_cast<size_t>(rank)];
  if (o >= 0 && !offenders_.computeBound(o)) t += offenders_.delayNs(seed_, o, seq);
  if (spread_.noiseShare > 0 &&
      randomUnit(seed_, Stream::NoiseSpike, static_cast<uint64_t>(rank), seq) < spread_.noiseShare)
    t += randomBetween(seed_, Stream::NoiseDelay, 0, spread_.noiseMaxNs, static_cast<uint64_t>(rank), seq);
  return t;
}

HostClock Timeline::hostClock(int host) const {
  const auto h = static_cast<uint64_t>(clockOf(host));
  const double drift = spread_.maxDriftPpm * (2.0 * randomUnit(seed_, Stream::HostDrift, h) - 1.0);
  return HostClock{randomBetween(seed_, Stream::HostClock, -spread_.maxClockOffsetNs, spread_.maxClockOffsetNs, h),
                   randomBetween(seed_, Stream::HostMonotonic, 1'000'000'000'000, 2'000'000'000'000'000, h),
                   spread_.maxDriftPpm == 0 ? 0.0 : drift};
}

int64_t Timeline::realtimeNs(int host, int64_t trueNs) const {
  const HostClock clock = hostClock(host);
  return jobStartRealtimeNs_ + trueNs + clock.realtimeOffsetNs + clock.driftNs(trueNs);
}

int64_t Timeline::monotonicNs(int host, int64_t trueNs) const {
  const HostClock clock = hostClock(host);
  return clock.monotonicBaseNs + trueNs + clock.driftNs(trueNs);
}

RankTiming Timeline::rankTiming(int rank, size_t seq) const {
  const CollectiveSpec& c = collectives_[seq];
  const int64_t end = c.lastArrivalNs + c.baseNs + c.computeDelayNs +
                      randomBetween(seed_, Stream::EndJitter, 0, spread_.endJitterNs, static_cast<uint64_t>(rank), seq);
  return RankTiming{arrivalNs(rank, seq, c.t0Ns), end};
}

int64_t Timeline::computeDelayNs(int rank, size_t seq) const {
  const int o = offenders_.ofRank[static_cast<size_t>(rank)];
  return o >= 0 && offenders_.computeBound(o) ? offenders_.delayNs(seed_, o, seq) : 0;
}

// initial + compute + final = the rank's duration: the final sync takes what the others' compute left.
RankPhases Timeline::rankPhases(int rank, size_t seq) const {
  const CollectiveSpec& c = collectives_[seq];
  const RankTiming t = rankTiming(rank, seq);
  const int64_t baseCompute = std::max<int64_t>(c.baseNs - 2 * kSyncNs, 1'000);
  const int64_t jitter =
      randomBetween(seed_, Stream::ComputeJitter, 0, baseCompute / 50, static_cast<uint64_t>(rank), seq);
  RankPhases p;
  p.initialSyncNs = c.lastArrivalNs - t.arrivalNs + kSyncNs;
  p.computeNs = baseCompute - jitter + computeDelayNs(rank, seq);
  p.finalSyncNs = std::max<int64_t>(t.endNs - t.arrivalNs - p.initialSyncNs - p.computeNs, 0);
  return p;
}

}  // namespace railtune::analysis::synth
