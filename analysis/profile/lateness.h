// Per collective: who was late and by how much (the passes of `profile stragglers`, internal).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/profile/clocks.h"
#include "analysis/profile/collectives.h"
#include "analysis/profile/phase_causes.h"
#include "analysis/profile/stragglers.h"

namespace railtune::analysis::profile {

// Where each stream sits: its tray (job-local host index) and that tray's rack (kNone: unknown).
struct Placement {
  std::vector<uint32_t> trayOfStream;  // per stream of the logs; kNone when not in the job
  std::vector<uint32_t> rackOfTray;
  std::vector<std::string> trayNames, rackNames;
};

// An arrival lateness that cannot be known: the rank's clock is not linked to the reference (clocks.h).
inline constexpr int64_t kUnknownArrival = INT64_MIN;

// The median of the values other than kUnknownArrival (reordering them); kUnknownArrival when none is known.
int64_t medianOfKnown(std::vector<int64_t>& values);

// A rank late by its duration deficit (latenessNs), or found slow to compute from its kernel phases
// (latenessNs: how much longer its compute phase was than its peers'), and why (phase_causes.h).
struct LateEvent {
  uint32_t stream = 0;
  int64_t latenessNs = 0, arrivalNs = 0;
  Cause cause = Cause::Unknown;
};

// A tray or rack nearly all of whose ranks were late together; lateness is its late ranks' median.
struct GroupLate {
  uint32_t group = 0;
  int64_t latenessNs = 0, arrivalNs = 0;
  Cause cause = Cause::Unknown;  // what its late ranks' events say together (CauseTally)
};

struct CollectiveOutcome {
  int64_t medianDurationNs = 0;
  int ranks = 0;
  std::vector<LateEvent> late;          // by stream
  std::vector<GroupLate> trays, racks;  // by group index
};

struct LatenessResult {
  std::vector<CollectiveOutcome> outcomes;                 // per collective of the index
  ClockModel clocks;                                       // the host clocks' estimated offsets
  std::vector<uint64_t> trayCollectives, rackCollectives;  // collectives each group took part in
  std::vector<uint64_t> streamCollectives;
};

LatenessResult measureLateness(const ProfileLogs& logs, const CollectiveIndex& index, const Placement& placement,
                               const StragglerOptions& options);

}  // namespace railtune::analysis::profile
