// The fit's stage C (nccl-tests-integration/fit/corrections.h): an affine correction of a cell's modelled time,
// fitted where the model's picks are wrong, kept only when it saves regret, applied only where it is keyed.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "nccl-tests-integration/fit/corrections.h"
#include "sweep_fit_support.h"

namespace railtune::sweep {
namespace {

using namespace fittest;

// ring/ll128 as modelled: 3 µs and 20 GB/s. ring/simple as modelled: 8 µs and 30 GB/s, but measured at
// 0.5·model + 1 µs (5 µs and 60 GB/s): the model crosses over at 300 KB, the measurement at 60 KB.
double ll128(double n) {
  return 3 + n / 20000;
}
double simpleModel(double n) {
  return 8 + n / 30000;
}
double simpleMeasured(double n) {
  return 0.5 * simpleModel(n) + 1;
}

GroupPoints crossing(const Shape& shape) {
  GroupPoints g = group(shape);
  for (int k = 10; k <= 22; ++k) {
    const double n = std::ldexp(1.0, k);
    g.sizes.push_back(
        size(static_cast<uint64_t>(n), {cell(kRing, kLL128, ll128(n), n / ll128(n) / 1000),
                                        cell(kRing, kSimple, simpleMeasured(n), n / simpleMeasured(n) / 1000)}));
  }
  return g;
}

const TimePredictor kModel = [](size_t, uint64_t bytes, Cell c) -> std::optional<double> {
  const double n = static_cast<double>(bytes);
  return c.protocol == kLL128 ? ll128(n) : simpleModel(n);
};

TEST(SweepFitCorrections, TheCellTheModelMissesIsCorrectedAndNoOther) {
  FitPoints points;
  points.groups.push_back(crossing(oneDomain(8)));
  const std::vector<Correction> kept = fitCorrections(points, nullptr, kModel);
  ASSERT_EQ(kept.size(), 1u);  // ring/ll128 is modelled right: correcting it saves nothing
  EXPECT_EQ(kept[0].key.cell, (Cell{kRing, kSimple}));
  EXPECT_EQ(kept[0].key.scale, 0);
  EXPECT_NEAR(kept[0].timeScale, 0.5, 1e-9);
  EXPECT_NEAR(kept[0].timeAddUs, 1, 1e-6);
  EXPECT_GT(kept[0].regretBefore, 0.05);
  EXPECT_EQ(kept[0].regretAfter, 0);
  const std::vector<PointRef> at = allPoints(points);
  EXPECT_GT(scoreRegret(points, at, kModel).model.worst, 0.2);
  EXPECT_EQ(scoreRegret(points, at, corrected(points, kModel, kept)).model.worst, 0);
}

TEST(SweepFitCorrections, ACorrectionThatSavesLessThanTheNoiseIsDropped) {
  FitPoints points;
  points.groups.push_back(crossing(oneDomain(8)));
  CorrectionOptions options;
  options.minRegretGain = 10;  // more than any regret here
  EXPECT_TRUE(fitCorrections(points, nullptr, kModel, options).empty());
  options.minRegretGain = 0;
  options.minPoints = 100;  // too few points
  EXPECT_TRUE(fitCorrections(points, nullptr, kModel, options).empty());
}

// A cell the model already explains within the noise gets no correction even when one would change no pick: its
// fitted noise, scaled later, would move picks between the measured sizes. One that explains a miss above the noise
// floor is kept though it mends no pick (the picks between the sizes may need it).
TEST(SweepFitCorrections, OnlyACorrectionThatExplainsAMissAboveTheNoiseIsKeptWithoutMendingAPick) {
  FitPoints points;
  GroupPoints g = group(oneDomain(8));
  for (int k = 10; k <= 22; ++k) {
    const double n = std::ldexp(1.0, k), jitter = 1 + 0.01 * ((k % 3) - 1);  // ±1 % noise on ring/ll128
    const double simple = 1.1 * simpleModel(n) + 40;                         // always slower: never the pick
    g.sizes.push_back(size(static_cast<uint64_t>(n), {cell(kRing, kLL128, ll128(n) * jitter, n / ll128(n) / 1000),
                                                      cell(kRing, kSimple, simple, n / simple / 1000)}));
  }
  points.groups.push_back(g);
  const TimePredictor model = [](size_t, uint64_t bytes, Cell c) -> std::optional<double> {
    const double n = static_cast<double>(bytes);
    return c.protocol == kLL128 ? ll128(n) : simpleModel(n) + 40;  // ring/simple 10 % off in its bandwidth term
  };
  CorrectionOptions options;
  options.minRegretGain = -1e-9;
  const std::vector<Correction> kept = fitCorrections(points, nullptr, model, options);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].key.cell, (Cell{kRing, kSimple}));
  EXPECT_EQ(kept[0].regretBefore, kept[0].regretAfter);
  options.noiseFloor = 1;  // a floor no miss here reaches: nothing is needed
  EXPECT_TRUE(fitCorrections(points, nullptr, model, options).empty());
}

TEST(SweepFitCorrections, CorrectionsStayInTheirScaleBucketAndSeeOnlyTheMask) {
  FitPoints points;
  points.groups.push_back(crossing(oneDomain(8)));
  points.groups.push_back(crossing(domains(2, 72)));
  PointMask mask = PointMask::all(points);
  for (auto& keep : mask.keep[1]) keep = 0;  // the 2-node group is not to be fitted on
  const std::vector<Correction> kept = fitCorrections(points, &mask, kModel);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].points, 13u);
  const TimePredictor fixed = corrected(points, kModel, kept);
  EXPECT_NEAR(*fixed(0, 1 << 20, Cell{kRing, kSimple}), simpleMeasured(1 << 20), 1e-6);
  EXPECT_EQ(*fixed(1, 1 << 20, Cell{kRing, kSimple}), simpleModel(1 << 20));  // 2 nodes: another bucket
  EXPECT_EQ(*fixed(0, 1 << 20, Cell{kRing, kLL128}), ll128(1 << 20));
}

}  // namespace
}  // namespace railtune::sweep
