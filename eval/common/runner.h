// Runs a suite's scenarios and tallies them (suite.h): per kind the scenarios run, correct and missed
// (each miss with its seed), the summed counters, and each target met or not.
#pragma once

#include <string>
#include <vector>

#include "eval/common/suite.h"

namespace railtune::eval {

struct KindTally {
  std::string kind;
  int scenarios = 0, correct = 0;
  Counters counters;
};

struct TargetResult {
  Target target;
  double value = 0;
  bool met = false;
};

struct SuiteReport {
  std::string suite;
  std::vector<KindTally> kinds;        // in the suite's kinds() order, those that ran
  std::vector<ScenarioResult> misses;  // every scenario not correct, in run order
  Counters total;
  std::vector<TargetResult> targets;
  double seconds = 0;
  bool met() const;
};

struct RunOptions {
  RunContext context;
  std::vector<ScenarioSpec> only;  // when not empty, these scenarios instead of the set's
  SetSize set = SetSize::Ci;
  bool progress = false;  // a line per scenario on stderr
};

SuiteReport runSuite(const Suite& suite, const RunOptions& options);

// The table docs/accuracy.md shows, and the same as JSON (railtune.eval_report.v1).
std::string renderReportText(const std::vector<SuiteReport>& reports);
std::string renderReportJson(const std::vector<SuiteReport>& reports);

}  // namespace railtune::eval
