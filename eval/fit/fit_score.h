// How the fit suite judges one `sweep fit` result against the truth it was fitted on (docs/accuracy.md, "fit"):
//
// - constants: every constant the fit says it identified (the file gives it a value) against the truth's value,
//   relative error within 10 %;
// - picks: the fitted model's pick (predictPick, as `sweep compare --fitted` and the file's readers pick) among
//   every cell the shape offers, at sizes between the measured ones and at shapes nobody measured, scored by the
//   TRUE time (no noise) against the true best, beside NCCL default's pick (NCCL's model at its own constants);
// - verdict, as the tuner uses it (per scale bucket, usable or not): a usable bucket whose held-out points miss
//   the file's targets in truth (sizes: worst regret > size target, shapes: > shape target) is a false all-clear;
//   a not-usable bucket with data whose held-out points would have passed is a missed fit; a bucket with no data
//   must be not usable, and so must the 1-node bucket of a truth no constant or correction expresses.
#pragma once

#include <string>
#include <vector>

#include "eval/common/suite.h"
#include "eval/fit/fit_plan.h"
#include "nccl-tests-integration/fit/fit.h"

namespace railtune::eval::fit_suite {

inline constexpr double kConstantTolerance = 0.10;

struct FitJudgement {
  Counters counters;
  std::vector<std::string> notes;  // what made the scenario a miss, and what else a reader should see
  bool correct = true;
};

// measured and heldOut: the scenario's shapes as the renderer drew them (in the scenario's order).
FitJudgement judgeFit(const FitScenario& scenario, const fit_truth::TruthRenderer& truth,
                      const std::vector<fit_truth::ShapeTruth>& measured,
                      const std::vector<fit_truth::ShapeTruth>& heldOut, const sweep::FitResult& result);

}  // namespace railtune::eval::fit_suite
