// How a model's picks score against measurement: at each size of a group, the model picks the cell it predicts
// fastest among the cells measured there (a cell never measured at that size cannot be judged, so it is no
// candidate), and its regret is the best measured busbw over the pick's, minus one: `sweep compare --model`'s
// definition (compare/regret.h). "Best" is over every cell measured there and NCCL's default (the default may
// beat every forced cell: NCCL may run more channels). NCCL default's regret is scored beside it, on the sizes
// where the default was measured.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "nccl-tests-integration/fit/points.h"

namespace railtune::sweep {

// The time (µs) a model predicts for a cell at a size of a group (an index of FitPoints::groups); nullopt: the
// model does not offer that cell there (NCCL's model disables it).
using TimePredictor = std::function<std::optional<double>(size_t group, uint64_t bytes, Cell cell)>;

// One size of one group.
struct PointRef {
  uint32_t group = 0, size = 0;
  auto operator<=>(const PointRef&) const = default;
  bool operator==(const PointRef&) const = default;
};
std::string pointLabel(const FitPoints& points, PointRef ref);  // "allreduce, 8 ranks, ..., NVIDIA GB300 at 1M"

struct RegretSummary {
  double worst = 0, mean = 0;
  size_t points = 0;
  std::optional<PointRef> worstAt;
  void add(double regret, PointRef at);
  void merge(const RegretSummary& other);  // the points of both
};

struct RegretScore {
  RegretSummary model, ncclDefault;
  size_t noCandidate = 0;  // sizes where no measured cell is one the model offers (no pick: unscored)
  void merge(const RegretScore& other);
};

// The model's pick at one size and the regrets; pick nullopt when no measured cell is offered.
struct PickAt {
  std::optional<Cell> pick;
  std::optional<double> modelRegret, defaultRegret;
};
PickAt pickAt(const FitPoints& points, PointRef at, const TimePredictor& predict);

RegretScore scoreRegret(const FitPoints& points, std::span<const PointRef> at, const TimePredictor& predict);
// Every size of every group that has a measured cell.
std::vector<PointRef> allPoints(const FitPoints& points);

}  // namespace railtune::sweep
