// How `profile stragglers`' answer compares with what a synthetic job injected: the offenders named
// (a rank, tray or rack named at the wrong level is a miss and a false one), and the host clocks
// (each host's offset against the truth, the arbitrary reference aligned away; hosts of one machine
// exactly equal).
#pragma once

#include <string>

#include "analysis/profile/stragglers.h"
#include "analysis/synth/synth_job.h"
#include "eval/common/suite.h"

namespace railtune::eval::stragglers {

struct Score {
  Counters counters;
  bool offendersExact = true;  // every injected offender named at its level, nothing else named
  bool clocksWithinTarget = true;
  std::string miss;  // what differs, for the report
};

// Counters: offenders_true, offenders_named, offenders_hit; clock_hosts, clocks_within_bars,
// clocks_unknown, max_clock_error_us, max_same_machine_us.
Score scoreReport(const analysis::synth::SynthJob& job, const analysis::profile::StragglerReport& report,
                  double clockTargetUs);

}  // namespace railtune::eval::stragglers
