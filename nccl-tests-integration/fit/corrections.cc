// Stage C: affine corrections of the stage-B model where the constants cannot reach (corrections.h).
#include "nccl-tests-integration/fit/corrections.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <span>

namespace railtune::sweep {
namespace {

CorrectionKey keyOf(const GroupPoints& group, Cell cell, bool perCollective) {
  return CorrectionKey{cell, scaleBucketOf(group.key.group.shape),
                       perCollective ? group.collective : std::optional<formats::Collective>{}, std::nullopt};
}

// A key's cell points: the model's time beside the measured one, and the sizes they are at.
struct KeySamples {
  std::vector<double> predicted, measured;
  std::vector<PointRef> at;
};

std::map<CorrectionKey, KeySamples> gather(const FitPoints& points, const PointMask* mask, const TimePredictor& base,
                                           bool perCollective) {
  std::map<CorrectionKey, KeySamples> out;
  for (size_t g = 0; g < points.groups.size(); ++g) {
    const GroupPoints& group = points.groups[g];
    for (size_t s = 0; s < group.sizes.size(); ++s) {
      if (mask != nullptr && !mask->keeps(g, s)) continue;
      for (const CellPoint& cell : group.sizes[s].cells) {
        const std::optional<double> t = base(g, group.sizes[s].bytes, cell.cell);
        if (!t || !(*t > 0)) continue;
        KeySamples& samples = out[keyOf(group, cell.cell, perCollective)];
        samples.predicted.push_back(*t);
        samples.measured.push_back(cell.timeUs);
        samples.at.push_back({static_cast<uint32_t>(g), static_cast<uint32_t>(s)});
      }
    }
  }
  return out;
}

// The root mean square of the relative misses (t − measured) / measured of times t = k·predicted + c.
double rmsMiss(const KeySamples& samples, double k, double c) {
  double sum = 0;
  for (size_t i = 0; i < samples.measured.size(); ++i) {
    const double miss = (k * samples.predicted[i] + c - samples.measured[i]) / samples.measured[i];
    sum += miss * miss;
  }
  return std::sqrt(sum / static_cast<double>(samples.measured.size()));
}

// A correction earns its place when the part of the cell's miss it explains, sqrt(before² − after²) of the root
// mean square relative misses, is above the noise floor: a cell the constants already explain gets none, so that
// its fitted noise (k a fraction of a per cent off 1) cannot be rescaled later where no measured pick shows it. The
// part explained, not the share: a graph error drawn per shape stays in the misses whatever one correction does.
bool needed(const KeySamples& samples, const Correction& c, const CorrectionOptions& options) {
  const double before = rmsMiss(samples, 1, 0), after = rmsMiss(samples, c.timeScale, c.timeAddUs);
  return before * before - after * after > options.noiseFloor * options.noiseFloor;
}

// One shape's training points, and its cells' samples of `current` against measurement.
struct ShapeSamples {
  std::vector<PointRef> at;
  std::map<Cell, KeySamples> cells;
};

std::map<CommShape, ShapeSamples> gatherByShape(const FitPoints& points, std::span<const size_t> groups,
                                                const PointMask* mask, const TimePredictor& current) {
  std::map<CommShape, ShapeSamples> out;
  for (const size_t g : groups) {
    const GroupPoints& group = points.groups[g];
    ShapeSamples& shape = out[commShapeOf(group.key.group.shape)];
    for (size_t s = 0; s < group.sizes.size(); ++s) {
      if ((mask != nullptr && !mask->keeps(g, s)) || group.sizes[s].cells.empty()) continue;
      const PointRef ref{static_cast<uint32_t>(g), static_cast<uint32_t>(s)};
      shape.at.push_back(ref);
      for (const CellPoint& cell : group.sizes[s].cells) {
        const std::optional<double> t = current(g, group.sizes[s].bytes, cell.cell);
        if (!t || !(*t > 0)) continue;
        KeySamples& samples = shape.cells[cell.cell];
        samples.predicted.push_back(*t);
        samples.measured.push_back(cell.timeUs);
        samples.at.push_back(ref);
      }
    }
  }
  return out;
}

// The residual corrections of one shape, pruned to the cells its picks need; empty unless the shared fit leaves a
// pick there worse than options.shapeWorstToFix and the set lowers both its worst and its mean regret.
std::vector<Correction> shapeResiduals(const FitPoints& points, const ShapeSamples& samples, CommShape shape, int scale,
                                       const TimePredictor& current, const CorrectionOptions& options) {
  const RegretSummary before = scoreRegret(points, samples.at, current).model;
  if (!(before.worst > options.shapeWorstToFix)) return {};
  std::vector<Correction> set;
  for (const auto& [cell, s] : samples.cells) {
    if (s.measured.size() < static_cast<size_t>(std::max(options.minPoints, 2))) continue;
    const LineFit line = fitLine(s.predicted, s.measured, options.line);
    if (!line.fitted || !(line.usPerByte > 0)) continue;
    Correction c;
    c.key = {cell, scale, std::nullopt, shape};
    c.timeScale = line.usPerByte;
    c.timeAddUs = line.latencyUs;
    c.points = s.measured.size();
    c.maxRelResidual = line.maxRelResidual;
    set.push_back(c);
  }
  const auto scoreWith = [&](const std::vector<Correction>& corrections) {
    return scoreRegret(points, samples.at, corrected(points, current, corrections)).model;
  };
  RegretSummary now = scoreWith(set);
  for (size_t i = set.size(); i-- > 0;) {  // each cell that the shape's picks do not need is dropped
    std::vector<Correction> without = set;
    without.erase(without.begin() + static_cast<std::ptrdiff_t>(i));
    const RegretSummary after = scoreWith(without);
    if (after.mean <= now.mean + 1e-12 && after.worst <= now.worst + 1e-12) set = std::move(without), now = after;
  }
  if (!(before.worst - now.worst > 1e-9) || !(before.mean - now.mean > 1e-9)) return {};
  for (Correction& c : set) c.regretBefore = before.mean, c.regretAfter = now.mean;
  return set;
}

}  // namespace

std::vector<Correction> fitShapeCorrections(const FitPoints& points, std::span<const size_t> groups,
                                            const PointMask* mask, const TimePredictor& current,
                                            const std::vector<Correction>& scaleCorrections,
                                            const CorrectionOptions& options) {
  std::vector<Correction> out;
  for (const auto& [shape, samples] : gatherByShape(points, groups, mask, current)) {
    const int scale = static_cast<int>(formats::tuner_model::scaleOfNodes(shape.nodes));
    for (Correction c : shapeResiduals(points, samples, shape, scale, current, options)) {
      // Written composed with the scale's correction of the cell, which it replaces at this shape.
      for (const Correction& s : scaleCorrections)
        if (s.key.cell == c.key.cell && s.key.scale == scale && !s.key.shape && !s.key.collective) {
          c.timeAddUs += c.timeScale * s.timeAddUs;
          c.timeScale *= s.timeScale;
        }
      out.push_back(c);
    }
  }
  return out;
}

TimePredictor corrected(const FitPoints& points, const TimePredictor& base, const std::vector<Correction>& corrections,
                        bool perCollective) {
  auto byKey = std::make_shared<std::map<CorrectionKey, std::pair<double, double>>>();
  for (const Correction& c : corrections) (*byKey)[c.key] = {c.timeScale, c.timeAddUs};
  return [&points, base, byKey, perCollective](size_t g, uint64_t bytes, Cell cell) -> std::optional<double> {
    const std::optional<double> t = base(g, bytes, cell);
    if (!t) return t;
    CorrectionKey key = keyOf(points.groups[g], cell, perCollective);
    key.shape = commShapeOf(points.groups[g].key.group.shape);
    auto it = byKey->find(key);
    if (it == byKey->end()) it = byKey->find(keyOf(points.groups[g], cell, perCollective));
    if (it == byKey->end()) return t;
    // A negative latency offset may push a small size's time below zero: never below a nanosecond.
    return std::max(it->second.first * *t + it->second.second, 1e-3);
  };
}

std::vector<Correction> fitCorrections(const FitPoints& points, const PointMask* mask, const TimePredictor& base,
                                       const CorrectionOptions& options) {
  std::vector<Correction> kept;
  TimePredictor current = base;
  for (const auto& [key, samples] : gather(points, mask, base, options.perCollective)) {
    if (samples.measured.size() < static_cast<size_t>(std::max(options.minPoints, 2))) continue;
    const LineFit line = fitLine(samples.predicted, samples.measured, options.line);  // measured = c + k·predicted
    if (!line.fitted || !(line.usPerByte > 0)) continue;
    Correction c{key, line.usPerByte, line.latencyUs, samples.measured.size(), line.maxRelResidual, 0, 0};
    std::vector<Correction> trial = kept;
    trial.push_back(c);
    const TimePredictor candidate = corrected(points, base, trial, options.perCollective);
    c.regretBefore = scoreRegret(points, samples.at, current).model.mean;
    c.regretAfter = scoreRegret(points, samples.at, candidate).model.mean;
    const double gain = c.regretBefore - c.regretAfter;
    // One that mends an in-sample pick has shown its need; one that mends none must explain a miss.
    if (!(gain > options.minRegretGain) || (!(gain > 0) && !needed(samples, c, options))) continue;
    kept.push_back(c);
    current = candidate;
  }
  return kept;
}

}  // namespace railtune::sweep
