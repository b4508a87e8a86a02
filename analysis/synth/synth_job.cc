// See synth_job.h.
#include "analysis/synth/synth_job.h"

#include <cstdio>

#include "analysis/synth/random.h"

namespace railtune::analysis::synth {
namespace {

void validate(const SynthOptions& o) {
  if (o.ranks < 2) throw SynthError("--ranks must be at least 2");
  if (o.connectionsPerRank < 2 || o.connectionsPerRank % 2 != 0 || o.connectionsPerRank > 128)
    throw SynthError("--connections-per-rank " + std::to_string(o.connectionsPerRank) +
                     ": expected an even number from 2 to 128 (a send and a receive per channel)");
  if (o.collectives < 1) throw SynthError("--collectives must be at least 1");
  if (o.spread.hostsPerClock < 1) throw SynthError("--hosts-per-clock must be at least 1");
  if (!(o.spread.maxDriftPpm >= 0 && o.spread.maxDriftPpm <= 1000))
    throw SynthError("--drift-ppm must be from 0 to 1000 (NTP's limit on a clock's slew is 500 ppm)");
  for (const double share : {o.v7.slowComputeShare, o.v7.tagOnlyShare, o.v7.symmetricShare})
    if (!(share >= 0 && share <= 1)) throw SynthError("a profiler v7 share must be from 0 to 1");
  for (int r : o.silentRanks)
    if (r < 0 || r >= o.ranks)
      throw SynthError("--silent-ranks " + std::to_string(r) + ": the job's ranks are 0.." +
                       std::to_string(o.ranks - 1));
}

SynthOptions withDefaults(SynthOptions o) {
  if (o.job.empty()) o.job = "synth-" + std::to_string(o.ranks);
  return o;
}

}  // namespace

SynthJob::SynthJob(const SynthOptions& opts, formats::RailMap railMap)
    : options(withDefaults(opts)),
      map(std::move(railMap)),
      placement(placeJob(map, options.ranks, options.mnnvl)),
      offenders(withV7Truth(options.late.empty() ? pickOffenders(placement, options.offenders, options.seed)
                                                 : nameOffenders(placement, options.late),
                            options.v7, options.seed)),
      connections(placement, options.connectionsPerRank / 2, options.crossRail, options.seed),
      timeline(placement, offenders, options.collectives, options.connectionsPerRank / 2, options.seed, options.spread,
               options.v7.enabled ? options.v7.symmetricShare : 0.0),
      comm(randomBits(options.seed, Stream::Identity, 1)),
      digest(randomBits(options.seed, Stream::Identity, 2)) {}

Identity SynthJob::identityOf(int rank) const {
  return Identity{placement.hostOf(rank).name, options.job, pidOf(rank)};
}

std::string SynthJob::bootIdOf(int host) const {
  const auto machine = static_cast<uint64_t>(timeline.clockOf(host));
  const uint64_t high = randomBits(options.seed, Stream::BootId, machine, 0);
  const uint64_t low = randomBits(options.seed, Stream::BootId, machine, 1);
  char text[40];
  std::snprintf(text, sizeof text, "%08llx-%04llx-4%03llx-%04llx-%012llx", static_cast<unsigned long long>(high >> 32),
                static_cast<unsigned long long>((high >> 16) & 0xffff), static_cast<unsigned long long>(high & 0xfff),
                static_cast<unsigned long long>(0x8000 | (low >> 48 & 0x3fff)),
                static_cast<unsigned long long>(low & 0xffffffffffffULL));
  return text;
}

std::unique_ptr<SynthJob> makeSynthJob(const SynthOptions& options, formats::RailMap map) {
  validate(options);
  return std::make_unique<SynthJob>(options, std::move(map));
}

}  // namespace railtune::analysis::synth
