// The fit's validation splits (nccl-tests-integration/fit/splits.h): which points each leave-one-size-out and
// leave-one-shape-out refit may see and which it is scored on, and their run on the work pool.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <vector>

#include "nccl-tests-integration/fit/splits.h"
#include "sweep_fit_support.h"

namespace railtune::sweep {
namespace {

using namespace fittest;

// Sizes 1K..(1K << (count - 1)) with ring/ll128 and ring/simple measured; ring/simple is the faster.
GroupPoints measured(const Shape& shape, int count, const std::string& gpu = "NVIDIA GB300", int first = 0) {
  GroupPoints g = group(shape, gpu);
  for (int k = first; k < first + count; ++k)
    g.sizes.push_back(size(uint64_t{1024} << k, {cell(kRing, kLL128, 10, 30), cell(kRing, kSimple, 9, 40)}, 35));
  return g;
}

std::vector<size_t> indices(size_t n) {
  std::vector<size_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = i;
  return out;
}

TEST(SweepFitSplits, ASizeIsHeldOutOfEveryGroupAndScoredWhereInside) {
  FitPoints points;
  points.groups.push_back(measured(oneDomain(4), 5));                     // 1K..16K
  points.groups.push_back(measured(oneDomain(8), 3, "NVIDIA GB300", 1));  // 2K..8K: 2K is its end
  const std::vector<size_t> groups = indices(2);
  const std::vector<Split> splits = leaveOneSizeOutSplits(points, groups);
  ASSERT_EQ(splits.size(), 3u);  // 2K, 4K, 8K: inside the first group's range; 1K and 16K are ends
  const Split& twoK = splits[0];
  EXPECT_EQ(twoK.kind, SplitKind::LeaveOneSizeOut);
  EXPECT_EQ(twoK.heldOut, "2K");
  EXPECT_EQ(twoK.scored, (std::vector<PointRef>{{0, 1}}));  // not in the 8-rank group, where 2K is the smallest
  EXPECT_FALSE(twoK.training.keeps(0, 1));
  EXPECT_FALSE(twoK.training.keeps(1, 0));  // but dropped there too
  EXPECT_TRUE(twoK.training.keeps(0, 0));
  EXPECT_TRUE(twoK.training.keeps(1, 1));
  EXPECT_EQ(splits[1].scored, (std::vector<PointRef>{{0, 2}, {1, 1}}));  // 4K: inside both
}

TEST(SweepFitSplits, ShapesAreHeldOutUnlessSmallestInRanksAndDomains) {
  FitPoints points;
  points.groups.push_back(measured(oneDomain(4), 3));
  points.groups.push_back(measured(oneDomain(8), 3));
  points.groups.push_back(measured(oneDomain(16), 3));
  std::vector<Split> splits = leaveOneShapeOutSplits(points, indices(3));
  ASSERT_EQ(splits.size(), 2u);  // 8 and 16 ranks: fit on the others, predict them
  EXPECT_EQ(splits[0].heldOut, oneDomain(8).label());
  EXPECT_EQ(splits[1].heldOut, oneDomain(16).label());
  EXPECT_EQ(splits[1].scored.size(), 3u);
  for (size_t s = 0; s < 3; ++s) {
    EXPECT_TRUE(splits[1].training.keeps(0, s));
    EXPECT_TRUE(splits[1].training.keeps(1, s));
    EXPECT_FALSE(splits[1].training.keeps(2, s));
  }
  // 1, 2 and 4 NVLink domains of 72: fit on 1 and 2, predict 4 (and fit on 1 and 4, predict 2).
  FitPoints racks;
  racks.groups.push_back(measured(domains(1, 72), 3));
  racks.groups.push_back(measured(domains(2, 72), 3));
  racks.groups.push_back(measured(domains(4, 72), 3));
  splits = leaveOneShapeOutSplits(racks, indices(3));
  ASSERT_EQ(splits.size(), 2u);
  EXPECT_EQ(splits[1].heldOut, domains(4, 72).label());
  // One shape alone: nothing to fit on, no split.
  FitPoints one;
  one.groups.push_back(measured(oneDomain(8), 3));
  EXPECT_TRUE(leaveOneShapeOutSplits(one, indices(1)).empty());
}

TEST(SweepFitSplits, SplitsStayWithinTheirFitKey) {
  FitPoints points;
  points.groups.push_back(measured(oneDomain(4), 3, "NVIDIA GB200"));
  points.groups.push_back(measured(oneDomain(4), 3));
  points.groups.push_back(measured(oneDomain(8), 3));
  const auto byKey = points.groupsByFitKey();
  ASSERT_EQ(byKey.size(), 2u);
  const std::vector<size_t>& gb300 = byKey.at(FitKey{"NVIDIA GB300", {}});
  EXPECT_EQ(gb300, (std::vector<size_t>{1, 2}));
  for (const Split& split : leaveOneSizeOutSplits(points, gb300))
    for (size_t s = 0; s < 3; ++s) EXPECT_FALSE(split.training.keeps(0, s));  // the GB200 group is another fit
}

TEST(SweepFitSplits, RefitsSeeOnlyTheirTrainingPointsAndAreScored) {
  FitPoints points;
  points.groups.push_back(measured(oneDomain(4), 6));
  points.groups.push_back(measured(oneDomain(8), 6));
  std::vector<Split> splits = leaveOneSizeOutSplits(points, indices(2));
  const std::vector<Split> shapes = leaveOneShapeOutSplits(points, indices(2));
  splits.insert(splits.end(), shapes.begin(), shapes.end());
  std::atomic<int> leaks{0};
  // The refit checks that no point it is scored on is among those it may train on, and predicts ring/simple
  // (the best measured everywhere) fastest.
  const Refit refit = [&](const Split& split) -> TimePredictor {
    for (const PointRef ref : split.scored)
      if (split.training.keeps(ref.group, ref.size)) ++leaks;
    return [](size_t, uint64_t, Cell c) -> std::optional<double> { return c.protocol == kSimple ? 1.0 : 2.0; };
  };
  const ValidationScore score = runSplits(points, splits, refit, SplitRunOptions{2, std::nullopt});
  EXPECT_EQ(leaks.load(), 0);
  EXPECT_FALSE(score.truncated());
  EXPECT_EQ(score.splits.size(), splits.size());
  size_t scored = 0;
  for (const Split& split : splits) scored += split.scored.size();
  EXPECT_EQ(score.merged.model.points, scored);
  EXPECT_EQ(score.merged.model.worst, 0);                           // ring/simple, the best, every time
  EXPECT_DOUBLE_EQ(score.merged.ncclDefault.worst, 40.0 / 35 - 1);  // the default, beside it
}

TEST(SweepFitSplits, HeldOutShapesAreScoredInTheirScaleBucket) {
  FitPoints racks;
  racks.groups.push_back(measured(domains(1, 72), 4));
  racks.groups.push_back(measured(domains(2, 72), 4));
  racks.groups.push_back(measured(domains(4, 72), 4));
  const std::vector<Split> splits = leaveOneShapeOutSplits(racks, indices(3));
  // A model that picks ring/ll128 (30 GB/s against ring/simple's 40: regret 1/3) only on 4 domains.
  const Refit refit = [&](const Split&) -> TimePredictor {
    return [&](size_t group, uint64_t, Cell c) -> std::optional<double> {
      const bool wrong = racks.groups[group].key.group.shape.nodes == 4;
      return (c.protocol == kLL128) == wrong ? 1.0 : 2.0;
    };
  };
  const ValidationScore score = runSplits(racks, splits, refit);
  EXPECT_EQ(score.byScale[0].model.points, 0u);  // one domain is never held out
  EXPECT_EQ(score.byScale[1].model.points, 4u);
  EXPECT_EQ(score.byScale[1].model.worst, 0);
  EXPECT_EQ(score.byScale[2].model.points, 4u);
  EXPECT_DOUBLE_EQ(score.byScale[2].model.worst, 40.0 / 30 - 1);
  EXPECT_DOUBLE_EQ(score.merged.model.mean, (40.0 / 30 - 1) / 2);
  EXPECT_EQ(scaleBucketOf(domains(3, 72)), 2);  // 3 nodes share the 4-node bucket
}

TEST(SweepFitSplits, TheDeadlineTruncatesAndAFailingRefitStopsTheRun) {
  FitPoints points;
  points.groups.push_back(measured(oneDomain(4), 6));
  const std::vector<Split> splits = leaveOneSizeOutSplits(points, indices(1));
  ASSERT_EQ(splits.size(), 4u);
  const Refit refit = [](const Split&) -> TimePredictor {
    return [](size_t, uint64_t, Cell) -> std::optional<double> { return 1.0; };
  };
  const ValidationScore late =
      runSplits(points, splits, refit, SplitRunOptions{2, std::chrono::steady_clock::now() - std::chrono::seconds(1)});
  EXPECT_EQ(late.notRun, 4u);
  EXPECT_TRUE(late.truncated());
  EXPECT_EQ(late.merged.model.points, 0u);
  const Refit failing = [](const Split& split) -> TimePredictor {
    if (split.heldOut == "4K") throw std::runtime_error("no graph data for this shape");
    return [](size_t, uint64_t, Cell) -> std::optional<double> { return 1.0; };
  };
  EXPECT_THROW(runSplits(points, splits, failing, SplitRunOptions{2, std::nullopt}), std::runtime_error);
}

}  // namespace
}  // namespace railtune::sweep
