// Advice computed once per group at powers of two and asked at any measured size: `sweep compare --model` asks
// the tuner's cost model (through the real plugin, by the caller) for every power of two of a group's collective
// and shape; a measured size between two powers of two takes the advice at the nearer one on a log scale.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>

#include "nccl-tests-integration/rules/aggregate.h"

namespace railtune::sweep {

using AdviceBySize = std::map<uint64_t, std::optional<Choice>>;  // power of two -> advice (nullopt: NCCL's own)

class GroupAdvice {
 public:
  explicit GroupAdvice(std::function<AdviceBySize(const GroupKey&)> compute) : compute_(std::move(compute)) {}
  // nullopt where the advice leaves the size to NCCL or has nothing for it.
  std::optional<Choice> pick(const GroupKey& key, uint64_t size);

 private:
  std::function<AdviceBySize(const GroupKey&)> compute_;
  std::map<GroupKey, AdviceBySize> cache_;
};

}  // namespace railtune::sweep
