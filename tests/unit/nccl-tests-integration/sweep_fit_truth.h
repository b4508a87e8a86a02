// Injected truth for the fit's tests (sweep_fit_truth_test.cc): NCCL's 2.30 GB300 cost model with perturbed
// constants (and optionally a correction or a shape no constant can express) rendered into fit points as nccl-tests
// would measure them, with misspecification the model does not have: ~1 % noise, an LL bandwidth decay at large
// sizes, and a ±5 % error of each shape's graph bandwidth per cell. NCCL default's busbw is the truth at the cell
// NCCL's own constants pick.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "emulator/nccl_model/graph_data.h"
#include "emulator/nccl_model/terms.h"
#include "sweep_fit_support.h"

namespace railtune::sweep::fittest {

struct Truth {
  formats::CostModelConstants constants = formats::ncclDefaultConstants(formats::NcclRelease::V2_30);
  double ringSimpleScale = 1;  // Ring/Simple time × this (no constant can express it)
  // Extra factor on a cell's time at a size (the inexpressible truth); 1 = none.
  std::function<double(Cell, uint64_t)> extra = [](Cell, uint64_t) { return 1.0; };
  double noise = 0.01, graphError = 0.05, llDecay = 0.25;
  unsigned seed = 1;
};

inline double truthTime(const ncclmodel::ShapeModel& m, const Truth& truth, Cell c, uint64_t bytes, double graphError) {
  const auto coll = formats::Collective::AllReduce;
  const double t = static_cast<double>(m.timeUs(truth.constants, coll, c.algorithm, c.protocol, bytes));
  const double lat = static_cast<double>(m.timeUs(truth.constants, coll, c.algorithm, c.protocol, 1));
  double bwPart = std::max(t - lat, 0.0) * (1 + graphError);
  // LL's bandwidth falls at large sizes (the recorded tables show it): +llDecay per doubling above 16 MiB.
  if (c.protocol == formats::Protocol::LL && bytes > (16u << 20))
    bwPart *= 1 + truth.llDecay * std::log2(static_cast<double>(bytes) / (16u << 20));
  double out = lat + bwPart;
  if (c.algorithm == formats::Algorithm::Ring && c.protocol == formats::Protocol::Simple) out *= truth.ringSimpleScale;
  return out * truth.extra(c, bytes);
}

// One AllReduce group of ranks on nodes NVLink domains (MNNVL), sizes 1 KiB .. 1 GiB by 4.
inline GroupPoints renderGroup(const Truth& truth, int ranks, int nodes, std::mt19937& rng) {
  const ncclmodel::CommShape comm{ranks, nodes};
  const auto& graph = ncclmodel::builtinGraphData("gb300-nvl72").shapeFor(comm);
  const ncclmodel::ShapeModel m(ncclmodel::NcclVersion::V2_30, comm, graph.factsFor(ncclmodel::NcclVersion::V2_30));
  const auto defaults = formats::ncclDefaultConstants(formats::NcclRelease::V2_30);
  const auto coll = formats::Collective::AllReduce;
  Shape shape{ranks, std::max(ranks / 4, 1), nodes, nodes, ranks / nodes, "NVIDIA GB300", {}, {}};
  if (nodes > 1) shape.fabric.transport = "IB";
  GroupPoints g = group(shape);
  std::uniform_real_distribution<double> err(-truth.graphError, truth.graphError);
  std::normal_distribution<double> noise(0, truth.noise);
  std::vector<std::pair<Cell, double>> cells;
  for (int a = 0; a < formats::kNumAlgorithms; ++a)
    for (int p = 0; p < formats::kNumProtocols; ++p) {
      const Cell c{static_cast<formats::Algorithm>(a), static_cast<formats::Protocol>(p)};
      if (modelledCell(c) && m.offered(coll, c.algorithm, c.protocol)) cells.emplace_back(c, err(rng));
    }
  const double busFactor = 2.0 * (ranks - 1) / ranks;
  for (uint64_t bytes = 1024; bytes <= (uint64_t{1} << 30); bytes *= 4) {
    SizePoint s = size(bytes, {});
    double bestDefault = std::numeric_limits<double>::infinity();
    for (const auto& [c, e] : cells) {
      const double t = truthTime(m, truth, c, bytes, e) * (1 + noise(rng));
      const double busbw = static_cast<double>(bytes) / (t * 1000) * busFactor;
      s.cells.push_back(CellPoint{c, t, busbw, 2, 2});
      const double guess = static_cast<double>(m.timeUs(defaults, coll, c.algorithm, c.protocol, bytes));
      if (guess > 0 && guess < bestDefault) bestDefault = guess, s.defaultBusbw = busbw;
    }
    s.defaultRuns = 2;
    g.sizes.push_back(std::move(s));
  }
  return g;
}

struct RenderedShape {
  int ranks, nodes;
};
inline FitPoints render(const Truth& truth, const std::vector<RenderedShape>& shapes) {
  std::mt19937 rng(truth.seed);
  FitPoints points;
  for (const RenderedShape& s : shapes) points.groups.push_back(renderGroup(truth, s.ranks, s.nodes, rng));
  return points;
}

}  // namespace railtune::sweep::fittest
