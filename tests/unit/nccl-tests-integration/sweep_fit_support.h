// Fit points made by hand for the fit's unit tests (sweep_fit_*_test.cc): groups of one collective on a shape of
// a GPU, sizes with cells of given time and busbw.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nccl-tests-integration/fit/points.h"

namespace railtune::sweep::fittest {

inline constexpr formats::Algorithm kRing = formats::Algorithm::Ring, kTree = formats::Algorithm::Tree;
inline constexpr formats::Protocol kLL = formats::Protocol::LL, kLL128 = formats::Protocol::LL128,
                                   kSimple = formats::Protocol::Simple;

inline Shape oneDomain(int ranks) {
  return Shape{ranks, (ranks + 3) / 4, 1, 1, ranks, "NVIDIA GB300", {}, {}};
}
inline Shape domains(int count, int perDomain) {
  return Shape{count * perDomain, count * perDomain / 4, count, count, perDomain, "NVIDIA GB300", {}, {}};
}

inline GroupPoints group(const Shape& shape, const std::string& gpu = "NVIDIA GB300",
                         const std::string& collective = "allreduce") {
  GroupPoints g;
  Shape withGpu = shape;
  withGpu.gpu = gpu;
  g.key = FitGroupKey{GroupKey{collective, withGpu}};
  g.collective = formats::Collective::AllReduce;
  return g;
}

// A size whose cells are given in cell order; the default's busbw when given.
inline SizePoint size(uint64_t bytes, std::vector<CellPoint> cells, std::optional<double> defaultBusbw = {}) {
  SizePoint s;
  s.bytes = bytes;
  s.cells = std::move(cells);
  s.defaultBusbw = defaultBusbw;
  s.defaultRuns = defaultBusbw ? 1 : 0;
  return s;
}

inline CellPoint cell(formats::Algorithm a, formats::Protocol p, double timeUs, double busbw) {
  return CellPoint{Cell{a, p}, timeUs, busbw, 2, 1};
}

}  // namespace railtune::sweep::fittest
