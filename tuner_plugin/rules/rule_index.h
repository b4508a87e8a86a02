// The rules of one communicator, indexed for NCCL's enqueue path. Built once at tuner init;
// lookup() then returns exactly what linearLookup() (a first-match scan in file order) returns,
// without allocating and without locks.
//
// How: rules whose communicator-wide keys (nNodes, nRanks, NVLink domains, ranks per domain) do
// not fit the communicator are dropped at build time. For each collective, the remaining rules'
// inclusive byte ranges (bytes per rank converted to NCCL's nBytes for this nRanks) cut the sizes
// into elementary intervals, found by binary search. Each interval keeps, in rule order, the rules
// that cover it, minus those that can never be the first match there: a rule is dropped when an
// earlier rule of the interval has the same algorithm/protocol cell and matches every call it
// matches (wildcard numPipeOps, and wildcard or equal regBuff). IGNORE cannot resurrect a dropped
// rule: if NCCL ignores the cell, it ignores it for both. Once every cell has a rule with both
// call keys wildcard, the list ends. Neighbouring intervals whose lists came out the same are
// merged. A lookup checks the interval's short list against numPipeOps, regBuff and NCCL's cost
// table.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tuner_plugin/rules/rule.h"

namespace railtune::tuner::rules {

inline constexpr size_t kDefaultIndexBudgetBytes = 64u << 20;

class RuleIndex {
 public:
  // A set whose index would need more than memoryBudgetBytes is served by a linear scan over the
  // prefiltered rules instead (usesLinearScan() says so; the tuner logs it).
  RuleIndex(const RuleSet& set, const RuleScope& scope, size_t memoryBudgetBytes = kDefaultIndexBudgetBytes);

  // The first rule that matches the call and whose cell NCCL did not mark IGNORE, or nullptr.
  // cellUsable(Algorithm, Protocol) -> bool tells whether NCCL's cost table has that cell.
  template <class CellUsable>
  const Rule* lookup(Collective collective, uint64_t nBytes, int numPipeOps, int regBuff,
                     const CellUsable& cellUsable) const;

  bool usesLinearScan() const { return linear_; }
  size_t ruleCount() const { return rules_.size(); }  // rules that fit the communicator
  size_t memoryBytes() const;
  size_t intervalCount(Collective collective) const;  // 0 when usesLinearScan()
  const RuleScope& scope() const { return scope_; }

 private:
  // 8 bytes, so that a large index stays in cache; the call keys of rules without wildcards are
  // read from callKeys_ (small, and only when needed).
  struct Entry {
    uint32_t rule;  // index into rules_ and callKeys_
    uint8_t algorithm;
    uint8_t protocol;
    uint8_t anyPipeOps;
    uint8_t anyRegBuff;
  };
  struct CallKeys {
    int32_t numPipeOps;
    int32_t regBuff;
  };
  // Interval i is [starts[i], starts[i + 1] - 1] (the last one ends at the largest size); its
  // entries are entries_[offsets[i], offsets[i + 1]). starts[0] is 0.
  struct Table {
    std::vector<uint64_t> starts;
    std::vector<uint32_t> offsets;
  };
  class Builder;

  template <class CellUsable>
  const Rule* scan(Collective collective, uint64_t nBytes, int numPipeOps, int regBuff,
                   const CellUsable& cellUsable) const;

  RuleScope scope_;
  std::vector<Rule> rules_;
  std::vector<CallKeys> callKeys_;
  std::vector<Entry> entries_;
  Table tables_[kNumCollectives];
  bool linear_ = false;
};

// The reference semantics: the first rule of the set, in order, that fits the communicator and the
// call and whose cell NCCL did not mark IGNORE. Used by tests and benchmarks to check the index.
template <class CellUsable>
const Rule* linearLookup(const RuleSet& set, const RuleScope& scope, Collective collective, uint64_t nBytes,
                         int numPipeOps, int regBuff, const CellUsable& cellUsable) {
  for (const Rule& rule : set.rules)
    if (matchesScope(rule, scope) && matchesCollective(rule, collective) &&
        matchesSize(rule, collective, nBytes, scope.nRanks) && matchesCall(rule, numPipeOps, regBuff) &&
        cellUsable(rule.algorithm, rule.protocol))
      return &rule;
  return nullptr;
}

template <class CellUsable>
const Rule* RuleIndex::scan(Collective collective, uint64_t nBytes, int numPipeOps, int regBuff,
                            const CellUsable& cellUsable) const {
  for (const Rule& rule : rules_)
    if (matchesCollective(rule, collective) && matchesSize(rule, collective, nBytes, scope_.nRanks) &&
        matchesCall(rule, numPipeOps, regBuff) && cellUsable(rule.algorithm, rule.protocol))
      return &rule;
  return nullptr;
}

template <class CellUsable>
const Rule* RuleIndex::lookup(Collective collective, uint64_t nBytes, int numPipeOps, int regBuff,
                              const CellUsable& cellUsable) const {
  const int c = static_cast<int>(collective);
  if (c < 0 || c >= kNumCollectives) return nullptr;
  if (linear_) return scan(collective, nBytes, numPipeOps, regBuff, cellUsable);
  const Table& table = tables_[c];
  if (table.starts.empty()) return nullptr;
  const size_t interval =
      static_cast<size_t>(std::upper_bound(table.starts.begin(), table.starts.end(), nBytes) - table.starts.begin()) -
      1;
  const Entry* entry = entries_.data() + table.offsets[interval];
  const Entry* end = entries_.data() + table.offsets[interval + 1];
  for (; entry != end; ++entry) {
    if ((entry->anyPipeOps || callKeys_[entry->rule].numPipeOps == numPipeOps) &&
        (entry->anyRegBuff || callKeys_[entry->rule].regBuff == regBuff) &&
        cellUsable(static_cast<Algorithm>(entry->algorithm), static_cast<Protocol>(entry->protocol)))
      return &rules_[entry->rule];
  }
  return nullptr;
}

}  // namespace railtune::tuner::rules
