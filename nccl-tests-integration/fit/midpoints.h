// The final fit checked between the measured sizes (docs/sweep.md, "Validation and the verdict"). A sweep measures
// sizes by 2 or 4 and the tuner picks at every size between: a correction or a constant that changes no measured
// pick may still flip one between two of them, and leaving one size out validates the refits, not the final fit
// there. So at the geometric midpoint of each two consecutive measured sizes of a group, each cell measured at both
// is given the model's time there times its measured-over-predicted ratio, interpolated between the two neighbours
// (midpoints.cc says why), and the final fit's pick among those cells is scored against the interpolated best.
// NCCL default's regret is not scored there: its cell may change between the two sizes.
#pragma once

#include <array>
#include <string>

#include "nccl-tests-integration/fit/key_model.h"
#include "nccl-tests-integration/fit/regret.h"

namespace railtune::sweep {

// The groups of `points` (same order, keys and collectives) with, per group, a size at the geometric midpoint of
// each two consecutive measured sizes that share a measured cell, and the interpolated cells there. predict: the
// model whose shape interpolates (a predictor of `points`' groups).
FitPoints midpointPoints(const FitPoints& points, const TimePredictor& predict);

struct BetweenSizes {
  RegretScore merged;
  std::array<RegretScore, kScaleBuckets> byScale;
  std::array<std::string, kScaleBuckets> worstAt;  // "allreduce, 4 ranks, ... at 8M", where the worst is
};

// The regret of `predict` (a predictor of `points`' groups, which the midpoints share) at the midpoints of the
// key's groups.
BetweenSizes scoreBetweenSizes(const FitPoints& points, const KeyShapes& shapes, const TimePredictor& predict);

}  // namespace railtune::sweep
