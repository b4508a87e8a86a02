// The fit's regret scorer (nccl-tests-integration/fit/regret.h) on a table made by hand: the model's pick among
// the cells measured at a size, its regret against the best measured (sweep compare --model's definition), NCCL
// default's beside it, worst and mean and where the worst was.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "nccl-tests-integration/fit/regret.h"
#include "sweep_fit_support.h"

namespace railtune::sweep {
namespace {

using namespace fittest;

// Two sizes of 8 ranks: tree/simple at 15 GB/s, ring/ll at 10, ring/simple at 20; NCCL's default at 15 (1 KiB)
// and 20 (2 KiB).
FitPoints table() {
  FitPoints points;
  GroupPoints g = group(oneDomain(8));
  g.sizes.push_back(
      size(1024, {cell(kTree, kSimple, 9, 15), cell(kRing, kLL, 9, 10), cell(kRing, kSimple, 9, 20)}, 15));
  g.sizes.push_back(
      size(2048, {cell(kTree, kSimple, 9, 15), cell(kRing, kLL, 9, 10), cell(kRing, kSimple, 9, 20)}, 20));
  points.groups.push_back(g);
  return points;
}

// A model that predicts these times (µs) for every size.
TimePredictor predicting(std::map<std::pair<uint64_t, Cell>, double> times) {
  return [times](size_t, uint64_t bytes, Cell c) -> std::optional<double> {
    const auto it = times.find({bytes, c});
    if (it == times.end()) return std::nullopt;
    return it->second;
  };
}

TEST(SweepFitRegret, TheModelsPickIsScoredAgainstTheBestMeasured) {
  const FitPoints points = table();
  const Cell tree{kTree, kSimple}, ll{kRing, kLL}, simple{kRing, kSimple};
  // At 1 KiB the model thinks ring/ll fastest (regret 20/10 - 1 = 100 %); at 2 KiB it picks ring/simple (0 %).
  const TimePredictor model =
      predicting({{{1024, tree}, 5}, {{1024, ll}, 3}, {{1024, simple}, 4}, {{2048, ll}, 9}, {{2048, simple}, 2}});
  const PickAt first = pickAt(points, PointRef{0, 0}, model);
  EXPECT_EQ(first.pick, ll);
  EXPECT_DOUBLE_EQ(*first.modelRegret, 1.0);
  EXPECT_DOUBLE_EQ(*first.defaultRegret, 20.0 / 15 - 1);
  const RegretScore score = scoreRegret(points, allPoints(points), model);
  EXPECT_EQ(score.model.points, 2u);
  EXPECT_DOUBLE_EQ(score.model.worst, 1.0);
  EXPECT_DOUBLE_EQ(score.model.mean, 0.5);
  EXPECT_EQ(score.model.worstAt, (PointRef{0, 0}));
  EXPECT_DOUBLE_EQ(score.ncclDefault.worst, 20.0 / 15 - 1);
  EXPECT_DOUBLE_EQ(score.ncclDefault.mean, (20.0 / 15 - 1) / 2);
  EXPECT_EQ(pointLabel(points, *score.model.worstAt),
            "allreduce, 8 ranks, 1 node, 1 NVLink domain of 8; NVIDIA GB300 at 1K");
}

TEST(SweepFitRegret, OnlyMeasuredCellsTheModelOffersAreCandidates) {
  const FitPoints points = table();
  // The model offers only tree/simple: it is the pick wherever measured, whatever it predicts.
  const TimePredictor onlyTree = [](size_t, uint64_t, Cell c) -> std::optional<double> {
    if (c.algorithm == kTree) return 100.0;
    return std::nullopt;
  };
  const RegretScore score = scoreRegret(points, allPoints(points), onlyTree);
  EXPECT_DOUBLE_EQ(score.model.worst, 20.0 / 15 - 1);
  const TimePredictor nothing = [](size_t, uint64_t, Cell) -> std::optional<double> { return std::nullopt; };
  const RegretScore none = scoreRegret(points, allPoints(points), nothing);
  EXPECT_EQ(none.noCandidate, 2u);
  EXPECT_EQ(none.model.points, 0u);
  EXPECT_EQ(none.ncclDefault.points, 0u);  // scored only beside a pick
}

TEST(SweepFitRegret, ADefaultFasterThanEveryCellIsTheBest) {
  FitPoints points;
  GroupPoints g = group(oneDomain(4));
  g.sizes.push_back(size(4096, {cell(kRing, kSimple, 9, 20)}, 25));  // NCCL ran more channels than forced
  points.groups.push_back(g);
  const RegretScore score =
      scoreRegret(points, allPoints(points), [](size_t, uint64_t, Cell) -> std::optional<double> { return 1.0; });
  EXPECT_DOUBLE_EQ(score.model.worst, 0.25);
  EXPECT_DOUBLE_EQ(score.ncclDefault.worst, 0);
}

TEST(SweepFitRegret, EqualPredictionsPickTheFirstCellAndSummariesMerge) {
  const FitPoints points = table();
  const TimePredictor flat = [](size_t, uint64_t, Cell) -> std::optional<double> { return 1.0; };
  EXPECT_EQ(pickAt(points, PointRef{0, 1}, flat).pick, (Cell{kTree, kSimple}));
  RegretSummary a, b;
  a.add(0.1, PointRef{0, 0});
  b.add(0.3, PointRef{0, 1});
  b.add(0.2, PointRef{0, 0});
  a.merge(b);
  EXPECT_EQ(a.points, 3u);
  EXPECT_NEAR(a.mean, 0.2, 1e-12);
  EXPECT_DOUBLE_EQ(a.worst, 0.3);
  EXPECT_EQ(a.worstAt, (PointRef{0, 1}));
}

}  // namespace
}  // namespace railtune::sweep
