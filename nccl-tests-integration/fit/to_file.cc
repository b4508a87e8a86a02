// A key's fit as the model file's Fit (to_file.h).
#include "nccl-tests-integration/fit/to_file.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

namespace railtune::sweep {
namespace tm = formats::tuner_model;
namespace {

using ncclmodel::ConstId;

// Where a constant goes in the file; false for a row the file does not carry (another generation's caps).
bool constantSlot(tm::Constants& c, ConstId id, tm::Generation gen, tm::Constant** out) {
  const int k = static_cast<int>(id);
  if (k < 21) return *out = &c.baseLatencyUs[k / 3][k % 3].emplace(), true;
  if (k < 84) return *out = &c.hwLatencyUs[(k - 21) / 21][(k - 21) % 21 / 3][(k - 21) % 3].emplace(), true;
  const int array = (k - 84) / 12, row = (k - 84) % 12 / 3, scale = (k - 84) % 3;
  if (array == 0) {  // llMaxBws: the generation's row on one node, the CPU's across nodes
    if (scale == 0 && row != static_cast<int>(gen)) return false;
    if (scale > 0 && row > 1) return false;
    tm::LlConstant& ll = c.llMaxBwGbps[scale].emplace();
    if (scale > 0) ll.cpu = static_cast<tm::CpuRow>(row);
    return *out = &ll, true;
  }
  if (row != static_cast<int>(gen)) return false;
  return *out = &c.perChannelMaxGbps[array - 1][scale].emplace(), true;
}

tm::Constants fileConstants(const KeyFitRecord& r, tm::Generation gen) {
  tm::Constants out;
  const formats::CostModelConstants defaults = formats::ncclDefaultConstants(releaseOf(r.shapes->version));
  for (const ConstantEntry& e : r.fit->stageB.entries) {
    tm::Constant* slot = nullptr;
    if (!constantSlot(out, e.id, gen, &slot)) continue;
    slot->nccl = ncclmodel::constValue(defaults, e.id);
    if (e.identified) slot->value = ncclmodel::constValue(r.fit->model->constants, e.id);
    slot->why = e.why;
  }
  return out;
}

tm::RegretStats statsOf(const FitPoints& points, const RegretSummary& s, std::string why = "") {
  tm::RegretStats out;
  out.points = s.points;
  out.worst = s.worst;
  out.mean = s.mean;
  if (s.worstAt) {
    const GroupPoints& g = points.groups[s.worstAt->group];
    out.worstAt = tm::RegretAt{g.key.group.shape.counts(), g.collective.value_or(formats::Collective::AllReduce),
                               g.sizes[s.worstAt->size].bytes};
  }
  out.why = std::move(why);
  return out;
}

tm::Validation fileValidation(const FitPoints& points, const KeyFitRecord& r) {
  const KeyValidation& v = *r.validation;
  tm::Validation out;
  out.sizeTarget = r.sizeTarget;
  out.shapeTarget = r.shapeTarget;
  out.status = !v.ran        ? tm::ValidationStatus::Skipped
               : v.truncated ? tm::ValidationStatus::Truncated
                             : tm::ValidationStatus::Complete;
  out.inSample = statsOf(points, v.inSample.model);
  out.ncclDefault = statsOf(points, v.inSample.ncclDefault, "NCCL's own choice, measured, at the in-sample points");
  out.leaveOneSizeOut = statsOf(points, v.sizeOut.merged.model,
                                v.ran ? std::to_string(v.sizeSplits) + " sizes held out, one at a time" : "not run");
  out.leaveOneShapeOut =
      statsOf(points, v.shapeOut.merged.model,
              !v.ran               ? "not run"
              : v.shapeSplits == 0 ? "one shape only (or none larger than the smallest): nothing to hold out"
                                   : "fit without each shape, predicted it");
  out.heldOutShapes = v.heldOutShapes;
  return out;
}

tm::Data fileData(const FitPoints& points, const KeyShapes& shapes) {
  tm::Data out;
  std::map<Shape, tm::ShapeRef> byShape;
  std::set<formats::Collective> collectives;
  for (const size_t g : shapes.groups) {
    const GroupPoints& group = points.groups[g];
    const Shape& s = group.key.group.shape;
    auto [it, added] = byShape.try_emplace(s, tm::ShapeRef{s.ranks, s.nodes, s.nvlDomains, s.ranksPerDomain, 0, 0, 0});
    std::set<Cell> cells;
    for (const SizePoint& size : group.sizes) {
      if (size.cells.empty()) continue;
      if (it->second.minBytes == 0 || size.bytes < it->second.minBytes) it->second.minBytes = size.bytes;
      it->second.maxBytes = std::max(it->second.maxBytes, size.bytes);
      for (const CellPoint& c : size.cells) cells.insert(c.cell);
    }
    it->second.cells = std::max(it->second.cells, static_cast<int>(cells.size()));
    if (group.collective) collectives.insert(*group.collective);
  }
  for (auto& [shape, ref] : byShape) out.shapes.push_back(ref);
  out.collectives.assign(collectives.begin(), collectives.end());
  return out;
}

}  // namespace

formats::NcclRelease releaseOf(ncclmodel::NcclVersion v) {
  return v == ncclmodel::NcclVersion::V2_28 ? formats::NcclRelease::V2_28 : formats::NcclRelease::V2_30;
}

tm::Generation generationOf(int cc) {
  return cc >= 100  ? tm::Generation::Blackwell
         : cc >= 90 ? tm::Generation::Hopper
         : cc >= 80 ? tm::Generation::Ampere
                    : tm::Generation::Volta;
}

std::string correctionWhy(Cell cell) {
  using formats::Algorithm;
  if (cell.algorithm == Algorithm::Nvls || cell.algorithm == Algorithm::NvlsTree)
    return "NVLS bandwidth comes from the graph with NVLS efficiency, no tuner constant (tuning.cc:307-322@v2.30.7)";
  if (cell.algorithm == Algorithm::Ring && cell.protocol == formats::Protocol::Simple)
    return "Ring/Simple bandwidth is the graph's nChannels x bw, no tuner constant (tuning.cc:306,324@v2.30.7)";
  return "measured faster than the graph term, which a cap cannot raise (tuning.cc:327-337@v2.30.7), or a latency "
         "the per-hop constants cannot shape (tuning.cc:384-435@v2.30.7)";
}

std::string shapeCorrectionWhy(const Correction& c) {
  char gain[96];
  std::snprintf(gain, sizeof gain, " (its mean in-sample regret %.1f %% -> %.1f %%)", c.regretBefore * 100,
                c.regretAfter * 100);
  return "measured at " + tm::commShapeLabel(*c.key.shape) + ", " + cellLabel(c.key.cell) +
         " ranks apart from the scale's other shapes" + gain + "; " + correctionWhy(c.key.cell) +
         ", and no constant is per rank count";
}

namespace {

tm::Fabric fileFabric(const FitKey& key) {
  tm::Fabric out;
  out.transport = key.fabric.transport.empty() ? "nvlink" : key.fabric.transport;
  if (key.fabric.linkLayer == "IB") out.linkLayer = "InfiniBand";
  if (key.fabric.linkLayer == "RoCE") out.linkLayer = "Ethernet";
  if (key.fabric.nicGbps > 0) out.nicGbps = key.fabric.nicGbps;
  return out;
}

// NCCL's default cost to its cost at the fitted constants, per collective, cell and scale, for tuners handed the
// table but no constants (ABI v3/v4). The tuner then applies the corrections on top, as it does for v5+ on NCCL's
// own table (fitted_model.cc cellMap), so the map holds the constants alone: corrections inside it would apply
// twice. A line through (NCCL's model at its defaults, at the fitted constants) over each modelled shape's measured
// sizes, for every collective NCCL costs, not only the measured ones: NCCL 2.28+ costs every collective with the
// constants, and one line fitted on AllReduce's costs misplaces Broadcast's, whose latency and bandwidth terms
// differ (tuning.cc:384-435@v2.30.7). Per shape a cell's map is exactly affine (t = latency + bytes / bandwidth at
// both sets of constants); pooled over a scale's shapes it is not (the latency grows with the ranks), so a
// measured shape the scale's line misses by more than 0.5 % gets its own entry, and only a shape nobody measured
// gets the pooled approximation.
using TransformKey = std::tuple<formats::Collective, Cell, int, std::optional<CommShape>>;
using TransformPairs = std::map<TransformKey, std::pair<std::vector<double>, std::vector<double>>>;
constexpr double kTransformShapeMiss = 0.005;

// One modelled shape of the key: its model and the sizes measured on it (over all its groups).
struct TransformShape {
  const ncclmodel::ShapeModel* model = nullptr;
  int scale = 0;
  std::set<uint64_t> sizes;
};

std::map<CommShape, TransformShape> transformShapes(const FitPoints& points, const KeyShapes& shapes) {
  std::map<CommShape, TransformShape> out;
  for (const size_t g : shapes.groups) {
    const GroupPoints& group = points.groups[g];
    TransformShape& t = out[commShapeOf(group.key.group.shape)];
    t.model = &*shapes.models[g];
    t.scale = scaleBucketOf(group.key.group.shape);
    for (const SizePoint& size : group.sizes) t.sizes.insert(size.bytes);
  }
  return out;
}

// The shape's points, into the scale's pairs and the shape's own.
void transformPairs(const TransformShape& t, const CommShape& shape, Cell cell, formats::Collective coll,
                    const formats::CostModelConstants& defaults, const formats::CostModelConstants& fitted,
                    TransformPairs& out) {
  auto& pooled = out[{coll, cell, t.scale, std::nullopt}];
  auto& own = out[{coll, cell, t.scale, shape}];
  for (const uint64_t bytes : t.sizes) {
    const float t0 = t.model->timeUs(defaults, coll, cell.algorithm, cell.protocol, static_cast<size_t>(bytes));
    const float t1 = t.model->timeUs(fitted, coll, cell.algorithm, cell.protocol, static_cast<size_t>(bytes));
    if (!(t0 > 0) || !(t1 > 0)) continue;
    for (auto* xy : {&pooled, &own}) {
      xy->first.push_back(static_cast<double>(t0));
      xy->second.push_back(static_cast<double>(t1));
    }
  }
}

double worstMiss(const LineFit& line, const std::pair<std::vector<double>, std::vector<double>>& xy) {
  double worst = 0;
  for (size_t i = 0; i < xy.first.size(); ++i)
    worst = std::max(worst, std::abs(line.timeUs(xy.first[i]) - xy.second[i]) / xy.second[i]);
  return worst;
}

std::vector<tm::CellAffine> tableTransform(const FitPoints& points, const KeyFitRecord& r) {
  const formats::CostModelConstants defaults = formats::ncclDefaultConstants(releaseOf(r.shapes->version));
  TransformPairs pairs;
  for (const auto& [shape, t] : transformShapes(points, *r.fit->model->shapes))
    for (int ci = 0; ci < formats::kNumCollectives; ++ci)
      for (int a = 0; a < formats::kNumAlgorithms; ++a)
        for (int p = 0; p < formats::kNumProtocols; ++p) {
          const auto coll = static_cast<formats::Collective>(ci);
          const Cell cell{static_cast<formats::Algorithm>(a), static_cast<formats::Protocol>(p)};
          if (t.model->offered(coll, cell.algorithm, cell.protocol))
            transformPairs(t, shape, cell, coll, defaults, r.fit->model->constants, pairs);
        }
  std::vector<tm::CellAffine> out;
  std::map<std::tuple<formats::Collective, Cell, int>, LineFit> pooled;
  for (const auto& [key, xy] : pairs) {  // the scale's line (no shape) sorts before its shapes'
    const auto& [coll, cell, scale, shape] = key;
    const LineFit line = fitLine(xy.first, xy.second);
    if (!line.fitted || !(line.usPerByte > 0)) continue;
    if (!shape) {
      pooled[{coll, cell, scale}] = line;
      if (std::abs(line.usPerByte - 1) < 1e-3 && std::abs(line.latencyUs) < 1e-3) continue;  // the constants agree
    } else if (const auto it = pooled.find({coll, cell, scale});
               it != pooled.end() && worstMiss(it->second, xy) <= kTransformShapeMiss) {
      continue;
    }
    out.push_back(
        {coll, cell.algorithm, cell.protocol, static_cast<tm::Scale>(scale), line.usPerByte, line.latencyUs, shape});
  }
  return out;
}

}  // namespace

tm::Fit toFileFit(const FitPoints& points, const KeyFitRecord& r) {
  tm::Fit fit;
  const tm::Generation gen = generationOf(r.shapes->minCompCap);
  fit.appliesTo.gpu = r.key.gpu;
  fit.appliesTo.generation = gen;
  fit.appliesTo.fabric = fileFabric(r.key);
  fit.appliesTo.nccl = {tm::releaseName(releaseOf(r.shapes->version))};
  fit.basis.nccl = releaseOf(r.shapes->version);
  fit.basis.profile = r.shapes->profile;
  fit.basis.graphs = tm::Graphs::Emulated;
  fit.data = fileData(points, *r.shapes);
  fit.constants = fileConstants(r, gen);
  for (const Correction& c : r.fit->corrections)
    fit.corrections.push_back({{c.key.collective, c.key.cell.algorithm, c.key.cell.protocol,
                                static_cast<tm::Scale>(c.key.scale), c.timeScale, c.timeAddUs, c.key.shape},
                               c.key.shape ? shapeCorrectionWhy(c) : correctionWhy(c.key.cell)});
  fit.tableTransform = tableTransform(points, r);
  fit.validation = fileValidation(points, r);
  for (int b = 0; b < kScaleBuckets; ++b)
    fit.usable[b] = {r.verdicts[b].usable, r.verdicts[b].why,      r.verdicts[b].measuredShapesUsable,
                     r.verdicts[b].shapes, r.verdicts[b].minRanks, r.verdicts[b].maxRanks};
  return fit;
}

}  // namespace railtune::sweep
