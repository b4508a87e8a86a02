// Validation splits and their refits (splits.h).
#include "nccl-tests-integration/fit/splits.h"

#include <algorithm>
#include <set>

#include "common/byte_size.h"
#include "common/work_pool.h"

namespace railtune::sweep {
namespace {

// A group's measured range: its smallest and largest sizes with a measured cell (0, 0 when none).
std::pair<uint64_t, uint64_t> measuredRange(const GroupPoints& group) {
  std::pair<uint64_t, uint64_t> range{0, 0};
  bool any = false;
  for (const SizePoint& size : group.sizes) {
    if (size.cells.empty()) continue;
    if (!any) range.first = size.bytes;
    range.second = size.bytes;
    any = true;
  }
  return range;
}

bool strictlyInside(const GroupPoints& group, uint64_t bytes) {
  const auto [lo, hi] = measuredRange(group);
  return lo < bytes && bytes < hi;
}

// Whether the mask keeps a size with a measured cell: something to fit on.
bool trainsOnSomething(const FitPoints& points, const PointMask& mask) {
  for (size_t g = 0; g < points.groups.size(); ++g)
    for (size_t s = 0; s < points.groups[g].sizes.size(); ++s)
      if (mask.keeps(g, s) && !points.groups[g].sizes[s].cells.empty()) return true;
  return false;
}

PointRef refOf(size_t group, size_t size) {
  return {static_cast<uint32_t>(group), static_cast<uint32_t>(size)};
}

Split sizeSplit(const FitPoints& points, std::span<const size_t> groups, uint64_t bytes) {
  Split split{SplitKind::LeaveOneSizeOut, byteSizeLabel(bytes), PointMask::none(points), {}};
  for (const size_t g : groups) {
    const GroupPoints& group = points.groups[g];
    for (size_t s = 0; s < group.sizes.size(); ++s) {
      if (group.sizes[s].bytes != bytes)
        split.training.keep[g][s] = 1;
      else if (!group.sizes[s].cells.empty() && strictlyInside(group, bytes))
        split.scored.push_back(refOf(g, s));
    }
  }
  return split;
}

Split shapeSplit(const FitPoints& points, std::span<const size_t> groups, const Shape& shape) {
  Split split{SplitKind::LeaveOneShapeOut, shape.label(), PointMask::none(points), {}};
  for (const size_t g : groups) {
    const GroupPoints& group = points.groups[g];
    for (size_t s = 0; s < group.sizes.size(); ++s) {
      if (!(group.key.group.shape == shape))
        split.training.keep[g][s] = 1;
      else if (!group.sizes[s].cells.empty())
        split.scored.push_back(refOf(g, s));
    }
  }
  return split;
}

}  // namespace

const char* splitKindName(SplitKind kind) {
  return kind == SplitKind::LeaveOneSizeOut ? "leave one size out" : "leave one shape out";
}

std::vector<Split> leaveOneSizeOutSplits(const FitPoints& points, std::span<const size_t> groups) {
  std::set<uint64_t> inside;
  for (const size_t g : groups)
    for (const SizePoint& size : points.groups[g].sizes)
      if (!size.cells.empty() && strictlyInside(points.groups[g], size.bytes)) inside.insert(size.bytes);
  std::vector<Split> out;
  for (const uint64_t bytes : inside) {
    Split split = sizeSplit(points, groups, bytes);
    if (!split.scored.empty() && trainsOnSomething(points, split.training)) out.push_back(std::move(split));
  }
  return out;
}

std::vector<Split> leaveOneShapeOutSplits(const FitPoints& points, std::span<const size_t> groups) {
  std::set<Shape> shapes;
  for (const size_t g : groups) shapes.insert(points.groups[g].key.group.shape);
  if (shapes.empty()) return {};
  int minRanks = shapes.begin()->ranks, minDomains = shapes.begin()->nvlDomains;
  for (const Shape& shape : shapes) {
    minRanks = std::min(minRanks, shape.ranks);
    minDomains = std::min(minDomains, shape.nvlDomains);
  }
  std::vector<Split> out;
  for (const Shape& shape : shapes) {
    if (shape.ranks == minRanks && shape.nvlDomains == minDomains) continue;  // nothing smaller to predict it from
    Split split = shapeSplit(points, groups, shape);
    if (!split.scored.empty() && trainsOnSomething(points, split.training)) out.push_back(std::move(split));
  }
  return out;
}

ValidationScore runSplits(const FitPoints& points, const std::vector<Split>& splits, const Refit& refit,
                          const SplitRunOptions& options) {
  ValidationScore out;
  out.splits.resize(splits.size());
  parallelFor(
      splits.size(),
      [&](size_t i) {
        if (options.deadline && std::chrono::steady_clock::now() >= *options.deadline) return;
        const TimePredictor predict = refit(splits[i]);
        std::array<std::vector<PointRef>, kScaleBuckets> byScale;
        for (const PointRef ref : splits[i].scored)
          byScale[scaleBucketOf(points.groups[ref.group].key.group.shape)].push_back(ref);
        SplitOutcome& outcome = out.splits[i];
        for (int b = 0; b < kScaleBuckets; ++b) {
          outcome.byScale[b] = scoreRegret(points, byScale[b], predict);
          outcome.score.merge(outcome.byScale[b]);
        }
        outcome.ran = true;
      },
      options.threads);
  for (const SplitOutcome& split : out.splits) {  // in the splits' order, whatever order they ran in
    if (!split.ran) {
      ++out.notRun;
      continue;
    }
    out.merged.merge(split.score);
    for (int b = 0; b < kScaleBuckets; ++b) out.byScale[b].merge(split.byScale[b]);
  }
  return out;
}

}  // namespace railtune::sweep
