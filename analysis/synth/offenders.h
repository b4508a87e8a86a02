// The slow parts injected into a synthetic job, at the three levels an operator acts on: a rank (one
// GPU or its process), a tray (a host: all its ranks late together) and a rack (an NVLink domain: all
// its ranks late together). Offenders never overlap: a slow tray is never in a slow rack, a straggler
// rank never in a slow tray or rack, so each one's lateness is its own. Either the seed picks them
// (counts: which ranks, trays and racks, in which collectives and by how much are pure functions of
// the seed, random.h), or they are named (`--late`: level, index, delay and share, exactly).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/synth/placement.h"
#include "analysis/synth/step_phases.h"

namespace railtune::analysis::synth {

enum class OffenderLevel { Rank, Tray, Rack };
const char* offenderLevelName(OffenderLevel level);  // "rank", "tray", "rack"

struct Offender {
  OffenderLevel level = OffenderLevel::Rank;
  int index = 0;           // rank, host index (JobPlacement::hosts) or domain index, by level
  std::vector<int> ranks;  // the ranks it makes late
};

struct OffenderCounts {
  int stragglers = 0, slowTrays = 0, slowRacks = 0;
};

// An offender named exactly: late by delayNs in every k-th collective, k = 1/share rounded (share 1:
// in every one), from collective 0.
struct NamedOffender {
  OffenderLevel level = OffenderLevel::Rank;
  int index = 0;  // rank; tray (host) and rack (NVLink domain) in the order the job fills them
  int64_t delayNs = 0;
  double share = 1.0;
};

// Late in about this share of the collectives, by 200..2,000 microseconds each time.
inline constexpr double kLateShare = 0.3;
inline constexpr int64_t kMinDelayNs = 200'000, kMaxDelayNs = 2'000'000;

struct Offenders {
  std::vector<Offender> list;        // racks, then trays, then ranks
  std::vector<int> ofRank;           // per rank: index into list, -1 for a rank that is on time
  std::vector<NamedOffender> named;  // parallel to list when the offenders were named; empty when picked
  // Parallel to list (empty: none): its delay is a slow compute phase, not a late arrival (step_phases.h);
  // it is late only in the collectives of this user tag (0: in any).
  std::vector<bool> slowCompute;
  std::vector<uint64_t> onlyTag;

  // How late offender `o` is in collective `seq` (arriving, or computing): 0 when it is on time there.
  int64_t delayNs(uint64_t seed, int o, uint64_t seq) const;
  bool computeBound(int o) const { return !slowCompute.empty() && slowCompute[static_cast<size_t>(o)]; }
};

// Draws, per offender, whether it is slow to compute and whether it is late in one tag only (V7Spec).
Offenders withV7Truth(Offenders offenders, const V7Spec& spec, uint64_t seed);

// Throws SynthError when the job is too small for the counts (at least one rack, tray and rank must
// stay on time, or nothing would be late relative to anything).
Offenders pickOffenders(const JobPlacement& job, const OffenderCounts& counts, uint64_t seed);

// "rank:5:150", "tray:3:120:0.25", "rack:2:90:0.5": LEVEL:INDEX:DELAY_US[:SHARE]. Throws SynthError
// naming the text and the form expected.
NamedOffender parseNamedOffender(const std::string& text);

// The named offenders, in the order given. Throws SynthError naming the offender for an index the job
// does not have, a delay below 1 us, a share outside (0, 1], or two offenders that share a rank.
Offenders nameOffenders(const JobPlacement& job, const std::vector<NamedOffender>& named);

}  // namespace railtune::analysis::synth
