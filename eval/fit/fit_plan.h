// The fit suite's scenarios (docs/accuracy.md, "fit"): per kind, what is injected into the truth (fit_truth.h),
// which shapes are measured and fitted, and which shapes nobody measured are asked about afterwards. Every seed
// perturbs NCCL's constants anew; the kind adds one misspecification real clusters show (or all of them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "eval/fit/fit_truth.h"

namespace railtune::eval::fit_suite {

struct FitScenario {
  fit_truth::Truth truth;
  std::vector<fit_truth::RenderedShape> measured;  // rendered with noise and fitted
  std::vector<fit_truth::RenderedShape> heldOut;   // never measured: scored against the truth only
  std::vector<ncclmodel::ConstId> perturbed;       // the constants the truth moved off NCCL's
  // The truth has a cell no constant or correction expresses: the 1-node verdict must be "not usable".
  bool mustRefuse = false;
  std::string shape;  // what the seed drew, in a few words
};

std::vector<std::string> fitKinds();
// Throws std::runtime_error for a kind fitKinds() does not list.
FitScenario planFitScenario(const std::string& kind, uint64_t seed);

}  // namespace railtune::eval::fit_suite
