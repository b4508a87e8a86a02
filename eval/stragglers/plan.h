// What one stragglers scenario injects, decided from (kind, seed, ranks) alone: the synthetic job's
// options (analysis/synth: offenders, jitter, host clocks, boot ids) and the rail map it is placed on
// (GB300 trays of 4 GPUs, racks of 2 to 18 trays), so that any miss replays from its seed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/synth/synth_job.h"
#include "eval/common/suite.h"

namespace railtune::eval::stragglers {

// The kinds, in the order the report lists them.
const std::vector<std::string>& kinds();

struct Plan {
  analysis::synth::SynthOptions options;
  std::string railMapJson;  // railtune.rail_map.v1
  int traysPerRack = 0;
  bool damaged = false;  // the kind feeds the logs truncated and shuffled to the CLI
  std::string shape;     // "64 ranks on 16 trays in 4 racks, 300 collectives, ..."
};

// Seeds from kFullSeeds on draw the full set's shapes (8..512 ranks, 300..1,000 collectives); smaller
// ones CI's (8..256 ranks, 300 collectives), so that (kind, seed) alone replays any scenario.
inline constexpr uint64_t kFullSeeds = 1000;
inline constexpr uint64_t kCiSeeds = 12;

// Throws std::invalid_argument for an unknown kind.
Plan makePlan(const ScenarioSpec& spec);

// The rail map of `trays` GB300 trays (4 GPUs, GPU g on rail g through mlx5_g), `traysPerRack` to an NVLink
// domain, as railtune.rail_map.v1 text: what every plan is placed on (and bench_profile_clocks too).
std::string railMapJson(int trays, int traysPerRack);

// The scenarios of a set: per kind kCiSeeds fixed seeds (CI); the full set adds 40 more per kind.
std::vector<ScenarioSpec> scenarioList(SetSize set);

}  // namespace railtune::eval::stragglers
