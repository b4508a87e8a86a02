// Stage D of `sweep fit`: rank-aware refinement. The model's parameters (identified constants, caps,
// corrections: whatever the caller maps to a predictor) are moved so that its picks lose the least bandwidth,
// starting from the least-squares stages' values. Regret (regret.h) is piecewise constant in the parameters, so
// the search follows a smooth stand-in: at each size the expected regret of a pick drawn with probability
// softmax(−log t̂ / τ) over the measured cells the model offers, annealing τ so that the stand-in sharpens into
// the true regret, plus a pull μ·Σ((θ − θ₀)/θ₀)² toward the starting values. The search is coordinate-wise:
// per parameter a golden-section search over log θ within its bounds, keeping a move only when it lowers the
// objective; only the points a parameter affects are re-evaluated. The result is checked on the true regret:
// unless the regret above the tie band (picks within 2.5 % of the best) is lower than at the start, and the mean not
// higher, the start is kept.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "nccl-tests-integration/fit/regret.h"

namespace railtune::sweep {

struct RefineParameter {
  std::string name;                  // "hwLatencies[NVLINK][Ring][LL128]", for the caller's notes
  double value = 1, lo = 0, hi = 0;  // positive; the search stays within [lo, hi]
  std::vector<PointRef> affects;     // the points whose predictions depend on it; empty: every point
};

// The predictor of the model these parameter values make (in the parameters' order).
using ModelOf = std::function<TimePredictor(std::span<const double> values)>;

struct RefineOptions {
  int maxSweeps = 20;
  double minImprovement = 1e-4;  // a sweep at the final τ that gains less ends the search
  double tauStart = 0.3, tauEnd = 0.01;
  int annealSweeps = 10;  // sweeps over which τ falls from tauStart to tauEnd (geometrically)
  double pull = 1e-3;     // μ
  // Picks within this regret of the best are ties the measurement cannot order: the values move only when the true
  // regret above it falls (and the mean does not rise).
  double tieRegret = 0.025;
  int goldenSteps = 12;  // evaluations per parameter and sweep
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

struct RefineResult {
  std::vector<double> values;  // the parameters' final values (the start's when the guard kept it)
  RegretScore before, after;   // true regret at the start and at the returned values
  bool moved = false;          // the refinement's values were kept (true regret above the ties lower)
  bool guarded = false;        // the search moved, but its true regret was worse: the start was kept
  int sweeps = 0;
  bool truncated = false;  // the deadline stopped it
};

// The stand-in's mean over the points at this τ (the pull not included). Points with no candidate count 0.
double surrogateRegret(const FitPoints& points, std::span<const PointRef> at, const TimePredictor& predict, double tau);

// Throws std::invalid_argument for a parameter whose value is not within 0 < lo <= value <= hi.
RefineResult refine(const FitPoints& points, std::span<const PointRef> at, const std::vector<RefineParameter>& start,
                    const ModelOf& modelOf, const RefineOptions& options = {});

}  // namespace railtune::sweep
