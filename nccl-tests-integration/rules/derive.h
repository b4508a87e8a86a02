// Tuner rules from a sweep (`railtune sweep rules`): at each measured size of each collective × shape, the
// choice with the highest median busbw wins only when it beats NCCL's default by more than the noise: the
// larger of --min-gain (5 %) and the run-to-run spread of both (statsOf), and at least kOneRunNoise when either
// rests on fewer than 2 runs (a run's out-of-place and in-place halves are one run). Sizes between two measured ones
// go to the nearer (the boundary is their midpoint); adjacent sizes with the same winner become one range;
// sizes outside the measured ones, and every size where the default holds, get no rule: NCCL decides there.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nccl-tests-integration/rules/aggregate.h"

namespace railtune::sweep {

// The least a gain must exceed when the winner or the default rests on fewer than 2 runs, whose spread says
// nothing of run-to-run noise. No published figure for nccl-tests' run-to-run busbw spread was found
// (docs/sweep.md#one-run-evidence): this is --min-gain's default, so that a lower --min-gain never lets one
// run's luck make a rule.
inline constexpr double kOneRunNoise = 0.05;

struct RulesOptions {
  double minGain = 0.05;  // a winner must beat the default by more than this fraction (and the spread)
};

// What was decided at one measured size.
struct SizeDecision {
  uint64_t size = 0;
  uint64_t low = 0, high = 0;  // the sizes this point decides (nearer-point ranges)
  Choice best;                 // the highest median busbw measured here (the default when it is best)
  ChoiceStats bestStats, defaultStats;
  bool hasDefault = false;
  bool ruled = false;    // best beat the default by more than the threshold: a rule covers this size
  double gain = 0;       // best / default - 1 (0 without a default)
  double threshold = 0;  // what the gain had to exceed
  // "ring/ll128 +20.1 % > --min-gain 5.0 %", "ring/ll128 +3.2 % <= spread 4.1 %", "ring/ll128 +4.0 % <= one-run
  // noise 5.0 % (1 run each)", "NCCL's default is best" (only where a rival was measured), "only NCCL's default
  // measured", "no NCCL default measured"
  std::string why;
};

struct GroupDecisions {
  GroupKey key;
  std::vector<SizeDecision> sizes;  // by size
};

// One rule: a choice over a contiguous range of sizes for one collective and shape, with its evidence.
struct DerivedRule {
  GroupKey key;
  Choice choice;
  uint64_t minBytes = 0, maxBytes = 0;
  std::vector<uint64_t> sizes;  // the measured sizes behind it
  double minGain = 0, maxGain = 0;
  int samples = 0;  // the winner's samples, all sizes together
  int defaultSamples = 0;
  int runs = 0, defaultRuns = 0;  // the fewest distinct runs behind the winner, and the default, at any of its sizes
  double maxSpread = 0;           // the largest spread of winner or default at its sizes
};

struct CoverageNote {
  std::string collective;  // "" for the whole dataset
  std::string shape;       // Shape::label(), "" when it concerns every shape
  std::string text;
};

struct DerivedRules {
  std::vector<GroupDecisions> groups;
  std::vector<DerivedRule> rules;
  std::vector<CoverageNote> coverage;  // where there is no data, or no rule can be made: NCCL decides there
};

DerivedRules deriveRules(const Aggregate& aggregate, const RulesOptions& options);

// "4 MiB", "192 MiB", "8 B", "1.5 KiB"
std::string sizeText(uint64_t bytes);
// 0.201 -> "+20.1 %"
std::string signedPercent(double fraction);
// A number for a person to read, never a 300-digit figure: "%.*f" below 1e7 in magnitude, else three significant
// digits ("1.23e+09"); "-" for NaN or infinity.
std::string fixedText(double value, int decimals, bool sign = false);

}  // namespace railtune::sweep
