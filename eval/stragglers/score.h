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
  bool causesRight = true;  // no offender given a wrong cause, none guessed without phases
  bool tagsRight = true;    // tag-only stragglers in their tag's group only; symmetric collectives apart
  std::string miss;         // what differs, for the report
};

// Counters: offenders_true, offenders_named, offenders_hit; clock_hosts, clocks_within_bars,
// clocks_unknown, max_clock_error_us, max_same_machine_us; of the offenders found, causes_true (with
// phases), causes_right, causes_unknown, causes_wrong, and causes_unphased / causes_guessed (without
// phases: any cause but unknown is a guess); tag_offenders, tag_hits, tag_false (tag-only rank
// stragglers in their tag's group, and in another's); path_checks, path_right (the symmetric-kernel
// collectives grouped apart, exactly).
Score scoreReport(const analysis::synth::SynthJob& job, const analysis::profile::StragglerReport& report,
                  double clockTargetUs);

}  // namespace railtune::eval::stragglers
