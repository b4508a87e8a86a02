// Stage C of `sweep fit`: corrections where NCCL's constants cannot express what was measured (Ring/Simple and
// NVLS bandwidth have no constant; a cap only lowers a bandwidth). Per cell and scale bucket (and, optionally,
// per collective) an affine map of the stage-B model's time, t' = k·t + c, fitted like a measured line
// (lines.h: relative weights, Huber passes) of measured against predicted time. A correction is kept only when
// it mends an in-sample pick, or when it lowers the in-sample regret of the points it touches by more than
// minRegretGain and is needed: the part of the stage-B model's miss on the cell that it explains is above the noise.
// Otherwise the cell stays as stage B has it (k = 1, c = 0).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "formats/tuner_model/tuner_model.h"
#include "nccl-tests-integration/fit/lines.h"
#include "nccl-tests-integration/fit/regret.h"

namespace railtune::sweep {

using formats::tuner_model::CommShape;
// The communicator shape a tuner sees at init (nRanks, nNodes), the key of a shape's own corrections.
inline CommShape commShapeOf(const Shape& s) {
  return CommShape{s.ranks, s.nodes < 1 ? 1 : s.nodes};
}

struct CorrectionKey {
  Cell cell;
  int scale = 0;                                  // scaleBucketOf
  std::optional<formats::Collective> collective;  // nullopt: every collective
  std::optional<CommShape> shape;                 // nullopt: every shape of the scale; else that shape only
  auto operator<=>(const CorrectionKey&) const = default;
  bool operator==(const CorrectionKey&) const = default;
};

struct Correction {
  CorrectionKey key;
  double timeScale = 1, timeAddUs = 0;       // k, c
  size_t points = 0;                         // cell points it was fitted on
  double maxRelResidual = 0;                 // of the corrected times against the measured ones
  double regretBefore = 0, regretAfter = 0;  // mean in-sample regret of the points it touches
};

struct CorrectionOptions {
  bool perCollective = false;
  double minRegretGain = 0;  // the regret (a fraction) a correction must save to be kept
  // A correction that mends no in-sample pick is kept only where the part of the cell's relative misses it explains
  // (root mean square) is above noiseFloor. 2.5 %: above what near-identity corrections explain on truths with no
  // misspecification (up to 2.1 %: 1 % noise, the tree's latency shape), below the smallest misspecification the fit
  // suite injects (Ring/Simple 5 % off).
  double noiseFloor = 0.025;
  int minPoints = 3;  // fewer cell points make no correction
  // Stage E: a shape whose worst in-sample regret under the shared fit is within this gets no correction of its
  // own (the size target: a shape's own correction fixes a wrong pick, it does not chase noise).
  double shapeWorstToFix = 0.05;
  LineOptions line;
};

// The corrections kept, by key. mask: the points stage C may use (all when null); base: the stage-B model.
std::vector<Correction> fitCorrections(const FitPoints& points, const PointMask* mask, const TimePredictor& base,
                                       const CorrectionOptions& options = {});

// Stage E: a measured shape's own corrections (the tuner keys them by the communicator's nRanks and nNodes, which
// its init receives). Per shape of the key whose training points `mask` keeps, a correction of `current`'s residual
// per cell (measured against `current`'s time, as stage C), only for a shape the shared fit leaves a pick worse than
// shapeWorstToFix, kept as a set only when it lowers that shape's worst and mean in-sample regret, and pruned to the
// cells that take part. Each is written composed with the scale's correction
// of its cell (`scaleCorrections`), as the most specific entry replaces the scale's. groups: the key's modelled
// groups.
std::vector<Correction> fitShapeCorrections(const FitPoints& points, std::span<const size_t> groups,
                                            const PointMask* mask, const TimePredictor& current,
                                            const std::vector<Correction>& scaleCorrections,
                                            const CorrectionOptions& options = {});

// base with the corrections applied (k·t + c on the cells they key; a shape's own correction before its scale's);
// the points give each group's scale, shape and collective, and must outlive the predictor.
TimePredictor corrected(const FitPoints& points, const TimePredictor& base, const std::vector<Correction>& corrections,
                        bool perCollective = false);

}  // namespace railtune::sweep
