// Stage E of `sweep fit` (corrections.h fitShapeCorrections) and the verdict per shape, on injected truth where 8
// ranks of one NVLink domain rank Ring/LL128 apart from 4 and 16 (8 ranks' Ring/LL128 40 % faster than NCCL's model
// says, the others as rendered): no correction shared by the scale can be right at every rank count; the scale's
// follows one side and the other gets a correction of its own. That says nothing of a shape nobody measured, so
// leave-one-shape-out predicts a held-out shape without one, and where that misses while the held-out sizes pass
// the verdict is "usable at the measured shapes only", listing them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "eval/fit/fit_plan.h"
#include "eval/fit/fit_truth.h"
#include "nccl-tests-integration/fit/fit.h"
#include "nccl-tests-integration/fit/report.h"

namespace railtune::sweep {
namespace {

using namespace eval::fit_truth;  // NOLINT: the truth generator the fit is scored on

FitPoints opposite(unsigned seed) {
  Truth truth;
  truth.seed = seed;
  FitPoints points = render(truth, {{4, 1}, {8, 1}, {16, 1}});
  for (GroupPoints& g : points.groups) {
    if (g.key.group.shape.ranks != 8) continue;
    for (SizePoint& s : g.sizes)
      for (CellPoint& c : s.cells)
        if (c.cell == Cell{formats::Algorithm::Ring, formats::Protocol::LL128}) c.timeUs *= 0.6, c.busbw /= 0.6;
  }
  return points;
}

size_t own(const std::vector<Correction>& corrections, int ranks) {
  return static_cast<size_t>(std::count_if(corrections.begin(), corrections.end(), [&](const Correction& c) {
    return c.key.shape && c.key.shape->ranks == ranks;
  }));
}

FitOptions shapeFitOptions() {
  FitOptions o;
  o.maxSeconds = 600;
  o.threads = 2;
  return o;
}

// Leave one shape out is the tuner at a shape nobody measured: each held-out shape's score is exactly that of the
// refit without it (the validation's options), which has no correction of that shape's own.
void expectHonestShapeSplits(const FitPoints& points, const KeyFitReport& key, const FitOptions& o) {
  KeyFitOptions refitOptions = o.fit;
  refitOptions.refineOptions.maxSweeps = std::min(refitOptions.refineOptions.maxSweeps, 5);
  const std::vector<Split> splits = leaveOneShapeOutSplits(points, key.shapes->groups);
  ASSERT_EQ(splits.size(), key.validation.shapeOut.splits.size());
  for (size_t i = 0; i < splits.size(); ++i) {
    const KeyFit refit = fitKey(points, key.shapes, &splits[i].training,
                                formats::ncclDefaultConstants(formats::NcclRelease::V2_30), refitOptions);
    EXPECT_EQ(own(refit.corrections, std::stoi(splits[i].heldOut)), 0u) << splits[i].heldOut;
    const RegretScore direct = scoreRegret(points, splits[i].scored, predictorOf(points, refit.model));
    EXPECT_EQ(direct.model.worst, key.validation.shapeOut.splits[i].score.model.worst) << splits[i].heldOut;
    EXPECT_EQ(direct.model.mean, key.validation.shapeOut.splits[i].score.model.mean) << splits[i].heldOut;
  }
}

// The verdict follows the held-out figures, never the in-sample ones, and the file says the same.
void expectVerdictFromHeldOut(const FitResult& r) {
  const KeyFitReport& key = r.keys.at(0);
  const KeyValidation& v = key.validation;
  const bool sizes = v.sizeOut.byScale[0].model.worst <= 0.05;
  const bool shapes = v.shapeOut.byScale[0].model.points == 0 || v.shapeOut.byScale[0].model.worst <= 0.10;
  EXPECT_EQ(key.verdicts[0].usable, sizes && shapes) << key.verdicts[0].why;
  EXPECT_EQ(key.verdicts[0].measuredShapesUsable, sizes && !shapes) << key.verdicts[0].why;
  const formats::tuner_model::Verdict& written = r.model.fits.at(0).usable[0];
  EXPECT_EQ(written.usable, key.verdicts[0].usable);
  EXPECT_EQ(written.measuredShapesUsable, key.verdicts[0].measuredShapesUsable);
  EXPECT_NO_THROW(formats::tuner_model::parseTunerModel(formats::tuner_model::writeTunerModel(r.model), "fit"));
}

TEST(SweepFitShapes, AShapesOwnCorrectionAndAnHonestVerdict) {
  const FitPoints points = opposite(1);
  const FitResult r = fitPoints(points, shapeFitOptions());
  std::printf("%s", renderFitReport(r).c_str());
  ASSERT_EQ(r.keys.size(), 1u);
  const KeyFitReport& key = r.keys[0];
  // The scale's Ring/LL128 correction follows one side (the points it fits best); the other side gets its own.
  // Either way some shape has its own, and the in-sample picks are then within the size target.
  EXPECT_GT(own(key.fit.corrections, 4) + own(key.fit.corrections, 8) + own(key.fit.corrections, 16), 0u);
  EXPECT_LE(key.validation.inSample.model.worst, 0.05);
  const auto& corrections = r.model.fits.at(0).corrections;
  EXPECT_TRUE(std::any_of(corrections.begin(), corrections.end(), [](const auto& c) { return c.shape.has_value(); }));
  expectHonestShapeSplits(points, key, shapeFitOptions());
  expectVerdictFromHeldOut(r);
}

// Held-out sizes within 5 %, a held-out shape far off: usable at the measured shapes only, which the file lists,
// and only those. The truth is the fit suite's `mixed` seed 3 (4, 8 and 16 ranks: graph error, LL decay, Ring/Simple
// off; leaving 8 ranks out misses by 17.9 %). The truth above no longer serves: with the identified constants left
// where stage B puts them (KeyFitOptions::refineConstants), its held-out sizes miss by 8-15 % at every seed, and it
// is refused outright.
TEST(SweepFitShapes, UsableAtTheMeasuredShapesOnly) {
  const eval::fit_suite::FitScenario scenario = eval::fit_suite::planFitScenario("mixed", 3);
  const FitPoints points = render(scenario.truth, scenario.measured);
  const FitResult r = fitPoints(points, shapeFitOptions());
  ASSERT_EQ(r.keys.size(), 1u);
  const KeyValidation& v = r.keys[0].validation;
  EXPECT_LE(v.sizeOut.byScale[0].model.worst, 0.05);
  EXPECT_GT(v.shapeOut.byScale[0].model.worst, 0.10);
  const formats::tuner_model::Verdict& written = r.model.fits.at(0).usable[0];
  EXPECT_FALSE(written.usable);
  EXPECT_TRUE(written.measuredShapesUsable) << written.why;
  EXPECT_EQ(written.shapes, (std::vector<CommShape>{{4, 1}, {8, 1}, {16, 1}}));
  EXPECT_NE(written.why.find("usable only at the measured shapes (4 ranks, 1 node; 8 ranks, 1 node; 16 ranks"),
            std::string::npos)
      << written.why;
  EXPECT_TRUE(formats::tuner_model::verdictApplies(written, {8, 1}));
  EXPECT_FALSE(formats::tuner_model::verdictApplies(written, {32, 1}));
  expectHonestShapeSplits(points, r.keys[0], shapeFitOptions());
  expectVerdictFromHeldOut(r);
}

}  // namespace
}  // namespace railtune::sweep
