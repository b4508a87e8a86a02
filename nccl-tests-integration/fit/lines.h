// Stage A of the fit: per group and cell, the measured line t = α + β·n through its points (time in µs against
// bytes), by weighted least squares on relative error (weights 1/t², so a 1 µs miss at 8 bytes counts like a
// 10 ms miss at 8 GiB), made robust by a few Huber passes (iteratively reweighted). α is the cell's measured
// latency and 1/(1000·β) its measured algorithm bandwidth in GB/s, the two quantities NCCL's model has per cell
// (tuning.cc ncclTopoGetAlgoTime: time = lat + nBytes / (1000·bw)). A line that misses any of its points by more
// than poorResidual (LL's bandwidth falling at large sizes, a plateau) is flagged: later stages use such a cell
// through its points only, never through α and β.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "nccl-tests-integration/fit/points.h"

namespace railtune::sweep {

struct LineOptions {
  int huberPasses = 3;         // reweightings after the first fit
  double huberK = 1.345;       // Huber's constant, in units of the residuals' robust scale
  double minScale = 0.01;      // the robust scale's floor (relative): never down-weight below 1 % misses
  double poorResidual = 0.15;  // the largest relative miss of a line that explains its points
};

struct LineFit {
  bool fitted = false;  // two distinct sizes at least
  double latencyUs = 0, usPerByte = 0;
  double maxRelResidual = 0;  // max |α + β·n − t| / t over the points
  size_t points = 0;
  bool poor = false;         // maxRelResidual > poorResidual
  double algBwGBps() const;  // 1 / (1000·β); 0 when β ≤ 0
  double timeUs(double bytes) const { return latencyUs + usPerByte * bytes; }
};

// bytes and timeUs of the same length; times must be positive (a point with t ≤ 0 is ignored).
LineFit fitLine(std::span<const double> bytes, std::span<const double> timeUs, const LineOptions& options = {});

struct CellLine {
  size_t group = 0;
  Cell cell;
  LineFit line;
};

// A line per (group, cell) over the points the mask keeps (all when null), by group then cell; cells measured at
// fewer than two kept sizes are left out.
std::vector<CellLine> fitCellLines(const FitPoints& points, const PointMask* mask = nullptr,
                                   const LineOptions& options = {});

}  // namespace railtune::sweep
