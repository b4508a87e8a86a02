// Stage E of `sweep fit` (corrections.h fitShapeCorrections) and the verdict per shape, on injected truth where 8 and
// 16 ranks of one NVLink domain rank Ring/LL128 oppositely (8 ranks' Ring/LL128 40 % faster than NCCL's model says,
// the others as rendered): no correction shared by the scale can be right at both, a correction of 8 ranks' own can.
// It says nothing of a shape nobody measured, so leave-one-shape-out predicts 8 ranks without it, and where that
// misses the verdict is "usable at the measured shapes only", listing them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "nccl-tests-integration/fit/fit.h"
#include "nccl-tests-integration/fit/report.h"
#include "sweep_fit_truth.h"

namespace railtune::sweep {
namespace {

using namespace fittest;

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

TEST(SweepFitShapes, EightRanksOwnCorrectionAndAnHonestVerdict) {
  FitOptions o;
  o.maxSeconds = 600;
  o.threads = 2;
  const FitPoints points = opposite(1);
  const FitResult r = fitPoints(points, o);
  std::printf("%s", renderFitReport(r).c_str());
  ASSERT_EQ(r.keys.size(), 1u);
  const KeyFitReport& key = r.keys[0];
  const auto own = [](const std::vector<Correction>& cs, int ranks) {
    return std::count_if(cs.begin(), cs.end(),
                         [&](const Correction& c) { return c.key.shape && c.key.shape->ranks == ranks; });
  };
  // The scale's Ring/LL128 correction follows one side (the points it fits best); the other side gets its own.
  // Either way some shape has its own, and the in-sample picks are then within the size target.
  EXPECT_GT(own(key.fit.corrections, 4) + own(key.fit.corrections, 8) + own(key.fit.corrections, 16), 0);
  EXPECT_LE(key.validation.inSample.model.worst, 0.05);
  // Held out, a shape gets no correction of its own: the refit without it has none.
  for (const Split& split : leaveOneShapeOutSplits(points, key.shapes->groups)) {
    const int ranks = std::stoi(split.heldOut);
    const KeyFit refit =
        fitKey(points, key.shapes, &split.training, formats::ncclDefaultConstants(formats::NcclRelease::V2_30), o.fit);
    EXPECT_EQ(own(refit.corrections, ranks), 0) << split.heldOut;
  }
  // The verdict follows the held-out figures, never the in-sample ones.
  const KeyValidation& v = key.validation;
  const bool sizes = v.sizeOut.byScale[0].model.worst <= 0.05;
  const bool shapes = v.shapeOut.byScale[0].model.points == 0 || v.shapeOut.byScale[0].model.worst <= 0.10;
  EXPECT_EQ(key.verdicts[0].usable, sizes && shapes) << key.verdicts[0].why;
  EXPECT_EQ(key.verdicts[0].measuredShapesUsable, sizes && !shapes) << key.verdicts[0].why;
  const formats::tuner_model::Verdict& written = r.model.fits.at(0).usable[0];
  EXPECT_EQ(written.measuredShapesUsable, key.verdicts[0].measuredShapesUsable);
  if (written.measuredShapesUsable) {
    EXPECT_EQ(written.shapes, (std::vector<CommShape>{{4, 1}, {8, 1}, {16, 1}}));
    EXPECT_NE(written.why.find("usable only at the measured shapes"), std::string::npos) << written.why;
  }
  // The file says which corrections are a shape's own, and reads back.
  const auto& corrections = r.model.fits.at(0).corrections;
  EXPECT_TRUE(std::any_of(corrections.begin(), corrections.end(), [](const auto& c) { return c.shape.has_value(); }));
  EXPECT_NO_THROW(formats::tuner_model::parseTunerModel(formats::tuner_model::writeTunerModel(r.model), "fit"));
}

}  // namespace
}  // namespace railtune::sweep
