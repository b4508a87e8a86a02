// The fit's stage D (nccl-tests-integration/fit/refine.h): the smooth stand-in for regret, a refinement that
// mends a model's wrong picks, and the true-regret guard that keeps the start when the stand-in misleads.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "nccl-tests-integration/fit/refine.h"
#include "sweep_fit_support.h"

namespace railtune::sweep {
namespace {

using namespace fittest;

// NCCL-like truth on 1K..1M: ring/ll with 2 µs and 5 GB/s, ring/simple with 10 µs and 50 GB/s; they cross near
// 44 KB. busbw is taken as bytes over time.
double truthLL(double n) {
  return 2 + n / (1000 * 5.0);
}
double truthSimple(double n) {
  return 10 + n / (1000 * 50.0);
}
FitPoints crossing() {
  FitPoints points;
  GroupPoints g = group(oneDomain(8));
  for (int k = 10; k <= 20; ++k) {
    const double n = std::ldexp(1.0, k);
    g.sizes.push_back(
        size(static_cast<uint64_t>(n), {cell(kRing, kLL, truthLL(n), n / truthLL(n) / 1000),
                                        cell(kRing, kSimple, truthSimple(n), n / truthSimple(n) / 1000)}));
  }
  points.groups.push_back(g);
  return points;
}

// A model whose two parameters are the two latencies, bandwidths right.
TimePredictor latencies(std::span<const double> v) {
  const double ll = v[0], simple = v[1];
  return [ll, simple](size_t, uint64_t bytes, Cell c) -> std::optional<double> {
    const double n = static_cast<double>(bytes);
    return c.protocol == kLL ? ll + n / 5000.0 : simple + n / 50000.0;
  };
}

TEST(SweepFitRefine, TheStandInSharpensIntoTheTrueRegret) {
  const FitPoints points = crossing();
  const std::vector<PointRef> at = allPoints(points);
  const std::vector<double> wrong{30, 10};  // ring/ll thought slow: ring/simple everywhere
  const TimePredictor model = latencies(wrong);
  const double truth = scoreRegret(points, at, model).model.mean;
  EXPECT_GT(truth, 0.1);
  EXPECT_NEAR(surrogateRegret(points, at, model, 1e-4), truth, 1e-9);
  // At a large τ every offered cell weighs the same: the mean of their regrets.
  double even = 0;
  for (const PointRef ref : at) {
    const SizePoint& s = points.groups[0].sizes[ref.size];
    const double best = std::max(s.cells[0].busbw, s.cells[1].busbw);
    even += (best / s.cells[0].busbw - 1 + best / s.cells[1].busbw - 1) / 2;
  }
  EXPECT_NEAR(surrogateRegret(points, at, model, 1e6), even / static_cast<double>(at.size()), 1e-4);
}

TEST(SweepFitRefine, WrongPicksAreMended) {
  const FitPoints points = crossing();
  const std::vector<PointRef> at = allPoints(points);
  const std::vector<RefineParameter> start{{"ll latency", 30, 0.1, 100, {}}, {"simple latency", 10, 0.1, 100, {}}};
  const RefineResult r = refine(points, at, start, latencies);
  EXPECT_GT(r.before.model.mean, 0.1);
  EXPECT_TRUE(r.moved);
  EXPECT_FALSE(r.guarded);
  EXPECT_EQ(r.after.model.worst, 0) << r.values[0] << " " << r.values[1];
  EXPECT_LT(r.values[0], 30);
  EXPECT_FALSE(r.truncated);
  EXPECT_LE(r.sweeps, RefineOptions{}.maxSweeps);
}

TEST(SweepFitRefine, OnlyAffectedPointsAreReevaluatedWithTheSameResult) {
  const FitPoints points = crossing();
  const std::vector<PointRef> at = allPoints(points);
  std::vector<RefineParameter> start{{"ll latency", 30, 0.1, 100, {}}, {"simple latency", 10, 0.1, 100, {}}};
  const RefineResult all = refine(points, at, start, latencies);
  start[0].affects = at;  // every point depends on both here: the index must give the same search
  start[1].affects = at;
  const RefineResult indexed = refine(points, at, start, latencies);
  EXPECT_EQ(all.values, indexed.values);
}

TEST(SweepFitRefine, TheTrueRegretGuardsAgainstAMisleadingStandIn) {
  // ring/simple is the best (100 GB/s) and the model's pick at the start (1 µs against ring/ll128's θ = 1.1).
  // Two poor tree cells predicted at 1.05 µs weigh on the stand-in at τ = 1, which falls as ring/ll128 (2 % worse)
  // is made faster: the search moves θ down, the pick turns to ring/ll128, and the true regret rises to 2 %.
  FitPoints points;
  GroupPoints g = group(oneDomain(4));
  g.sizes.push_back(size(4096, {cell(kTree, kLL128, 1, 50), cell(kTree, kSimple, 1, 50),
                                cell(kRing, kLL128, 1, 100 / 1.02), cell(kRing, kSimple, 1, 100)}));
  points.groups.push_back(g);
  const ModelOf model = [](std::span<const double> v) -> TimePredictor {
    const double theta = v[0];
    return [theta](size_t, uint64_t, Cell c) -> std::optional<double> {
      if (c.algorithm == kTree) return 1.05;
      return c.protocol == kLL128 ? theta : 1.0;
    };
  };
  RefineOptions options;
  options.tauStart = options.tauEnd = 1;
  options.annealSweeps = 0;
  options.pull = 0;
  const std::vector<PointRef> at = allPoints(points);
  const std::vector<RefineParameter> start{{"theta", 1.1, 0.05, 5, {}}};
  EXPECT_LT(surrogateRegret(points, at, model(std::vector<double>{0.05}), 1),
            surrogateRegret(points, at, model(std::vector<double>{1.1}), 1));
  const RefineResult r = refine(points, at, start, model, options);
  EXPECT_TRUE(r.guarded);
  EXPECT_FALSE(r.moved);
  EXPECT_EQ(r.values, std::vector<double>{1.1});
  EXPECT_EQ(r.after.model.worst, 0);
}

// Picks right at the start: whatever the stand-in gains by moving θ, the true regret cannot fall, so the start is
// kept (a move with no gain is drift that nothing measured shows, and it may flip a pick between the sizes).
TEST(SweepFitRefine, AMoveThatLowersNoTrueRegretIsNotKept) {
  const FitPoints points = crossing();
  const std::vector<PointRef> at = allPoints(points);
  const std::vector<RefineParameter> start{{"ll latency", 2, 0.1, 100, {}}, {"simple latency", 10, 0.1, 100, {}}};
  const RefineResult r = refine(points, at, start, latencies);
  EXPECT_EQ(r.before.model.mean, 0);
  EXPECT_FALSE(r.moved);
  EXPECT_FALSE(r.guarded);
  EXPECT_EQ(r.values, (std::vector<double>{2, 10}));
  EXPECT_EQ(r.after.model.mean, r.before.model.mean);
}

// The model picks ring/ll128, 0.5 % slower than ring/simple: a tie as far as a measurement can tell. Moving θ past
// 1 mends it, but a gain among ties is no evidence for moving a constant: kept at the start, unless the tie band is 0.
TEST(SweepFitRefine, AGainOnlyAmongTiesIsNotKept) {
  FitPoints points;
  GroupPoints g = group(oneDomain(4));
  g.sizes.push_back(size(4096, {cell(kRing, kLL128, 1, 100 / 1.005), cell(kRing, kSimple, 1, 100)}));
  points.groups.push_back(g);
  const ModelOf model = [](std::span<const double> v) -> TimePredictor {
    const double theta = v[0];
    return [theta](size_t, uint64_t, Cell c) -> std::optional<double> { return c.protocol == kLL128 ? theta : 1.0; };
  };
  const std::vector<PointRef> at = allPoints(points);
  const std::vector<RefineParameter> start{{"theta", 0.9, 0.05, 5, {}}};
  const RefineResult tie = refine(points, at, start, model);
  EXPECT_NEAR(tie.before.model.worst, 0.005, 1e-9);
  EXPECT_FALSE(tie.moved);
  EXPECT_EQ(tie.values, std::vector<double>{0.9});
  RefineOptions noTies;
  noTies.tieRegret = 0;
  const RefineResult moved = refine(points, at, start, model, noTies);
  EXPECT_TRUE(moved.moved);
  EXPECT_GT(moved.values[0], 1);
  EXPECT_EQ(moved.after.model.worst, 0);
}

TEST(SweepFitRefine, TheDeadlineAndBadBoundsAreTold) {
  const FitPoints points = crossing();
  const std::vector<PointRef> at = allPoints(points);
  RefineOptions late;
  late.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  const RefineParameter simple{"simple latency", 10, 0.1, 100, {}};
  const RefineResult r = refine(points, at, {{"ll latency", 30, 0.1, 100, {}}, simple}, latencies, late);
  EXPECT_TRUE(r.truncated);
  EXPECT_FALSE(r.moved);
  EXPECT_EQ(r.values, (std::vector<double>{30, 10}));
  EXPECT_THROW(refine(points, at, {{"ll latency", 0, 0, 100, {}}, simple}, latencies), std::invalid_argument);
  EXPECT_THROW(refine(points, at, {{"ll latency", 300, 1, 100, {}}, simple}, latencies), std::invalid_argument);
}

}  // namespace
}  // namespace railtune::sweep
