// Injected truth for `sweep fit` (the fit suite, fit_suite.cc, and the fit's unit tests): NCCL's 2.30 GB300 cost
// model (emulator/nccl_model/terms.h ShapeModel) at perturbed constants, rendered into fit points as nccl-tests
// would measure them, with the misspecification real clusters show and the model has not: ~1 % noise, an LL
// bandwidth decay at large sizes, a ±5 % error of each shape's graph bandwidth per cell, Ring/Simple off NCCL's
// formula by a factor, and optionally a cell no constant can express. NCCL default's busbw is the truth at the cell
// NCCL's own constants pick. The truth itself (no noise) stays available for scoring at sizes and shapes the fit
// never saw.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <utility>
#include <vector>

#include "emulator/nccl_model/terms.h"
#include "formats/nccl_defaults.h"
#include "nccl-tests-integration/fit/points.h"

namespace railtune::eval::fit_truth {

using sweep::Cell;

struct Truth {
  formats::CostModelConstants constants = formats::ncclDefaultConstants(formats::NcclRelease::V2_30);
  double ringSimpleScale = 1;  // Ring/Simple time × this (no constant can express it)
  // Extra factor on a cell's time at a size (the inexpressible truth); 1 = none.
  std::function<double(Cell, uint64_t)> extra = [](Cell, uint64_t) { return 1.0; };
  double noise = 0.01, graphError = 0.05, llDecay = 0.25;
  unsigned seed = 1;
};

// One communicator shape of the truth: its emulated model and the graph error drawn for each cell it offers.
struct ShapeTruth {
  int ranks = 0, nodes = 0;
  ncclmodel::ShapeModel model;
  std::vector<std::pair<Cell, double>> cells;  // offered cells with their graph error, in cell order
};

// The GB300 NVL72 profile's model of `ranks` on `nodes` NVLink domains (throws GraphDataError for a shape the
// profile has no graph data for).
ncclmodel::ShapeModel gb300Model(int ranks, int nodes);

// The truth's time (µs) of one AllReduce cell at a size, without noise; graphError is the shape's for that cell.
double truthTime(const ncclmodel::ShapeModel& m, const Truth& truth, Cell c, uint64_t bytes, double graphError);

// Draws shapes and their measurements from one random stream, seeded with truth.seed: the same truth and the same
// calls give the same points.
class TruthRenderer {
 public:
  explicit TruthRenderer(const Truth& truth) : truth_(truth), rng_(truth.seed) {}
  // The shape with a graph error drawn per offered cell.
  ShapeTruth draw(int ranks, int nodes);
  // One AllReduce group as nccl-tests measures it: sizes 1 KiB .. 1 GiB by 4, every offered cell with noise.
  sweep::GroupPoints measure(const ShapeTruth& shape);
  // The truth at a size, without noise.
  double trueTimeUs(const ShapeTruth& shape, Cell c, uint64_t bytes) const;
  const Truth& truth() const { return truth_; }

 private:
  const Truth& truth_;
  std::mt19937 rng_;
};

// The dataset shape nccl-tests would record for ranks on nodes NVLink domains of one GB300 cluster (IB across).
sweep::Shape gb300Shape(int ranks, int nodes);

struct RenderedShape {
  int ranks, nodes;
};
// Each shape drawn and measured in turn.
sweep::FitPoints render(const Truth& truth, const std::vector<RenderedShape>& shapes);

}  // namespace railtune::eval::fit_truth
