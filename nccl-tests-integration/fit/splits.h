// The validation splits of `sweep fit` (issue 30), per fit key (one GPU model and fabric):
//
// - leave one size out: for each size measured strictly inside some group's range (not its smallest or largest
//   measured size), that size is dropped from every group of the key; the refit predicts the pick at that size
//   in each group where it lies strictly inside the group's range (a held-out end would be extrapolation, which
//   this split does not claim to measure).
// - leave one shape out: for each communicator shape of the key that is not both the smallest in ranks and the
//   smallest in NVLink domains, every group of that shape is dropped; the refit predicts all its sizes. These are
//   the cases: fit on 4 and 8 ranks, predict 16; fit on 1 and 2 NVLink domains, predict 4.
//
// runSplits refits each split on its training points (the caller's refit) on the shared work pool and scores
// the predictions on the held-out points (regret.h).
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "nccl-tests-integration/fit/regret.h"

namespace railtune::sweep {

enum class SplitKind { LeaveOneSizeOut, LeaveOneShapeOut };
const char* splitKindName(SplitKind kind);  // "leave one size out", "leave one shape out"

struct Split {
  SplitKind kind = SplitKind::LeaveOneSizeOut;
  std::string heldOut;           // "1M" or the shape's label
  PointMask training;            // the key's points the refit may use (other keys' groups: none)
  std::vector<PointRef> scored;  // the held-out points whose picks are scored
};

// groups: the indices of one fit key's groups (FitPoints::groupsByFitKey). Splits with nothing to score, or
// nothing left to train on, are not made.
std::vector<Split> leaveOneSizeOutSplits(const FitPoints& points, std::span<const size_t> groups);
std::vector<Split> leaveOneShapeOutSplits(const FitPoints& points, std::span<const size_t> groups);

// Fits on split.training and returns the fitted model's predictor (it must outlive nothing but the scoring of
// that split). Called from several threads at once, one split each.
using Refit = std::function<TimePredictor(const Split& split)>;

struct SplitRunOptions {
  unsigned threads = 0;  // parallelFor's: 0 = the pool's default
  // Splits not started by then are not run (the validation is then truncated, and says so).
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

struct SplitOutcome {
  bool ran = false;
  RegretScore score;                               // every held-out point
  std::array<RegretScore, kScaleBuckets> byScale;  // the same points by their group's scale bucket
};

struct ValidationScore {
  RegretScore merged;                              // every held-out point of the splits that ran
  std::array<RegretScore, kScaleBuckets> byScale;  // the same by scale bucket: the verdict is per bucket
  std::vector<SplitOutcome> splits;                // as given
  size_t notRun = 0;                               // splits left at the deadline
  bool truncated() const { return notRun > 0; }
};

// The first refit that throws stops the rest, and its exception is rethrown.
ValidationScore runSplits(const FitPoints& points, const std::vector<Split>& splits, const Refit& refit,
                          const SplitRunOptions& options = {});

}  // namespace railtune::sweep
