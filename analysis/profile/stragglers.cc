// `profile stragglers` (stragglers.h): the job's collectives measured (lateness.cc), then offenders
// found top down: racks nearly all of whose ranks were late together, then trays, then single ranks,
// each level only from the lateness the levels above did not already explain.
#include "analysis/profile/stragglers.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "analysis/profile/lateness.h"
#include "analysis/profile/tag_groups.h"

namespace railtune::analysis::profile {
namespace {

double us(int64_t ns) {
  return static_cast<double>(ns) / 1000.0;
}

// NaN when unknown (no clock links the rank to the reference): rendered as null and "-".
double arrivalUs(int64_t ns) {
  return ns == kUnknownArrival ? std::nan("") : us(ns);
}

Placement place(const ProfileLogs& logs, const CollectiveIndex& index, const formats::RailMap* railMap,
                JobStragglers* job) {
  Placement p;
  p.trayOfStream.assign(logs.streams.size(), kNone);
  std::map<uint32_t, uint32_t> trayOfHost;
  for (size_t s = 0; s < logs.streams.size(); ++s)
    if (index.streamComm[s] != kNone) trayOfHost.try_emplace(logs.streams[s].host, 0);
  std::map<std::string, uint32_t> rackIndex;
  for (auto& [host, tray] : trayOfHost) {
    tray = static_cast<uint32_t>(p.trayNames.size());
    p.trayNames.push_back(logs.hosts[host]);
    const formats::RailMapHost* mapped = railMap != nullptr ? railMap->findHost(logs.hosts[host]) : nullptr;
    if (railMap != nullptr && mapped == nullptr) job->unmapped.push_back(logs.hosts[host]);
    if (mapped == nullptr || mapped->domain.empty()) {
      p.rackOfTray.push_back(kNone);
      continue;
    }
    const auto [it, added] = rackIndex.try_emplace(mapped->domain, static_cast<uint32_t>(p.rackNames.size()));
    if (added) p.rackNames.push_back(mapped->domain);
    p.rackOfTray.push_back(it->second);
  }
  for (size_t s = 0; s < logs.streams.size(); ++s)
    if (index.streamComm[s] != kNone) p.trayOfStream[s] = trayOfHost[logs.streams[s].host];
  std::sort(job->unmapped.begin(), job->unmapped.end());
  job->hosts = static_cast<int>(p.trayNames.size());
  job->racks = static_cast<int>(p.rackNames.size());
  job->racksKnown = railMap != nullptr;
  return p;
}

// What one candidate offender collected: its lateness and arrival lateness per late collective.
struct Tally {
  std::vector<int64_t> lateness, arrival;
  CauseTally causes;
  void add(int64_t l, int64_t a, Cause cause) { lateness.push_back(l), arrival.push_back(a), causes.add(cause); }
};

bool persistent(const Tally& tally, uint64_t collectives, const StragglerOptions& options) {
  const uint64_t late = tally.lateness.size();
  return late >= options.minCollectives && collectives > 0 &&
         static_cast<double>(late) >= options.minShare * static_cast<double>(collectives);
}

Offender summarise(Level level, Tally tally, uint64_t collectives) {
  Offender o;
  o.level = level;
  o.collectivesLate = tally.lateness.size();
  o.collectives = collectives;
  o.medianLatenessUs = us(medianOf(tally.lateness));
  o.p90LatenessUs = us(percentileOf(tally.lateness, 0.9));
  o.medianArrivalLatenessUs = arrivalUs(medianOfKnown(tally.arrival));
  o.cause = tally.causes.verdict();
  o.lateArrivals = tally.causes.lateArrival, o.slowComputes = tally.causes.slowCompute;
  return o;
}

bool groupLateIn(const std::vector<GroupLate>& groups, uint32_t group) {
  return std::any_of(groups.begin(), groups.end(), [&](const GroupLate& g) { return g.group == group; });
}

constexpr uint64_t kNoCollective = ~uint64_t{0};

class OffenderFinder {
 public:
  OffenderFinder(const ProfileLogs& logs, const Placement& placement, const LatenessResult& measured,
                 const StragglerOptions& options)
      : logs_(logs),
        p_(placement),
        m_(measured),
        options_(options),
        rackOffender_(placement.rackNames.size(), false),
        trayOffender_(placement.trayNames.size(), false),
        trayRanks_(placement.trayNames.size(), 0),
        rackRanks_(placement.rackNames.size(), 0) {
    for (size_t s = 0; s < logs.streams.size(); ++s) {
      if (p_.trayOfStream[s] == kNone) continue;
      ++trayRanks_[p_.trayOfStream[s]];
      if (p_.rackOfTray[p_.trayOfStream[s]] != kNone) ++rackRanks_[p_.rackOfTray[p_.trayOfStream[s]]];
    }
  }

  std::vector<Offender> find() {
    std::vector<Offender> out;
    racks(&out);
    trays(&out);
    ranks(&out);
    return out;
  }

 private:
  bool explainedByRack(size_t c, uint32_t tray) const {
    const uint32_t rack = p_.rackOfTray[tray];
    return rack != kNone && rackOffender_[rack] && groupLateIn(m_.outcomes[c].racks, rack);
  }

  // A rack is late as a rack when, of the collectives in which any of its trays was late, it was late as
  // a whole in at least half: trays late on their own now and then (two slow trays that make up a small
  // rack) coincide only by chance, and are the trays' lateness, not the rack's.
  void racks(std::vector<Offender>* out) {
    std::map<uint32_t, Tally> tallies;
    std::vector<uint64_t> traysLate(p_.rackNames.size(), 0);
    std::vector<uint64_t> seen(p_.rackNames.size(), kNoCollective);
    for (size_t c = 0; c < m_.outcomes.size(); ++c) {
      const CollectiveOutcome& o = m_.outcomes[c];
      for (const GroupLate& g : o.racks) tallies[g.group].add(g.latenessNs, g.arrivalNs, g.cause);
      for (const GroupLate& g : o.trays) {
        const uint32_t rack = p_.rackOfTray[g.group];
        if (rack != kNone && seen[rack] != c) seen[rack] = c, ++traysLate[rack];
      }
    }
    for (auto& [rack, tally] : tallies) {
      if (!persistent(tally, m_.rackCollectives[rack], options_)) continue;
      if (2 * tally.lateness.size() < traysLate[rack]) continue;
      rackOffender_[rack] = true;
      Offender o = summarise(Level::Rack, std::move(tally), m_.rackCollectives[rack]);
      o.rack = p_.rackNames[rack];
      o.ranks = static_cast<int>(rackRanks_[rack]);
      out->push_back(std::move(o));
    }
  }

  void trays(std::vector<Offender>* out) {
    std::map<uint32_t, Tally> tallies;
    for (size_t c = 0; c < m_.outcomes.size(); ++c)
      for (const GroupLate& g : m_.outcomes[c].trays)
        if (!explainedByRack(c, g.group)) tallies[g.group].add(g.latenessNs, g.arrivalNs, g.cause);
    for (auto& [tray, tally] : tallies) {
      if (!persistent(tally, m_.trayCollectives[tray], options_)) continue;
      trayOffender_[tray] = true;
      Offender o = summarise(Level::Tray, std::move(tally), m_.trayCollectives[tray]);
      o.host = p_.trayNames[tray];
      o.rack = p_.rackOfTray[tray] != kNone ? p_.rackNames[p_.rackOfTray[tray]] : "";
      o.ranks = static_cast<int>(trayRanks_[tray]);
      out->push_back(std::move(o));
    }
  }

  void ranks(std::vector<Offender>* out) {
    std::map<uint32_t, Tally> tallies;
    for (size_t c = 0; c < m_.outcomes.size(); ++c) {
      for (const LateEvent& e : m_.outcomes[c].late) {
        const uint32_t tray = p_.trayOfStream[e.stream];
        if (explainedByRack(c, tray) || (trayOffender_[tray] && groupLateIn(m_.outcomes[c].trays, tray))) continue;
        tallies[e.stream].add(e.latenessNs, e.arrivalNs, e.cause);
      }
    }
    for (auto& [stream, tally] : tallies) {
      if (!persistent(tally, m_.streamCollectives[stream], options_)) continue;
      const Stream& s = logs_.streams[stream];
      Offender o = summarise(Level::Rank, std::move(tally), m_.streamCollectives[stream]);
      o.host = logs_.hosts[s.host];
      const uint32_t rack = p_.rackOfTray[p_.trayOfStream[stream]];
      o.rack = rack != kNone ? p_.rackNames[rack] : "";
      o.rank = s.rank, o.hasComm = s.hasComm, o.comm = s.comm, o.ranks = 1;
      out->push_back(std::move(o));
    }
  }

  const ProfileLogs& logs_;
  const Placement& p_;
  const LatenessResult& m_;
  const StragglerOptions& options_;
  std::vector<bool> rackOffender_, trayOffender_;
  std::vector<uint32_t> trayRanks_, rackRanks_;
};

void sortOffenders(std::vector<Offender>* offenders) {
  std::stable_sort(offenders->begin(), offenders->end(), [](const Offender& a, const Offender& b) {
    if (a.level != b.level) return a.level < b.level;
    if (a.collectivesLate != b.collectivesLate) return a.collectivesLate > b.collectivesLate;
    return a.medianLatenessUs > b.medianLatenessUs;
  });
}

std::vector<LateCollective> lateCollectives(const ProfileLogs& logs, const CollectiveIndex& index, const Placement& p,
                                            const LatenessResult& m, const std::vector<CollectiveTrait>& traits) {
  std::vector<LateCollective> out;
  for (size_t c = 0; c < m.outcomes.size(); ++c) {
    const CollectiveOutcome& o = m.outcomes[c];
    if (o.late.empty()) continue;
    const auto worst = std::max_element(o.late.begin(), o.late.end(), [](const LateEvent& a, const LateEvent& b) {
      return a.latenessNs != b.latenessNs ? a.latenessNs < b.latenessNs : a.stream > b.stream;
    });
    const Collective& col = index.collectives[c];
    const Stream& s = logs.streams[worst->stream];
    LateCollective late{index.comms[col.commKey].hasComm,
                        index.comms[col.commKey].comm,
                        col.seq,
                        logs.ops[col.op],
                        o.ranks,
                        static_cast<int>(o.late.size()),
                        us(o.medianDurationNs),
                        s.rank,
                        logs.hosts[s.host],
                        us(worst->latenessNs),
                        arrivalUs(worst->arrivalNs),
                        {},
                        {},
                        worst->cause,
                        traits[c]};
    // Trays of a late rack are the rack's lateness, not their own.
    for (const GroupLate& g : o.trays)
      if (p.rackOfTray[g.group] == kNone || !groupLateIn(o.racks, p.rackOfTray[g.group]))
        late.lateTrays.push_back(p.trayNames[g.group]);
    for (const GroupLate& g : o.racks) late.lateRacks.push_back(p.rackNames[g.group]);
    out.push_back(std::move(late));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const LateCollective& a, const LateCollective& b) { return a.latenessUs > b.latenessUs; });
  return out;
}

std::vector<CommSummary> commSummaries(const ProfileLogs& logs, const CollectiveIndex& index) {
  std::vector<CommSummary> out(index.comms.size());
  std::vector<std::set<int>> seen(index.comms.size());
  for (size_t s = 0; s < logs.streams.size(); ++s) {
    const uint32_t c = index.streamComm[s];
    if (c == kNone) continue;
    out[c].nRanks = std::max(out[c].nRanks, logs.streams[s].nRanks);
    if (logs.streams[s].rank >= 0) seen[c].insert(logs.streams[s].rank);
  }
  for (const Collective& col : index.collectives) ++out[col.commKey].collectives;
  for (size_t c = 0; c < out.size(); ++c) {
    out[c].hasComm = index.comms[c].hasComm;
    out[c].comm = index.comms[c].comm;
    out[c].ranksSeen = static_cast<int>(seen[c].size());
    for (int r = 0; r < out[c].nRanks; ++r)
      if (!seen[c].contains(r)) out[c].missingRanks.push_back(r);
  }
  return out;
}

// Each host's clock (the first clock a stream of the host reads: one per host unless a host name
// was reused across machines) and what the estimate rests on.
void describeClocks(const ProfileLogs& logs, const Placement& placement, const ClockModel& model, JobStragglers* job) {
  std::vector<uint32_t> clockOfTray(placement.trayNames.size(), kNone);
  for (size_t s = 0; s < logs.streams.size(); ++s)
    if (placement.trayOfStream[s] != kNone && clockOfTray[placement.trayOfStream[s]] == kNone)
      clockOfTray[placement.trayOfStream[s]] = model.clockOfStream[s];
  for (size_t t = 0; t < placement.trayNames.size(); ++t) {
    if (clockOfTray[t] == kNone) continue;
    const ClockEstimate& c = model.clocks[clockOfTray[t]];
    const bool bounded = model.consistent && c.bounded;
    HostClock clock{placement.trayNames[t], c.key, c.fromBootId, bounded};
    if (bounded) {
      clock.offsetUs = us(c.offsetNs), clock.errorUs = us(c.errorNs), clock.driftPpm = c.rate * 1e6;
      clock.lowUs = us(c.lowNs), clock.highUs = us(c.highNs);
    }
    job->clocks.push_back(std::move(clock));
  }
  ClockSummary& summary = job->clockSummary;
  summary.clocks = static_cast<int>(model.clocks.size());
  for (const ClockEstimate& c : model.clocks) summary.bootIdClocks += c.fromBootId ? 1 : 0;
  if (!model.clocks.empty() && !model.clocks[model.reference].trays.empty())
    summary.reference = placement.trayNames[model.clocks[model.reference].trays.front()];
  summary.referenceRealtimeNs = model.referenceNs;
  summary.collectives = model.synchronising;
  summary.transfers = model.transfers;
  summary.windows = model.windows;
  summary.toleranceUs = us(model.toleranceNs);
  summary.consistent = model.consistent;
}

JobStragglers analyseJob(const ProfileLogs& logs, uint32_t job, const formats::RailMap* railMap,
                         const StragglerOptions& options) {
  JobStragglers out;
  out.job = logs.jobs[job];
  const CollectiveIndex index = indexCollectives(logs, job);
  const Placement placement = place(logs, index, railMap, &out);
  std::set<std::pair<uint32_t, int>> processes;
  for (size_t s = 0; s < logs.streams.size(); ++s)
    if (index.streamComm[s] != kNone) processes.insert({logs.streams[s].host, logs.streams[s].pid});
  out.processes = static_cast<int>(processes.size());
  out.comms = commSummaries(logs, index);
  out.collectives = index.collectives.size();
  const LatenessResult measured = measureLateness(logs, index, placement, options);
  for (const CollectiveOutcome& o : measured.outcomes) out.lateEvents += o.late.size();
  out.offenders = OffenderFinder(logs, placement, measured, options).find();
  sortOffenders(&out.offenders);
  const std::vector<CollectiveTrait> traits = collectiveTraits(logs, index);
  out.late = lateCollectives(logs, index, placement, measured, traits);
  out.groups = groupByTag(logs, index, traits, measured, placement, out.offenders, options);
  describeClocks(logs, placement, measured.clocks, &out);
  out.losses = jobLosses(logs, job);
  return out;
}

}  // namespace

const char* levelName(Level level) {
  switch (level) {
    case Level::Rack:
      return "rack";
    case Level::Tray:
      return "tray";
    case Level::Rank:
      return "rank";
  }
  return "rank";
}

StragglerReport analyseStragglers(const ProfileLogs& logs, const formats::RailMap* railMap,
                                  const StragglerOptions& options) {
  StragglerReport report;
  report.tagNames = options.tagNames;
  std::vector<uint32_t> jobs(logs.jobs.size());
  for (uint32_t j = 0; j < jobs.size(); ++j) jobs[j] = j;
  std::sort(jobs.begin(), jobs.end(), [&](uint32_t a, uint32_t b) { return logs.jobs[a] < logs.jobs[b]; });
  for (uint32_t job : jobs) {
    if (options.job && logs.jobs[job] != *options.job) continue;
    report.jobs.push_back(analyseJob(logs, job, railMap, options));
  }
  return report;
}

}  // namespace railtune::analysis::profile
