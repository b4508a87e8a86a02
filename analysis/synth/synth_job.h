// One synthetic job, fully decided before anything is written: options, rail map, placement,
// offenders, connections and timeline. Everything the writers render is a pure function of it, so
// any rank's files can be rendered on any thread in any order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/synth/connections.h"
#include "analysis/synth/offenders.h"
#include "analysis/synth/placement.h"
#include "analysis/synth/timeline.h"
#include "common/identity.h"
#include "formats/rail_map.h"

namespace railtune::analysis::synth {

struct SynthOptions {
  int ranks = 0;
  std::string job;  // empty: "synth-<ranks>"
  int connectionsPerRank = 32;
  int collectives = 1000;
  OffenderCounts offenders{3, 1, 1};
  std::vector<NamedOffender> late;  // when given, these offenders instead of the counts' picks
  TimingSpread spread;              // jitter and clock offsets (timeline.h)
  std::vector<int> silentRanks;     // ranks that write no file at all (a host whose logs never arrived)
  bool pathLog = true;              // also each rank's path log
  int crossRail = 1;
  uint64_t seed = 1;
  bool mnnvl = true;
  bool net = false;      // also the profiler's network summaries
  bool bootIds = false;  // each collective log starts with the plugin's header line, naming the machine's boot id
  V7Spec v7;             // profiler v7 records: user tags, paths, kernel phases (step_phases.h)
};

struct SynthJob {
  SynthJob(const SynthOptions& options, formats::RailMap map);
  SynthJob(const SynthJob&) = delete;  // the parts below refer to each other
  SynthJob& operator=(const SynthJob&) = delete;

  SynthOptions options;
  formats::RailMap map;
  JobPlacement placement;
  Offenders offenders;
  ConnectionPlan connections;
  Timeline timeline;
  uint64_t comm = 0;    // NCCL's commId of the job's one communicator
  uint64_t digest = 0;  // the configuration digest every rank computed (all equal)

  int ranks() const { return static_cast<int>(placement.ranks.size()); }
  int pidOf(int rank) const { return kFirstPid + rank; }  // one process per rank, each its own pid
  Identity identityOf(int rank) const;
  // The boot id of the machine the host is on (TimingSpread::hostsPerClock hosts share one), in the
  // kernel's UUID form.
  std::string bootIdOf(int host) const;

  static constexpr int kFirstPid = 20000;
};

// Validates the options (a clear message naming the option) and decides the job.
std::unique_ptr<SynthJob> makeSynthJob(const SynthOptions& options, formats::RailMap map);

}  // namespace railtune::analysis::synth
