// `railtune profile stragglers`: which ranks, trays and racks arrive late at the job's collectives.
// Host clocks differ by more than a collective lasts, so lateness within one collective is measured by
// duration deficit: a synchronising collective ends together on every rank, so the rank that arrived
// last waited least. lateness = the on-time duration (the median of the longer half of the collective's
// durations: the ranks that waited) - the rank's duration. Realtime arrival, corrected by each host's
// estimated clock offset (clocks.h), is reported beside it as a second signal.
// docs/profile-analysis.md describes the rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/profile/logs.h"
#include "analysis/profile/losses.h"
#include "analysis/profile/phase_causes.h"
#include "analysis/profile/user_tags.h"
#include "formats/rail_map.h"

namespace railtune::analysis::profile {

struct StragglerOptions {
  std::optional<std::string> job;  // only this job
  double floorFraction = 0.05;     // late: lateness > max(floor x on-time duration, ...
  double madFactor = 4.0;          // ... madFactor x 1.4826 x spread of the on-time durations, 1 µs)
  double groupFraction = 0.9;      // a tray or rack is late when this share of its ranks is late
  double minShare = 0.05;          // an offender is late in at least this share of its collectives
  uint64_t minCollectives = 3;     // ... and in at least this many
  TagNames tagNames;               // --tag-names: what the report calls each user tag
};

enum class Level { Rack, Tray, Rank };
const char* levelName(Level level);  // "rack", "tray", "rank"

struct Offender {
  Level level = Level::Rank;
  std::string rack;  // the rail map's domain; "" when unknown
  std::string host;  // tray and rank level
  int rank = -1;     // rank level
  bool hasComm = false;
  uint64_t comm = 0;  // rank level: the communicator the rank belongs to
  int ranks = 0;      // ranks in the offender
  uint64_t collectivesLate = 0, collectives = 0;
  double medianLatenessUs = 0, p90LatenessUs = 0;
  double medianArrivalLatenessUs = 0;  // the secondary signal, over the same collectives
  // Late to arrive or slow to compute, from the kernel phases of its late collectives (phase_causes.h);
  // Unknown without phases or when they do not agree.
  Cause cause = Cause::Unknown;
  uint64_t lateArrivals = 0, slowComputes = 0;  // its late collectives the phases explain each way
};

// One user tag and path of a job (tag_groups.h): its collectives, and the offenders named above that were
// late in a persistent share of them, with their counts, lateness and cause within the group.
struct TagGroup {
  bool tagged = false;
  uint64_t userTag = 0;
  formats::profile::OperationPath path = formats::profile::OperationPath::Tuned;
  uint64_t collectives = 0, lateEvents = 0;
  uint64_t mixed = 0;               // of its collectives, those whose ranks disagreed on tag or path
  std::vector<Offender> offenders;  // as JobStragglers::offenders, restricted to the group
};

// One collective: (comm, op, seq); NCCL counts seq per collective type.
struct LateCollective {
  bool hasComm = false;
  uint64_t comm = 0, seq = 0;
  std::string op;
  int ranks = 0, lateRanks = 0;
  double medianDurationUs = 0;
  int rank = -1;  // the latest rank (largest deficit)
  std::string host;
  double latenessUs = 0, arrivalLatenessUs = 0;
  std::vector<std::string> lateTrays, lateRacks;
  Cause cause = Cause::Unknown;  // the latest rank's
  CollectiveTrait trait;         // its user tag and path
};

struct CommSummary {
  bool hasComm = false;
  uint64_t comm = 0;
  int nRanks = 0;  // what the records say; 0 unknown
  int ranksSeen = 0;
  std::vector<int> missingRanks;
  uint64_t collectives = 0;
};

// One host's clock (clocks.h): its realtime minus the reference clock's at ClockSummary's time, the
// interval the collectives leave for it, the error bar (the distance to that interval's farther end)
// and its drift relative to the reference.
struct HostClock {
  std::string host;
  std::string clock;    // the boot id its processes named, or the host name when they named none
  bool bootId = false;  // clock is a boot id
  bool bounded = true;  // false: no synchronising collective links it to the reference (offset unknown)
  double offsetUs = 0, errorUs = 0, driftPpm = 0;
  double lowUs = 0, highUs = 0;  // the interval the collectives leave for the offset
};

struct ClockSummary {
  int clocks = 0, bootIdClocks = 0;  // distinct clocks; how many of them a boot id names
  std::string reference;             // the first host reading the reference clock
  int64_t referenceRealtimeNs = 0;   // when the offsets hold (the reference clock's realtime)
  uint64_t collectives = 0;          // synchronising collectives that bounded them
  uint64_t transfers = 0;            // ... and Send/Recv pairs between two hosts
  size_t windows = 0;                // windows the drift was fitted over; 0: none fitted
  double toleranceUs = 0;            // slack the collectives needed to agree (0 normally)
  bool consistent = true;            // false: they contradicted each other even with 4 ms of slack
};

struct JobStragglers {
  std::string job;
  int processes = 0, hosts = 0, racks = 0;
  bool racksKnown = false;            // a rail map was given
  std::vector<std::string> unmapped;  // hosts the rail map does not name
  std::vector<CommSummary> comms;
  uint64_t collectives = 0, lateEvents = 0;
  std::vector<Offender> offenders;   // racks, trays, then ranks; each by collectives late, lateness
  std::vector<LateCollective> late;  // every collective with a late rank, by lateness
  std::vector<TagGroup> groups;      // by user tag and path; empty when no record names either
  std::vector<HostClock> clocks;     // by host name
  ClockSummary clockSummary;
  std::vector<LossReport> losses;  // what the logs say was lost: those ranks took part less
};

struct StragglerReport {
  std::vector<JobStragglers> jobs;  // by job id
  TagNames tagNames;                // StragglerOptions::tagNames, for the renderers
};

StragglerReport analyseStragglers(const ProfileLogs& logs, const formats::RailMap* railMap,
                                  const StragglerOptions& options);

}  // namespace railtune::analysis::profile
