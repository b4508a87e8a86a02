// The fit's stage A (nccl-tests-integration/fit/lines.h): t = α + β·n per cell, exact on noiseless lines, robust
// to one wild point, flagging curves a line does not explain.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "nccl-tests-integration/fit/lines.h"
#include "sweep_fit_support.h"

namespace railtune::sweep {
namespace {

using namespace fittest;

// Sizes 1 KiB .. 1 GiB, every power of two, and the times of a cell with this latency and algorithm bandwidth.
std::vector<double> sizes() {
  std::vector<double> n;
  for (int k = 10; k <= 30; ++k) n.push_back(std::ldexp(1.0, k));
  return n;
}
std::vector<double> timesOf(const std::vector<double>& n, double latencyUs, double algBwGBps) {
  std::vector<double> t;
  for (const double bytes : n) t.push_back(latencyUs + bytes / (1000 * algBwGBps));
  return t;
}

TEST(SweepFitLines, ANoiselessLineIsRecoveredExactly) {
  const std::vector<double> n = sizes(), t = timesOf(n, 7.5, 42.0);
  const LineFit fit = fitLine(n, t);
  ASSERT_TRUE(fit.fitted);
  EXPECT_NEAR(fit.latencyUs, 7.5, 7.5 * 1e-9);
  EXPECT_NEAR(fit.algBwGBps(), 42.0, 42.0 * 1e-9);
  EXPECT_LT(fit.maxRelResidual, 1e-9);
  EXPECT_FALSE(fit.poor);
  EXPECT_EQ(fit.points, n.size());
}

TEST(SweepFitLines, OneOutlierBarelyMovesTheRobustLine) {
  const std::vector<double> n = sizes();
  std::vector<double> t = timesOf(n, 7.5, 42.0);
  t[4] *= 3;  // 16 KiB: a hiccup three times slower, in the latency-bound half
  LineOptions plain;
  plain.huberPasses = 0;
  const LineFit ls = fitLine(n, t, plain), robust = fitLine(n, t);
  EXPECT_NEAR(robust.latencyUs, 7.5, 7.5 * 0.02);
  EXPECT_NEAR(robust.algBwGBps(), 42.0, 42.0 * 0.02);
  // Least squares alone is pulled further by the same points.
  EXPECT_GT(std::fabs(ls.latencyUs - 7.5), 2 * std::fabs(robust.latencyUs - 7.5));
  EXPECT_TRUE(robust.poor);  // the outlier stays unexplained, and says so
  EXPECT_NEAR(robust.maxRelResidual, 2.0 / 3, 0.05);
}

TEST(SweepFitLines, ACurveALineCannotFollowIsFlagged) {
  // LL's bandwidth falling at large sizes: the time grows faster than any line through the small sizes.
  const std::vector<double> n = sizes();
  std::vector<double> t;
  for (const double bytes : n) t.push_back(5 + bytes / (1000 * 20.0 / (1 + bytes / std::ldexp(1.0, 24))));
  const LineFit fit = fitLine(n, t);
  ASSERT_TRUE(fit.fitted);
  EXPECT_TRUE(fit.poor);
  EXPECT_GT(fit.maxRelResidual, 0.15);
}

TEST(SweepFitLines, OneSizeMakesNoLine) {
  const std::vector<double> n{1024, 1024}, t{5, 5.1};
  EXPECT_FALSE(fitLine(n, t).fitted);
  const std::vector<double> bad{0, -1};  // no positive time: no point
  EXPECT_EQ(fitLine(std::vector<double>{1024, 2048}, bad).points, 0u);
}

TEST(SweepFitLines, CellLinesUseOnlyThePointsTheMaskKeeps) {
  FitPoints points;
  GroupPoints g = group(oneDomain(8));
  const double lat = 4, bw = 100;
  for (int k = 10; k <= 20; ++k) {
    const double bytes = std::ldexp(1.0, k);
    const double wild = k == 15 ? 10 : 1;  // 32 KiB is off the line by ×10
    g.sizes.push_back(size(static_cast<uint64_t>(bytes), {cell(kRing, kLL, (lat + bytes / (1000 * bw)) * wild, 1),
                                                          cell(kRing, kSimple, 50 + bytes / (1000 * bw), 1)}));
  }
  g.sizes.push_back(size(uint64_t{1} << 21, {cell(kTree, kSimple, 60, 1)}));  // one size: no line
  points.groups.push_back(g);
  PointMask mask = PointMask::all(points);
  mask.keep[0][5] = 0;  // drop 32 KiB
  const std::vector<CellLine> lines = fitCellLines(points, &mask);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].cell, (Cell{kRing, kLL}));
  EXPECT_EQ(lines[0].line.points, 10u);
  EXPECT_NEAR(lines[0].line.latencyUs, lat, 1e-9);
  EXPECT_FALSE(lines[0].line.poor);
  EXPECT_TRUE(fitCellLines(points)[0].line.poor);  // with 32 KiB the line misses it
}

}  // namespace
}  // namespace railtune::sweep
