// The final fit between the measured sizes (midpoints.h).
#include "nccl-tests-integration/fit/midpoints.h"

#include <algorithm>
#include <cmath>

namespace railtune::sweep {
namespace {

struct Neighbours {
  const TimePredictor& predict;
  size_t group;
  uint64_t lo, mid, hi;
  double at;  // (mid − lo) / (hi − lo)
};

// A cell's time between two measured sizes: the model's time there times its measured-over-predicted ratio,
// interpolated linearly between the two neighbours. Where the model's shape is right (NCCL's per-call factors: the
// tree's changes with the size, tuning.cc) this is the cell's time even where the model's level is off, as with a
// correction that flips no measured pick; where the model offers no time, the line through the two measurements
// (NCCL's model is latency plus bytes over bandwidth per cell). A log-linear interpolation would lie above that line
// at a cell's knee (by 6 % at a x4 step), by different amounts for different cells: a made-up regret where they
// cross.
double timeBetween(const Neighbours& n, Cell cell, double tLo, double tHi) {
  const auto lerp = [&](double lo, double hi) { return lo + (hi - lo) * n.at; };
  const std::optional<double> pLo = n.predict(n.group, n.lo, cell), pMid = n.predict(n.group, n.mid, cell),
                              pHi = n.predict(n.group, n.hi, cell);
  if (pLo > 0.0 && pMid > 0.0 && pHi > 0.0) return *pMid * lerp(tLo / *pLo, tHi / *pHi);
  return lerp(tLo, tHi);
}

// The interpolated point between two measured sizes: the cells measured at both. NCCL's default is left out: its
// cell may differ at the two sizes, and the line between two cells' times lies below both where they cross.
SizePoint between(const Neighbours& n, const SizePoint& lo, const SizePoint& hi) {
  SizePoint mid;
  mid.bytes = n.mid;
  for (const CellPoint& low : lo.cells) {
    const CellPoint* high = hi.find(low.cell);
    if (high == nullptr || !(low.timeUs > 0) || !(high->timeUs > 0) || !(low.busbw > 0)) continue;
    CellPoint c = low;
    c.timeUs = timeBetween(n, low.cell, low.timeUs, high->timeUs);
    // busbw is bytes over time times the collective's constant: the low size's, carried to the midpoint.
    c.busbw = low.busbw * low.timeUs / static_cast<double>(n.lo) * static_cast<double>(n.mid) / c.timeUs;
    c.samples = std::min(low.samples, high->samples);
    c.runs = std::min(low.runs, high->runs);
    mid.cells.push_back(c);
  }
  return mid;
}

}  // namespace

FitPoints midpointPoints(const FitPoints& points, const TimePredictor& predict) {
  FitPoints out;
  out.counts = points.counts;
  for (size_t g = 0; g < points.groups.size(); ++g) {
    const GroupPoints& group = points.groups[g];
    GroupPoints mids{group.key, group.collective, {}};
    for (size_t s = 1; s < group.sizes.size(); ++s) {
      const double a = static_cast<double>(group.sizes[s - 1].bytes), b = static_cast<double>(group.sizes[s].bytes);
      const auto m = static_cast<uint64_t>(std::llround(std::sqrt(a * b)));
      const Neighbours n{
          predict, g, group.sizes[s - 1].bytes, m, group.sizes[s].bytes, (static_cast<double>(m) - a) / (b - a)};
      SizePoint mid = between(n, group.sizes[s - 1], group.sizes[s]);
      if (!mid.cells.empty() && m > n.lo && m < n.hi) mids.sizes.push_back(std::move(mid));
    }
    out.groups.push_back(std::move(mids));
  }
  return out;
}

BetweenSizes scoreBetweenSizes(const FitPoints& points, const KeyShapes& shapes, const TimePredictor& predict) {
  const FitPoints mids = midpointPoints(points, predict);
  BetweenSizes out;
  std::array<std::vector<PointRef>, kScaleBuckets> byScale;
  for (const PointRef ref : keyPoints(mids, shapes))
    byScale[scaleBucketOf(mids.groups[ref.group].key.group.shape)].push_back(ref);
  for (int b = 0; b < kScaleBuckets; ++b) {
    out.byScale[b] = scoreRegret(mids, byScale[b], predict);
    if (out.byScale[b].model.worstAt) out.worstAt[b] = pointLabel(mids, *out.byScale[b].model.worstAt);
    out.merged.merge(out.byScale[b]);
  }
  return out;
}

}  // namespace railtune::sweep
