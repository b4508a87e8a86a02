// Stage B of `sweep fit`: NCCL's cost-model constants from the measured lines of stage A (lines.h).
//
// Latencies: a cell's latency is linear in the constants (terms.h LatencyTerms: offset + Σ coef·constant, times
// the per-call factors), so each measured line's intercept α gives one row of a least-squares problem, weighted by
// relative error, solved with θ ≥ 0 and a small pull toward NCCL's values (nnls.h). Only the constants the rows pin
// (identifiedUnknowns) move; the others stay NCCL's and are listed with why.
//
// Caps: a bandwidth cap only lowers a bandwidth (tuning.cc:327-337@v2.30.7). Where a cell's measured algorithm
// bandwidth lies below its graph term, the cap that bounds it is what NCCL's formula can move, and its value is
// the median over such cells of measured / (ratio × scale × factor). Where the measured bandwidth is above the
// graph term no cap can express it: the constant stays NCCL's and stage C's corrections take over.
#pragma once

#include <string>
#include <vector>

#include "nccl-tests-integration/fit/key_model.h"
#include "nccl-tests-integration/fit/lines.h"

namespace railtune::sweep {

struct ConstantEntry {
  ncclmodel::ConstId id{};
  bool identified = false;
  size_t cells = 0;  // measured lines that gave it a row or a value
  std::string why;   // how it was found, or why it stays NCCL's
};

struct ConstantFit {
  formats::CostModelConstants constants{};  // NCCL's defaults with the identified constants replaced
  std::vector<ConstantEntry> entries;       // every constant a measured cell's formula uses, by id
};

// lines: stage A's, of any group (those outside `shapes` are ignored). defaults: NCCL's constants for the version.
ConstantFit fitConstants(const FitPoints& points, const KeyShapes& shapes, const std::vector<CellLine>& lines,
                         const formats::CostModelConstants& defaults);

}  // namespace railtune::sweep
