// What `railtune sweep fit` prints (docs/sweep.md "Fitting NCCL's model"): per fit key the constants that moved
// (NCCL's value beside the fitted one), the corrections with why, the validation table (in-sample, leave one size
// out, leave one shape out: worst and mean regret beside NCCL default's at the same points), the verdict per scale
// bucket; then the groups that were not fitted and why.
#pragma once

#include <string>

#include "nccl-tests-integration/fit/fit.h"

namespace railtune::sweep {

std::string renderFitReport(const FitResult& result);

}  // namespace railtune::sweep
