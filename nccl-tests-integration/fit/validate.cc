// Validation and verdicts of one key's fit (validate.h).
#include "nccl-tests-integration/fit/validate.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace railtune::sweep {
namespace {

// The between-sizes check estimates each cell between two measured sizes from their measured-over-predicted ratios
// (midpoints.h); at a cell's knee that estimate is off by up to 2.3 points of regret (railtune eval fit --set full:
// 4.4 % estimated where the truth is 6.7 %). So it passes a fit only below 60 % of the size target (3 % of 5 %),
// which no estimate there exceeded by more than the target.
constexpr double kBetweenSizesShare = 0.6;

std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %%", fraction * 100);
  return text;
}

std::string worstText(const FitPoints& points, const RegretSummary& s) {
  return percent(s.worst) + (s.worstAt ? " at " + pointLabel(points, *s.worstAt) : "");
}

void scoreInSample(const FitPoints& points, const KeyShapes& shapes, const TimePredictor& predict, KeyValidation& out) {
  std::array<std::vector<PointRef>, kScaleBuckets> byScale;
  std::array<std::set<CommShape>, kScaleBuckets> measured;
  for (const PointRef ref : keyPoints(points, shapes)) {
    const Shape& shape = points.groups[ref.group].key.group.shape;
    byScale[scaleBucketOf(shape)].push_back(ref);
    measured[scaleBucketOf(shape)].insert(commShapeOf(shape));
  }
  for (int b = 0; b < kScaleBuckets; ++b) out.measuredShapes[b].assign(measured[b].begin(), measured[b].end());
  for (int b = 0; b < kScaleBuckets; ++b) {
    out.inSampleByScale[b] = scoreRegret(points, byScale[b], predict);
    out.inSample.merge(out.inSampleByScale[b]);
  }
}

std::vector<std::string> misses(const FitPoints& points, const std::vector<Split>& splits, const ValidationScore& score,
                                double target) {
  std::vector<std::string> out;
  for (size_t i = 0; i < splits.size() && i < score.splits.size(); ++i) {
    const RegretSummary& s = score.splits[i].score.model;
    if (score.splits[i].ran && s.points > 0 && s.worst > target)
      out.push_back(splits[i].heldOut + " held out: " + worstText(points, s));
  }
  return out;
}

std::string shapesText(const std::vector<CommShape>& shapes) {
  std::string out;
  for (const CommShape& s : shapes) out += (out.empty() ? "" : "; ") + formats::tuner_model::commShapeLabel(s);
  return out;
}

// "leave-one-size-out worst 1.2 %, between measured sizes 0.4 % <= 5.0 %", for a bucket within the size target.
std::string sizesWithin(const KeyValidation& v, int b, const ValidateOptions& options) {
  return "leave-one-size-out worst " + percent(v.sizeOut.byScale[b].model.worst) +
         " <= " + percent(options.sizeTarget) + ", between measured sizes " +
         percent(v.betweenSizes.byScale[b].model.worst) + " <= " + percent(kBetweenSizesShare * options.sizeTarget);
}

}  // namespace

const char* scaleBucketLabel(int bucket) {
  return bucket == 0 ? "1 node" : bucket == 1 ? "2 nodes" : "4 or more nodes";
}

KeyValidation validateKey(const FitPoints& points, std::shared_ptr<const KeyShapes> shapes, const KeyFit& fit,
                          const formats::CostModelConstants& defaults, const ValidateOptions& options) {
  KeyValidation out;
  const TimePredictor final = predictorOf(points, fit.model);
  scoreInSample(points, *shapes, final, out);
  out.betweenSizes = scoreBetweenSizes(points, *shapes, final);
  if (!options.validate) return out;
  const std::vector<Split> sizeSplits = leaveOneSizeOutSplits(points, shapes->groups);
  const std::vector<Split> shapeSplits = leaveOneShapeOutSplits(points, shapes->groups);
  out.sizeSplits = sizeSplits.size();
  out.shapeSplits = shapeSplits.size();
  for (const Split& s : shapeSplits) out.heldOutShapes.push_back(s.heldOut);
  const Refit refit = [&](const Split& split) {
    const KeyFit refitted = fitKey(points, shapes, &split.training, defaults, options.refit);
    return predictorOf(points, refitted.model);
  };
  const SplitRunOptions run{options.threads, options.deadline};
  out.sizeOut = runSplits(points, sizeSplits, refit, run);
  out.shapeOut = runSplits(points, shapeSplits, refit, run);
  out.sizeMisses = misses(points, sizeSplits, out.sizeOut, options.sizeTarget);
  out.shapeMisses = misses(points, shapeSplits, out.shapeOut, options.shapeTarget);
  out.ran = true;
  out.truncated = out.sizeOut.truncated() || out.shapeOut.truncated();
  return out;
}

std::array<BucketVerdict, kScaleBuckets> verdicts(const FitPoints& points, const KeyValidation& v,
                                                  const ValidateOptions& options) {
  std::array<BucketVerdict, kScaleBuckets> out;
  for (int b = 0; b < kScaleBuckets; ++b) {
    BucketVerdict& verdict = out[b];
    const RegretSummary& sizes = v.sizeOut.byScale[b].model;
    const RegretSummary& shapes = v.shapeOut.byScale[b].model;
    if (v.inSampleByScale[b].model.points == 0) {
      verdict.why = std::string("no data at ") + scaleBucketLabel(b);
    } else if (!v.ran) {
      verdict.why = "not validated (--no-validate)";
    } else if (v.truncated) {
      verdict.why = "validation truncated by the time budget (--max-seconds)";
    } else if (sizes.points == 0) {
      verdict.why = "no size could be held out (a group needs 3 measured sizes)";
    } else if (sizes.worst > options.sizeTarget) {
      verdict.why = "leave-one-size-out worst " + worstText(points, sizes) + " > " + percent(options.sizeTarget);
    } else if (const RegretSummary& mid = v.betweenSizes.byScale[b].model;
               mid.worst > kBetweenSizesShare * options.sizeTarget) {
      verdict.why = "between measured sizes worst " + percent(mid.worst) + " at " + v.betweenSizes.worstAt[b] + " > " +
                    percent(kBetweenSizesShare * options.sizeTarget) + " (an estimate: 60 % of the size target)";
    } else if (shapes.points == 0 || shapes.worst > options.shapeTarget) {
      // Nothing says how the fit does at a shape nobody measured: with one shape at a scale there is none to hold
      // out, and a fit on 72 ranks of one domain can be far off at 36 (eval fit, kind domains).
      verdict.measuredShapesUsable = true;
      verdict.shapes = v.measuredShapes[b];
      verdict.why =
          "usable only at the measured shapes (" + shapesText(verdict.shapes) + "): " + sizesWithin(v, b, options) +
          (shapes.points > 0
               ? "; leave-one-shape-out worst " + worstText(points, shapes) + " > " + percent(options.shapeTarget)
               : "; no shape could be held out at this scale") +
          ", so NCCL decides at a shape nobody measured";
    } else {
      // Usable between the smallest and the largest rank count measured: leaving one shape out checks a shape
      // next to measured ones, and says nothing of 32 ranks from 4 and 8 (eval fit, kind unmeasured-ranks: 12-30 %
      // off at 16 where predicting 8 from 4 was within target).
      verdict.usable = true;
      for (const CommShape& s : v.measuredShapes[b]) {
        verdict.minRanks = verdict.minRanks == 0 ? s.ranks : std::min(verdict.minRanks, s.ranks);
        verdict.maxRanks = std::max(verdict.maxRanks, s.ranks);
      }
      verdict.why = sizesWithin(v, b, options) + "; leave-one-shape-out worst " + percent(shapes.worst) +
                    " <= " + percent(options.shapeTarget) + "; applies from " + std::to_string(verdict.minRanks) +
                    " to " + std::to_string(verdict.maxRanks) + " ranks, the measured range";
    }
  }
  return out;
}

}  // namespace railtune::sweep
