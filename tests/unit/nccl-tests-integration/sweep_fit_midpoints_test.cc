// The final fit between the measured sizes (nccl-tests-integration/fit/midpoints.h): each cell's time at the
// geometric midpoint of two measured sizes, interpolated along the model's shape, and the regret of the model's pick
// there; a model right at every measured pick but wrong between them is caught.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "nccl-tests-integration/fit/midpoints.h"
#include "sweep_fit_support.h"

namespace railtune::sweep {
namespace {

using namespace fittest;

// Measured at 1K..4M by 4: ring/ll 2 µs + n / 2.5 GB/s, ring/simple 10 µs + n / 50 GB/s; they cross near 21 KB,
// between the measured 16 and 64 KiB.
double timeLL(double n) {
  return 2 + n / 2500;
}
double timeSimple(double n) {
  return 10 + n / 50000;
}
FitPoints byFour() {
  FitPoints points;
  GroupPoints g = group(oneDomain(8));
  for (int k = 10; k <= 22; k += 2) {
    const double n = std::ldexp(1.0, k);
    g.sizes.push_back(size(static_cast<uint64_t>(n),
                           {cell(kRing, kLL, timeLL(n), n / timeLL(n) / 1000),
                            cell(kRing, kSimple, timeSimple(n), n / timeSimple(n) / 1000)},
                           n / timeLL(n) / 1000));
  }
  points.groups.push_back(g);
  return points;
}

KeyShapes oneGroup() {
  KeyShapes shapes;
  shapes.groups = {0};
  return shapes;
}

TimePredictor withLL(double scale) {
  return [scale](size_t, uint64_t bytes, Cell c) -> std::optional<double> {
    const double n = static_cast<double>(bytes);
    return c.protocol == kLL ? scale * timeLL(n) : timeSimple(n);
  };
}

TEST(SweepFitMidpoints, EachCellIsInterpolatedAlongTheModelAtTheGeometricMidpoints) {
  const FitPoints points = byFour();
  const FitPoints mids = midpointPoints(points, withLL(1));
  ASSERT_EQ(mids.groups.size(), 1u);
  ASSERT_EQ(mids.groups[0].sizes.size(), points.groups[0].sizes.size() - 1);
  for (const SizePoint& s : mids.groups[0].sizes) {
    const double n = static_cast<double>(s.bytes);
    EXPECT_EQ(s.bytes & (s.bytes - 1), 0u) << s.bytes;  // 2K, 8K, ...: a power of 2 between powers of 4
    ASSERT_EQ(s.cells.size(), 2u);
    EXPECT_NEAR(s.find(Cell{kRing, kLL})->timeUs, timeLL(n), 1e-9);
    EXPECT_NEAR(s.find(Cell{kRing, kSimple})->busbw, n / timeSimple(n) / 1000, 1e-9);
    EXPECT_FALSE(s.defaultBusbw);  // its cell may change between the two sizes: not interpolated
  }
  // With no model time, the line through the two measurements: exact for an affine cell.
  const TimePredictor none = [](size_t, uint64_t, Cell) -> std::optional<double> { return std::nullopt; };
  const FitPoints lines = midpointPoints(points, none);
  const SizePoint& at32K = lines.groups[0].sizes[2];
  ASSERT_EQ(at32K.bytes, 32768u);
  EXPECT_NEAR(at32K.find(Cell{kRing, kSimple})->timeUs, timeSimple(32768), 1e-9);
}

// ring/ll 40 % too fast in the model: at every measured size the pick stays right (ring/ll to 16 KiB, ring/simple
// from 64 KiB), but at 32 KiB the model picks ring/ll, 42 % slower than ring/simple there.
TEST(SweepFitMidpoints, APickWrongOnlyBetweenTheMeasuredSizesIsCaught) {
  const FitPoints points = byFour();
  const KeyShapes shapes = oneGroup();
  EXPECT_EQ(scoreRegret(points, allPoints(points), withLL(0.6)).model.worst, 0);
  const BetweenSizes right = scoreBetweenSizes(points, shapes, withLL(1));
  EXPECT_EQ(right.merged.model.points, 6u);
  EXPECT_NEAR(right.merged.model.worst, 0, 1e-12);
  EXPECT_EQ(right.merged.ncclDefault.points, 0u);
  const BetweenSizes wrong = scoreBetweenSizes(points, shapes, withLL(0.6));
  EXPECT_NEAR(wrong.byScale[0].model.worst, timeLL(32768) / timeSimple(32768) - 1, 1e-9);
  EXPECT_GT(wrong.byScale[0].model.worst, 0.4);
  EXPECT_NE(wrong.worstAt[0].find("at 32K"), std::string::npos) << wrong.worstAt[0];
}

}  // namespace
}  // namespace railtune::sweep
