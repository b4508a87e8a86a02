// The three passes of `profile stragglers` (lateness.h), each parallel over collectives or trays:
//  1. per collective: median duration, and the on-time duration and its spread (below);
//  2. the host clocks: each clock's offset (and drift) bounded by the collectives (clocks.h);
//  3. per collective: each rank's deficit (on-time duration - its duration) against the threshold, its
//     arrival corrected by its clock's offset, and the trays and racks nearly all of whose ranks were late.
#include "analysis/profile/lateness.h"

#include <algorithm>
#include <cmath>
#include <thread>

namespace railtune::analysis::profile {
namespace {

// The on-time reference is the longer half of the durations (the ranks that waited): its median, and
// twice its mean absolute deviation as the spread (for a well-behaved collective about the MAD of all
// the durations).
// A group of up to half the ranks late together (one of a job's two racks) then leaves the reference
// on the ranks that waited, where the median of all the durations would fall between the two groups.
// The mean absolute deviation from `centre`: steadier than the median one over the few durations of a
// small job's half, and the late ranks, whose deviations are large, are not among them.
int64_t meanDeviation(const std::vector<int64_t>& values, int64_t centre) {
  double sum = 0;
  for (int64_t v : values) sum += static_cast<double>(std::abs(v - centre));
  return static_cast<int64_t>(sum / static_cast<double>(values.size()));
}

struct Centre {
  int64_t medianDurationNs = 0, onTimeNs = 0, spreadNs = 0;
};

std::vector<Centre> centres(const ProfileLogs& logs, const CollectiveIndex& index) {
  std::vector<Centre> out(index.collectives.size());
  parallelFor(index.collectives.size(), [&](size_t c) {
    const Collective& col = index.collectives[c];
    std::vector<int64_t> durations;
    for (uint32_t i = col.begin; i < col.end; ++i) durations.push_back(logs.samples[index.order[i]].durationNs);
    Centre& centre = out[c];
    std::sort(durations.begin(), durations.end());
    std::vector<int64_t> all = durations;
    centre.medianDurationNs = medianOf(all);
    const auto half = durations.begin() + static_cast<std::ptrdiff_t>(durations.size() / 2);
    std::vector<int64_t> waited(half, durations.end());
    centre.onTimeNs = medianOf(waited);
    centre.spreadNs = 2 * meanDeviation(waited, centre.onTimeNs);
  });
  return out;
}

// Per-thread counters of pass 3, summed at the end.
struct GroupCounts {
  std::vector<uint64_t> trayCollectives, rackCollectives;
  std::vector<uint32_t> trayRanks, rackRanks, rackTrays;  // of the current collective
};

// Trays, then racks, nearly all of whose present ranks were late; `late` is sorted by tray.
void lateGroups(const Placement& placement, const StragglerOptions& options, GroupCounts& counts,
                CollectiveOutcome* outcome) {
  auto medianRun = [](std::vector<int64_t>& lateness, std::vector<int64_t>& arrival) {
    return std::make_pair(medianOf(lateness), medianOfKnown(arrival));
  };
  std::vector<uint32_t> rackLate(placement.rackNames.size(), 0);
  std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> rackValues(placement.rackNames.size());
  std::vector<CauseTally> rackCauses(placement.rackNames.size());
  for (size_t i = 0; i < outcome->late.size();) {
    const uint32_t tray = placement.trayOfStream[outcome->late[i].stream];
    std::vector<int64_t> lateness, arrival;
    CauseTally causes;
    for (; i < outcome->late.size() && placement.trayOfStream[outcome->late[i].stream] == tray; ++i) {
      lateness.push_back(outcome->late[i].latenessNs);
      arrival.push_back(outcome->late[i].arrivalNs);
      causes.add(outcome->late[i].cause);
    }
    const uint32_t rack = placement.rackOfTray[tray];
    if (rack != kNone) {
      rackLate[rack] += static_cast<uint32_t>(lateness.size());
      rackValues[rack].first.insert(rackValues[rack].first.end(), lateness.begin(), lateness.end());
      rackValues[rack].second.insert(rackValues[rack].second.end(), arrival.begin(), arrival.end());
      rackCauses[rack].lateArrival += causes.lateArrival, rackCauses[rack].slowCompute += causes.slowCompute;
      rackCauses[rack].unknown += causes.unknown;
    }
    const double present = counts.trayRanks[tray];
    if (present >= 2 && static_cast<double>(lateness.size()) >= options.groupFraction * present) {
      const auto [l, a] = medianRun(lateness, arrival);
      outcome->trays.push_back(GroupLate{tray, l, a, causes.verdict()});
    }
  }
  for (uint32_t rack = 0; rack < rackLate.size(); ++rack) {
    const double present = counts.rackRanks[rack];
    if (counts.rackTrays[rack] < 2 || rackLate[rack] == 0 || rackLate[rack] < options.groupFraction * present) continue;
    const auto [l, a] = medianRun(rackValues[rack].first, rackValues[rack].second);
    outcome->racks.push_back(GroupLate{rack, l, a, rackCauses[rack].verdict()});
  }
}

}  // namespace

namespace {

// Pass 3 for one collective: the late ranks, then the groups they form.
CollectiveOutcome judge(const ProfileLogs& logs, const CollectiveIndex& index, const Placement& placement,
                        const StragglerOptions& options, const Centre& centre, const Collective& col,
                        const ClockModel& clocks, const SampleTraitIndex& traits, GroupCounts& counts) {
  CollectiveOutcome outcome;
  outcome.medianDurationNs = centre.medianDurationNs;
  outcome.ranks = static_cast<int>(col.end - col.begin);
  const double threshold = std::max({options.floorFraction * static_cast<double>(centre.onTimeNs),
                                     options.madFactor * 1.4826 * static_cast<double>(centre.spreadNs), 1000.0});
  std::vector<int64_t> arrivals;
  std::vector<uint32_t> touchedTrays, touchedRacks;
  for (uint32_t i = col.begin; i < col.end; ++i) {
    const Sample& s = logs.samples[index.order[i]];
    const uint32_t tray = placement.trayOfStream[s.stream];
    const int64_t start = s.endRealtimeNs - s.durationNs;
    const uint32_t clock = clocks.clockOfStream[s.stream];
    const bool known = clocks.consistent && clocks.clocks[clock].bounded;
    arrivals.push_back(known ? start - clocks.offsetAt(clock, start) : kUnknownArrival);
    if (counts.trayRanks[tray]++ == 0) touchedTrays.push_back(tray);
  }
  for (uint32_t tray : touchedTrays) {
    const uint32_t rack = placement.rackOfTray[tray];
    if (rack == kNone) continue;
    if (counts.rackTrays[rack]++ == 0) touchedRacks.push_back(rack);
    counts.rackRanks[rack] += counts.trayRanks[tray];
  }
  std::vector<int64_t> sortedArrivals = arrivals;
  const int64_t medianArrival = medianOfKnown(sortedArrivals);
  const PhaseCentre phases = phaseCentre(traits, index, col, options.floorFraction, options.madFactor);
  for (uint32_t i = col.begin; i < col.end; ++i) {
    const Sample& s = logs.samples[index.order[i]];
    const SampleTraits* own = traits.of(index.order[i]);
    const int64_t lateness = centre.onTimeNs - s.durationNs;
    const int64_t arrival = arrivals[i - col.begin];
    const int64_t relative =
        arrival == kUnknownArrival || medianArrival == kUnknownArrival ? kUnknownArrival : arrival - medianArrival;
    if (static_cast<double>(lateness) > threshold)
      outcome.late.push_back(LateEvent{s.stream, lateness, relative, arrivalCause(own, phases, lateness)});
    else if (const int64_t excess = slowComputeExcess(own, phases); excess > 0)
      outcome.late.push_back(LateEvent{s.stream, excess, relative, Cause::SlowCompute});
  }
  std::sort(outcome.late.begin(), outcome.late.end(), [&](const LateEvent& a, const LateEvent& b) {
    const uint32_t ta = placement.trayOfStream[a.stream], tb = placement.trayOfStream[b.stream];
    return ta != tb ? ta < tb : a.stream < b.stream;
  });
  lateGroups(placement, options, counts, &outcome);
  for (uint32_t tray : touchedTrays) ++counts.trayCollectives[tray], counts.trayRanks[tray] = 0;
  for (uint32_t rack : touchedRacks)
    ++counts.rackCollectives[rack], counts.rackRanks[rack] = counts.rackTrays[rack] = 0;
  return outcome;
}

}  // namespace

int64_t medianOfKnown(std::vector<int64_t>& values) {
  std::erase(values, kUnknownArrival);
  return values.empty() ? kUnknownArrival : medianOf(values);
}

LatenessResult measureLateness(const ProfileLogs& logs, const CollectiveIndex& index, const Placement& placement,
                               const StragglerOptions& options) {
  LatenessResult result;
  const std::vector<Centre> centre = centres(logs, index);
  const SampleTraitIndex traits(logs);
  result.clocks = estimateClocks(logs, index, placement.trayOfStream);
  result.outcomes.resize(index.collectives.size());
  const size_t trays = placement.trayNames.size(), racks = placement.rackNames.size();
  const size_t chunks = std::max(1u, std::thread::hardware_concurrency());
  std::vector<GroupCounts> counts(chunks);
  parallelFor(chunks, [&](size_t k) {
    GroupCounts& mine = counts[k];
    mine.trayCollectives.assign(trays, 0), mine.trayRanks.assign(trays, 0);
    mine.rackCollectives.assign(racks, 0), mine.rackRanks.assign(racks, 0), mine.rackTrays.assign(racks, 0);
    for (size_t c = k; c < index.collectives.size(); c += chunks)
      result.outcomes[c] =
          judge(logs, index, placement, options, centre[c], index.collectives[c], result.clocks, traits, mine);
  });
  result.trayCollectives.assign(trays, 0);
  result.rackCollectives.assign(racks, 0);
  for (const GroupCounts& mine : counts) {
    for (size_t t = 0; t < trays; ++t) result.trayCollectives[t] += mine.trayCollectives[t];
    for (size_t r = 0; r < racks; ++r) result.rackCollectives[r] += mine.rackCollectives[r];
  }
  result.streamCollectives.assign(logs.streams.size(), 0);
  for (uint32_t i : index.order) ++result.streamCollectives[logs.samples[i].stream];
  return result;
}

}  // namespace railtune::analysis::profile
