// Regret, as `sweep compare --model` scores the cost model and `sweep fit` scores a fitted model: how much
// bandwidth a pick gives up against the best choice measured at the same size. One definition for both, so
// the two commands' figures are the same figure.
#pragma once

#include <optional>

namespace railtune::sweep {

// best / pick - 1 (0 when the pick is the best); nullopt when the pick's busbw is not positive.
inline std::optional<double> regretOf(double bestBusbw, double pickBusbw) {
  if (!(pickBusbw > 0)) return std::nullopt;
  return bestBusbw / pickBusbw - 1;
}

}  // namespace railtune::sweep
