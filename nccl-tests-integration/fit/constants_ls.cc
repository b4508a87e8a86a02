// Stage B: latency constants by constrained least squares, caps where measured below the graph (constants_ls.h).
#include "nccl-tests-integration/fit/constants_ls.h"

#include <algorithm>
#include <map>

#include "nccl-tests-integration/fit/nnls.h"

namespace railtune::sweep {
namespace {

using ncclmodel::ConstId;

constexpr double kClearlyBelow = 0.85;  // measured / graph term below which only a cap explains a cell

// A measured line the model can read: its group is modelled, its cell offered, its line usable.
struct UsableLine {
  const CellLine* line;
  const ncclmodel::ShapeModel* model;
  formats::Collective collective;
  uint64_t minBytes, maxBytes;
  const GroupPoints* group;
};

std::vector<UsableLine> usableLines(const FitPoints& points, const KeyShapes& shapes,
                                    const std::vector<CellLine>& lines) {
  std::vector<UsableLine> out;
  for (const CellLine& line : lines) {
    const auto& model = shapes.models[line.group];
    const GroupPoints& group = points.groups[line.group];
    if (!model || !group.collective || !line.line.fitted || line.line.poor) continue;
    if (!model->offered(*group.collective, line.cell.algorithm, line.cell.protocol)) continue;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (const SizePoint& s : group.sizes)
      if (s.find(line.cell) != nullptr) lo = std::min(lo, s.bytes), hi = std::max(hi, s.bytes);
    out.push_back({&line, &*model, *group.collective, lo, hi, &group});
  }
  return out;
}

// NCCL's symmetric kernels read this constant too (getGinLat, sym_kernels.cc:197@v2.30.7), beyond what the tuner's
// table and the sweep measure, so the tuner never writes it (docs/tuning.md): it is never fitted either, so that
// the validation scores the constants the tuner will write.
const ConstId kSymmetricKernelsLatency =
    ncclmodel::hwLatencyId(ncclmodel::HwLink::Net, formats::Algorithm::Ring, formats::Protocol::Simple);

size_t column(std::map<uint16_t, size_t>& columns, std::vector<ConstId>& ids, ConstId id) {
  const auto [it, added] = columns.try_emplace(static_cast<uint16_t>(id), ids.size());
  if (added) ids.push_back(id);
  return it->second;
}

void fitLatencies(const std::vector<UsableLine>& lines, const formats::CostModelConstants& defaults, ConstantFit& out) {
  std::map<uint16_t, size_t> columns;
  std::vector<ConstId> ids;
  struct Row {
    std::vector<std::pair<size_t, double>> coef;
    double b, w;
  };
  std::vector<Row> rows;
  for (const UsableLine& u : lines) {
    const double alpha = u.line->line.latencyUs;
    if (!(alpha > 0)) continue;
    const Cell c = u.line->cell;
    const ncclmodel::LatencyTerms terms = u.model->latencyTerms(defaults, u.collective, c.algorithm, c.protocol);
    const ncclmodel::PerCallFactors f = u.model->perCall(u.collective, c.algorithm, c.protocol, u.minBytes);
    const double scale = static_cast<double>(f.latencyFactor) * f.latCount;
    Row row{{}, alpha - terms.offset * scale, 1 / (alpha * alpha)};
    for (uint8_t k = 0; k < terms.n; ++k) {
      const double coef = terms.terms[k].coef * scale;
      if (terms.terms[k].id == kSymmetricKernelsLatency)
        row.b -= coef * ncclmodel::constValue(defaults, terms.terms[k].id);  // NCCL's, a known term
      else
        row.coef.emplace_back(column(columns, ids, terms.terms[k].id), coef);
    }
    rows.push_back(std::move(row));
  }
  if (ids.empty()) return;
  std::vector<double> prior;
  for (const ConstId id : ids) prior.push_back(ncclmodel::constValue(defaults, id));
  LsProblem problem(prior);
  std::vector<size_t> uses(ids.size(), 0);
  for (const Row& r : rows) {
    std::vector<double> coef(ids.size(), 0);
    for (const auto& [j, v] : r.coef) coef[j] += v, ++uses[j];
    problem.addRow(coef, r.b, r.w);
  }
  const LsSolution solution = solveNnls(problem);
  for (size_t j = 0; j < ids.size(); ++j) {
    ConstantEntry e{ids[j], solution.identified[j] != 0, uses[j], ""};
    if (e.identified) {
      ncclmodel::constRef(out.constants, ids[j]) = solution.x[j];
      e.why = "from the measured latencies of " + std::to_string(uses[j]) + " cells";
    } else {
      e.why = "the measured cells do not separate it from the other latencies they share (" + std::to_string(uses[j]) +
              " cells): NCCL's value kept";
    }
    out.entries.push_back(std::move(e));
  }
}

struct CapSamples {
  std::vector<double> below;  // implied cap values of cells measured below their graph term
  size_t above = 0;           // cells it does not explain
};

// The cell's measured algorithm bandwidth where bandwidth decides the time: at its two largest measured sizes,
// bytes over the time past the line's latency, without NCCL's per-call bandwidth factor (the tree correction,
// which changes with the size: a line's slope mixes them), the median of the two.
double measuredAlgBw(const UsableLine& u) {
  const Cell c = u.line->cell;
  std::vector<double> bws;
  for (auto it = u.group->sizes.rbegin(); it != u.group->sizes.rend() && bws.size() < 2; ++it) {
    const CellPoint* point = it->find(c);
    if (point == nullptr) continue;
    const double transfer = point->timeUs - std::max(u.line->line.latencyUs, 0.0);
    const ncclmodel::PerCallFactors f = u.model->perCall(u.collective, c.algorithm, c.protocol, it->bytes);
    if (transfer > 0)
      bws.push_back(static_cast<double>(it->bytes) / (1000 * transfer) / static_cast<double>(f.bandwidthFactor));
  }
  if (bws.empty()) return 0;
  return bws.size() == 1 ? bws[0] : (bws[0] + bws[1]) / 2;
}

void gatherCaps(const std::vector<UsableLine>& lines, const formats::CostModelConstants& defaults,
                std::map<uint16_t, CapSamples>& caps) {
  for (const UsableLine& u : lines) {
    const Cell c = u.line->cell;
    const ncclmodel::BandwidthTerms bw = u.model->bandwidthTerms(defaults, u.collective, c.algorithm, c.protocol);
    if (bw.zero || bw.nCaps == 0) continue;
    const double measured = measuredAlgBw(u);
    const double graph = bw.ratio * bw.graphBus * bw.factor;
    const ncclmodel::BandwidthCap& cap = bw.caps[bw.binding >= 0 ? bw.binding : 0];
    CapSamples& samples = caps[static_cast<uint16_t>(cap.id)];
    // A cap explains a cell whose cap binds at NCCL's values, or one measured clearly below its graph term: a few
    // per cent below is the graph's own error (emulated graphs, real channels), which a cap shared by every shape
    // and protocol must not absorb.
    const bool capBinds = bw.binding >= 0 || measured < kClearlyBelow * graph;
    if (measured > 0 && capBinds && measured < graph)
      samples.below.push_back(measured / (bw.ratio * cap.scale * cap.capFactor));
    else
      ++samples.above;
  }
}

void fitCaps(const std::vector<UsableLine>& lines, const formats::CostModelConstants& defaults, ConstantFit& out) {
  std::map<uint16_t, CapSamples> caps;
  gatherCaps(lines, defaults, caps);
  for (auto& [raw, samples] : caps) {
    const ConstId id{raw};
    ConstantEntry e{id, false, samples.below.size() + samples.above, ""};
    if (!samples.below.empty()) {
      std::vector<double>& v = samples.below;
      std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
      ncclmodel::constRef(out.constants, id) = v[v.size() / 2];
      e.identified = true;
      e.why = "the cap binds, measured, in " + std::to_string(v.size()) + " cells (median)";
    } else {
      e.why = "it does not bind, measured: a cap only lowers a bandwidth (tuning.cc:327-337@v2.30.7)";
    }
    out.entries.push_back(std::move(e));
  }
}

}  // namespace

ConstantFit fitConstants(const FitPoints& points, const KeyShapes& shapes, const std::vector<CellLine>& lines,
                         const formats::CostModelConstants& defaults) {
  ConstantFit out;
  out.constants = defaults;
  const std::vector<UsableLine> usable = usableLines(points, shapes, lines);
  fitLatencies(usable, defaults, out);
  fitCaps(usable, defaults, out);
  std::sort(out.entries.begin(), out.entries.end(), [](const ConstantEntry& a, const ConstantEntry& b) {
    return static_cast<uint16_t>(a.id) < static_cast<uint16_t>(b.id);
  });
  return out;
}

}  // namespace railtune::sweep
