// See truth.h.
#include "analysis/synth/truth.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "common/config_digest.h"

namespace railtune::analysis::synth {
namespace {

using nlohmann::json;

json offenderJson(const SynthJob& job, int o) {
  const Offender& offender = job.offenders.list[static_cast<size_t>(o)];
  const JobPlacement& place = job.placement;
  json out{{"level", offenderLevelName(offender.level)}, {"ranks", offender.ranks}};
  if (offender.level == OffenderLevel::Rank) out["rank"] = offender.index;
  const int host =
      offender.level == OffenderLevel::Rank ? place.ranks[static_cast<size_t>(offender.index)].host : offender.index;
  if (offender.level != OffenderLevel::Rack) out["host"] = place.hosts[static_cast<size_t>(host)].entry->name;
  const int domain =
      offender.level == OffenderLevel::Rack ? offender.index : place.hosts[static_cast<size_t>(host)].domain;
  out["domain"] = place.domains[static_cast<size_t>(domain)];
  json late = json::array();
  int64_t low = 0, high = 0;
  for (size_t s = 0; s < job.timeline.collectives().size(); ++s) {
    const int64_t delay = job.offenders.delayNs(job.options.seed, o, s);
    if (delay == 0) continue;
    low = late.empty() ? delay : std::min(low, delay);
    high = std::max(high, delay);
    late.push_back(s);
  }
  if (!job.offenders.slowCompute.empty()) {
    out["cause"] = job.offenders.computeBound(o) ? "slow_compute" : "late_arrival";
    const uint64_t tag = job.offenders.onlyTag[static_cast<size_t>(o)];
    out["only_user_tag"] = tag == 0 ? json(nullptr) : json(tag);
  }
  out["late_collectives"] = late.size();
  out["late_seqs"] = late;
  out["delay_us"] = json{{"min", static_cast<double>(low) / 1000.0}, {"max", static_cast<double>(high) / 1000.0}};
  return out;
}

json crossRailJson(const SynthJob& job, const CrossRailConnection& c) {
  const JobPlacement& place = job.placement;
  const PlacedHost& host = place.hosts[static_cast<size_t>(place.ranks[static_cast<size_t>(c.rank)].host)];
  const int peer = place.ringNext[static_cast<size_t>(c.rank)];
  const HostNic& actual = host.nics[static_cast<size_t>(c.actual)];
  const HostNic& chosen = host.nics[static_cast<size_t>(c.device)];
  return json{{"host", host.entry->name},
              {"rank", c.rank},
              {"pid", job.pidOf(c.rank)},
              {"conn", job.connections.sendConnection(c.channel)},
              {"channel", c.channel},
              {"device", c.device},
              {"hca", actual.hca},
              {"rail", actual.rail},
              {"expected_hca", chosen.hca},
              {"expected_rail", place.expectedRailOf(c.rank)},
              {"peer_host", place.hostOf(peer).name},
              {"peer_rank", peer},
              {"peer_pid", job.pidOf(peer)},
              {"peer_conn", job.connections.recvConnection(c.channel)}};
}

// Each host's clock as injected: offset at the job's true time 0 and drift; hosts on one machine share both.
json clocksJson(const SynthJob& job) {
  json out = json::array();
  for (size_t h = 0; h < job.placement.hosts.size(); ++h) {
    const int host = static_cast<int>(h);
    const HostClock clock = job.timeline.hostClock(host);
    json entry{{"host", job.placement.hosts[h].entry->name},
               {"clock", job.timeline.clockOf(host)},
               {"offset_us", static_cast<double>(clock.realtimeOffsetNs) / 1000.0},
               {"drift_ppm", std::round(clock.driftPpm * 1e6) / 1e6}};
    if (job.options.bootIds) entry["boot_id"] = job.bootIdOf(host);
    out.push_back(entry);
  }
  return out;
}

int netConnections(const SynthJob& job) {
  int senders = 0;
  for (int r = 0; r < job.ranks(); ++r) senders += job.placement.hasNetPeers(r) ? 1 : 0;
  return senders * job.connections.channels();
}

}  // namespace

std::string renderTruth(const SynthJob& job) {
  json out{{"schema", formats::kSynthTruthSchema},
           {"job", job.options.job},
           {"comm", digestHex(job.comm)},
           {"seed", job.options.seed},
           {"mnnvl", job.options.mnnvl},
           {"ranks", job.ranks()},
           {"hosts", job.placement.hosts.size()},
           {"racks", job.placement.domains.size()},
           {"rails", job.placement.rails},
           {"collectives", job.timeline.collectives().size()},
           {"channels", job.connections.channels()},
           {"connections", netConnections(job)}};
  json offenders = json::array();
  for (size_t o = 0; o < job.offenders.list.size(); ++o) offenders.push_back(offenderJson(job, static_cast<int>(o)));
  out["offenders"] = offenders;
  json crossRail = json::array();
  for (const CrossRailConnection& c : job.connections.crossRail()) crossRail.push_back(crossRailJson(job, c));
  out["cross_rail"] = crossRail;
  out["start_realtime_ns"] = job.timeline.jobStartRealtimeNs();
  out["clocks"] = clocksJson(job);
  if (!job.options.silentRanks.empty()) out["silent_ranks"] = job.options.silentRanks;  // wrote no file
  return out.dump(2) + "\n";
}

}  // namespace railtune::analysis::synth
