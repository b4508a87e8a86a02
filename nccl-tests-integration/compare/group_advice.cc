// Advice per group asked at any size (group_advice.h).
#include "nccl-tests-integration/compare/group_advice.h"

#include <cmath>

namespace railtune::sweep {
namespace {

uint64_t powerOfTwoAtMost(uint64_t v) {
  uint64_t p = 1;
  while (p <= v / 2) p *= 2;
  return p;
}

}  // namespace

std::optional<Choice> GroupAdvice::pick(const GroupKey& key, uint64_t size) {
  auto it = cache_.find(key);
  if (it == cache_.end()) it = cache_.emplace(key, compute_(key)).first;
  const AdviceBySize& bySize = it->second;
  if (bySize.empty()) return std::nullopt;
  const uint64_t low = powerOfTwoAtMost(size);
  const uint64_t high = low == size ? low : low * 2;
  const uint64_t nearer = std::log2(static_cast<double>(size)) - std::log2(static_cast<double>(low)) < 0.5 ? low : high;
  const auto found = bySize.find(nearer);
  return found == bySize.end() ? std::nullopt : found->second;
}

}  // namespace railtune::sweep
