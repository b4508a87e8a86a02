// The injected truth of the fit suite (fit_truth.h). The draws keep one order (a shape's graph errors, then its
// sizes' noise, cell by cell), so a seed renders the same points whatever is asked of the truth afterwards.
#include "eval/fit/fit_truth.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "emulator/nccl_model/graph_data.h"

namespace railtune::eval::fit_truth {

namespace {
constexpr auto kAllReduce = formats::Collective::AllReduce;
constexpr uint64_t kLlDecayFrom = uint64_t{16} << 20;
}  // namespace

ncclmodel::ShapeModel gb300Model(int ranks, int nodes) {
  const ncclmodel::CommShape comm{ranks, nodes};
  const auto& graph = ncclmodel::builtinGraphData("gb300-nvl72").shapeFor(comm);
  return ncclmodel::ShapeModel(ncclmodel::NcclVersion::V2_30, comm, graph.factsFor(ncclmodel::NcclVersion::V2_30));
}

double truthTime(const ncclmodel::ShapeModel& m, const Truth& truth, Cell c, uint64_t bytes, double graphError) {
  const double t = static_cast<double>(m.timeUs(truth.constants, kAllReduce, c.algorithm, c.protocol, bytes));
  const double lat = static_cast<double>(m.timeUs(truth.constants, kAllReduce, c.algorithm, c.protocol, 1));
  double bwPart = std::max(t - lat, 0.0) * (1 + graphError);
  // LL's bandwidth falls at large sizes (the recorded tables show it): +llDecay per doubling above 16 MiB.
  if (c.protocol == formats::Protocol::LL && bytes > kLlDecayFrom)
    bwPart *= 1 + truth.llDecay * std::log2(static_cast<double>(bytes) / static_cast<double>(kLlDecayFrom));
  double out = lat + bwPart;
  if (c.algorithm == formats::Algorithm::Ring && c.protocol == formats::Protocol::Simple) out *= truth.ringSimpleScale;
  return out * truth.extra(c, bytes);
}

sweep::Shape gb300Shape(int ranks, int nodes) {
  sweep::Shape shape{ranks, std::max(ranks / 4, 1), nodes, nodes, ranks / nodes, "NVIDIA GB300", {}, {}};
  if (nodes > 1) shape.fabric.transport = "IB";
  return shape;
}

ShapeTruth TruthRenderer::draw(int ranks, int nodes) {
  ShapeTruth shape{ranks, nodes, gb300Model(ranks, nodes), {}};
  std::uniform_real_distribution<double> err(-truth_.graphError, truth_.graphError);
  for (int a = 0; a < formats::kNumAlgorithms; ++a)
    for (int p = 0; p < formats::kNumProtocols; ++p) {
      const Cell c{static_cast<formats::Algorithm>(a), static_cast<formats::Protocol>(p)};
      if (sweep::modelledCell(c) && shape.model.offered(kAllReduce, c.algorithm, c.protocol))
        shape.cells.emplace_back(c, err(rng_));
    }
  return shape;
}

double TruthRenderer::trueTimeUs(const ShapeTruth& shape, Cell c, uint64_t bytes) const {
  for (const auto& [cell, error] : shape.cells)
    if (cell == c) return truthTime(shape.model, truth_, c, bytes, error);
  return std::numeric_limits<double>::infinity();  // a cell the shape does not offer is never the best
}

sweep::GroupPoints TruthRenderer::measure(const ShapeTruth& shape) {
  sweep::GroupPoints g;
  g.key = sweep::FitGroupKey{sweep::GroupKey{"allreduce", gb300Shape(shape.ranks, shape.nodes)}};
  g.collective = kAllReduce;
  const auto defaults = formats::ncclDefaultConstants(formats::NcclRelease::V2_30);
  std::normal_distribution<double> noise(0, truth_.noise);
  const double busFactor = 2.0 * (shape.ranks - 1) / shape.ranks;
  for (uint64_t bytes = 1024; bytes <= (uint64_t{1} << 30); bytes *= 4) {
    sweep::SizePoint s;
    s.bytes = bytes;
    double bestDefault = std::numeric_limits<double>::infinity();
    for (const auto& [c, e] : shape.cells) {
      const double t = truthTime(shape.model, truth_, c, bytes, e) * (1 + noise(rng_));
      const double busbw = static_cast<double>(bytes) / (t * 1000) * busFactor;
      s.cells.push_back(sweep::CellPoint{c, t, busbw, 2, 2});
      const double guess =
          static_cast<double>(shape.model.timeUs(defaults, kAllReduce, c.algorithm, c.protocol, bytes));
      if (guess > 0 && guess < bestDefault) bestDefault = guess, s.defaultBusbw = busbw;
    }
    s.defaultRuns = 2;
    g.sizes.push_back(std::move(s));
  }
  return g;
}

sweep::FitPoints render(const Truth& truth, const std::vector<RenderedShape>& shapes) {
  TruthRenderer renderer(truth);
  sweep::FitPoints points;
  for (const RenderedShape& s : shapes) points.groups.push_back(renderer.measure(renderer.draw(s.ranks, s.nodes)));
  return points;
}

}  // namespace railtune::eval::fit_truth
