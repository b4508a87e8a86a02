// Runs `profile hangs` on a folder of logs and judges its answer against the truth (hangs_suite.h,
// internal); and the same folder truncated and shuffled.
#pragma once

#include <cstdint>
#include <string>

#include "eval/common/suite.h"
#include "eval/hangs/synth_job.h"

namespace railtune::eval::hangs {

struct Verdict {
  bool correct = false;
  std::string miss;  // what the truth was and what the analysis said
  bool hangReported = false;
  bool named = false;  // a root cause was named (right or wrong)
  int taggedHung = 0;  // hung operations listed in a job whose records carry tags (Truth::commTags)
  int tagRight = 0;    // ... that name their communicator's tag
};

// truth.kind "rank" and "link" may leave hosts and pids empty (emulated jobs, one communicator: matched
// on the ranks alone).
Verdict judgeHangs(const std::string& dir, const Truth& truth);

// Copies `dir` with lines shuffled and files cut (one at least mid-line), runs the analysis on the copy:
// counters bad_input_runs, bad_input_unreported (cut lines the reader did not report), bad_input_errors.
Counters badInputCheck(const std::string& dir, const std::string& copyDir, uint64_t seed);

}  // namespace railtune::eval::hangs
