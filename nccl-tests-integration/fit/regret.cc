// Scoring a model's picks by regret (regret.h).
#include "nccl-tests-integration/fit/regret.h"

#include <algorithm>

#include "common/byte_size.h"
#include "nccl-tests-integration/compare/regret.h"

namespace railtune::sweep {

std::string pointLabel(const FitPoints& points, PointRef ref) {
  const GroupPoints& group = points.groups[ref.group];
  return group.key.label() + " at " + byteSizeLabel(group.sizes[ref.size].bytes);
}

void RegretSummary::add(double regret, PointRef at) {
  mean = (mean * static_cast<double>(points) + regret) / static_cast<double>(points + 1);
  ++points;
  if (!worstAt || regret > worst) {
    worst = regret;
    worstAt = at;
  }
}

void RegretSummary::merge(const RegretSummary& other) {
  if (other.points == 0) return;
  const double total = static_cast<double>(points + other.points);
  mean = (mean * static_cast<double>(points) + other.mean * static_cast<double>(other.points)) / total;
  points += other.points;
  if (!worstAt || other.worst > worst) {
    worst = other.worst;
    worstAt = other.worstAt;
  }
}

void RegretScore::merge(const RegretScore& other) {
  model.merge(other.model);
  ncclDefault.merge(other.ncclDefault);
  noCandidate += other.noCandidate;
}

PickAt pickAt(const FitPoints& points, PointRef at, const TimePredictor& predict) {
  const GroupPoints& group = points.groups[at.group];
  const SizePoint& size = group.sizes[at.size];
  PickAt out;
  double best = size.defaultBusbw.value_or(0), fastest = 0;
  const CellPoint* pick = nullptr;
  for (const CellPoint& cell : size.cells) {  // by cell: the first of equal predictions wins
    best = std::max(best, cell.busbw);
    const std::optional<double> t = predict(at.group, size.bytes, cell.cell);
    if (t && (pick == nullptr || *t < fastest)) {
      pick = &cell;
      fastest = *t;
    }
  }
  if (pick == nullptr) return out;
  out.pick = pick->cell;
  out.modelRegret = regretOf(best, pick->busbw);
  if (size.defaultBusbw) out.defaultRegret = regretOf(best, *size.defaultBusbw);
  return out;
}

RegretScore scoreRegret(const FitPoints& points, std::span<const PointRef> at, const TimePredictor& predict) {
  RegretScore score;
  for (const PointRef ref : at) {
    const PickAt p = pickAt(points, ref, predict);
    if (!p.pick) {
      ++score.noCandidate;
      continue;
    }
    if (p.modelRegret) score.model.add(*p.modelRegret, ref);
    if (p.defaultRegret) score.ncclDefault.add(*p.defaultRegret, ref);
  }
  return score;
}

std::vector<PointRef> allPoints(const FitPoints& points) {
  std::vector<PointRef> out;
  for (size_t g = 0; g < points.groups.size(); ++g)
    for (size_t s = 0; s < points.groups[g].sizes.size(); ++s)
      if (!points.groups[g].sizes[s].cells.empty()) out.push_back({static_cast<uint32_t>(g), static_cast<uint32_t>(s)});
  return out;
}

}  // namespace railtune::sweep
