// Stage C: affine corrections of the stage-B model where the constants cannot reach (corrections.h).
#include "nccl-tests-integration/fit/corrections.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

namespace railtune::sweep {
namespace {

CorrectionKey keyOf(const GroupPoints& group, Cell cell, bool perCollective) {
  return CorrectionKey{cell, scaleBucketOf(group.key.group.shape),
                       perCollective ? group.collective : std::optional<formats::Collective>{}};
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

}  // namespace

TimePredictor corrected(const FitPoints& points, const TimePredictor& base, const std::vector<Correction>& corrections,
                        bool perCollective) {
  auto byKey = std::make_shared<std::map<CorrectionKey, std::pair<double, double>>>();
  for (const Correction& c : corrections) (*byKey)[c.key] = {c.timeScale, c.timeAddUs};
  return [&points, base, byKey, perCollective](size_t g, uint64_t bytes, Cell cell) -> std::optional<double> {
    const std::optional<double> t = base(g, bytes, cell);
    if (!t) return t;
    const auto it = byKey->find(keyOf(points.groups[g], cell, perCollective));
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
