#include "tuner_plugin/rules/rule_index.h"

#include <set>

namespace railtune::tuner::rules {
namespace {

constexpr int kNumCells = kNumAlgorithms * kNumProtocols;

int cellOf(const Rule& rule) {
  return static_cast<int>(rule.algorithm) * kNumProtocols + static_cast<int>(rule.protocol);
}

// The range of one rule in nBytes, for one collective.
struct Span {
  uint64_t lo, hi;
  uint32_t rule;
};

// Which earlier rules of an interval make a later one unreachable (see rule_index.h).
class Dominance {
 public:
  bool dominated(const Rule& rule) const {
    const int cell = cellOf(rule);
    if (fullWildcard_[cell]) return true;
    return rule.regBuff >= 0 && rule.regBuff <= 1 && anyPipeOps_[rule.regBuff][cell];
  }
  void record(const Rule& rule) {
    if (rule.numPipeOps != kAny) return;
    const int cell = cellOf(rule);
    if (rule.regBuff == kAny && !fullWildcard_[cell]) {
      fullWildcard_[cell] = true;
      ++fullCells_;
    } else if (rule.regBuff == 0 || rule.regBuff == 1) {
      anyPipeOps_[rule.regBuff][cell] = true;
    }
  }
  // No later rule can be the first match once every cell has a rule matching every call.
  bool complete() const { return fullCells_ == kNumCells; }

 private:
  bool fullWildcard_[kNumCells] = {};
  bool anyPipeOps_[2][kNumCells] = {};
  int fullCells_ = 0;
};

}  // namespace

class RuleIndex::Builder {
 public:
  Builder(RuleIndex& index, size_t budget) : index_(index), budget_(budget) {}
  bool buildTable(Collective collective);

 private:
  std::vector<Span> spans(Collective collective) const;
  static std::vector<uint64_t> boundaries(const std::vector<Span>& all);
  bool repeats(size_t previous, size_t begin) const;
  bool emitInterval(const std::set<uint32_t>& active);
  bool overBudget() const { return used_ + index_.entries_.size() * sizeof(Entry) > budget_; }

  RuleIndex& index_;
  size_t budget_;
  size_t used_ = 0;  // bytes of the tables' starts and offsets so far
};

std::vector<Span> RuleIndex::Builder::spans(Collective collective) const {
  std::vector<Span> out;
  for (size_t i = 0; i < index_.rules_.size(); ++i) {
    const Rule& rule = index_.rules_[i];
    uint64_t lo = 0, hi = 0;
    if (matchesCollective(rule, collective) && nBytesRange(rule, collective, index_.scope_.nRanks, &lo, &hi))
      out.push_back({lo, hi, static_cast<uint32_t>(i)});
  }
  return out;
}

bool RuleIndex::Builder::emitInterval(const std::set<uint32_t>& active) {
  Dominance dominance;
  for (const uint32_t r : active) {
    const Rule& rule = index_.rules_[r];
    if (dominance.dominated(rule)) continue;
    index_.entries_.push_back({r, static_cast<uint8_t>(rule.algorithm), static_cast<uint8_t>(rule.protocol),
                               rule.numPipeOps == kAny, rule.regBuff == kAny});
    dominance.record(rule);
    if (dominance.complete()) break;
  }
  return !overBudget();
}

// Every range end, sorted: where the set of covering rules can change.
std::vector<uint64_t> RuleIndex::Builder::boundaries(const std::vector<Span>& all) {
  std::vector<uint64_t> bounds{0};
  for (const Span& s : all) {
    bounds.push_back(s.lo);
    if (s.hi != kNoUpperBound) bounds.push_back(s.hi + 1);
  }
  std::sort(bounds.begin(), bounds.end());
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  return bounds;
}

// Whether the entries from `begin` repeat the previous interval's, which start at `previous`.
bool RuleIndex::Builder::repeats(size_t previous, size_t begin) const {
  const std::vector<Entry>& e = index_.entries_;
  if (e.size() - begin != begin - previous) return false;
  for (size_t k = 0; k < begin - previous; ++k)
    if (e[previous + k].rule != e[begin + k].rule) return false;
  return true;
}

bool RuleIndex::Builder::buildTable(Collective collective) {
  const std::vector<Span> all = spans(collective);
  const std::vector<uint64_t> bounds = boundaries(all);
  // Each span covers the intervals from the one starting at lo to the one before hi + 1.
  std::vector<std::vector<uint32_t>> opening(bounds.size()), closing(bounds.size());
  const auto at = [&](uint64_t v) {
    return static_cast<size_t>(std::lower_bound(bounds.begin(), bounds.end(), v) - bounds.begin());
  };
  for (const Span& s : all) {
    opening[at(s.lo)].push_back(s.rule);
    closing[s.hi == kNoUpperBound ? bounds.size() - 1 : at(s.hi + 1) - 1].push_back(s.rule);
  }
  Table& table = index_.tables_[static_cast<int>(collective)];
  std::set<uint32_t> active;  // ordered by rule position: first match wins
  for (size_t i = 0; i < bounds.size(); ++i) {
    active.insert(opening[i].begin(), opening[i].end());
    const size_t begin = index_.entries_.size();
    if (!emitInterval(active)) return false;
    // A boundary that changes no list (only pruned rules start or end there) is dropped.
    if (i > 0 && repeats(table.offsets.back(), begin)) {
      index_.entries_.resize(begin);
    } else {
      table.starts.push_back(bounds[i]);
      table.offsets.push_back(static_cast<uint32_t>(begin));
      used_ += sizeof(uint64_t) + sizeof(uint32_t);
    }
    for (const uint32_t r : closing[i]) active.erase(r);
  }
  table.offsets.push_back(static_cast<uint32_t>(index_.entries_.size()));
  used_ += sizeof(uint32_t);
  return !overBudget();
}

RuleIndex::RuleIndex(const RuleSet& set, const RuleScope& scope, size_t memoryBudgetBytes) : scope_(scope) {
  for (const Rule& rule : set.rules) {
    if (!matchesScope(rule, scope)) continue;
    rules_.push_back(rule);
    callKeys_.push_back({rule.numPipeOps, rule.regBuff});
  }
  Builder builder(*this, memoryBudgetBytes);
  for (int c = 0; c < kNumCollectives && !linear_; ++c) linear_ = !builder.buildTable(static_cast<Collective>(c));
  if (!linear_) {
    entries_.shrink_to_fit();
    return;
  }
  entries_ = {};
  for (Table& table : tables_) table = Table{};
}

size_t RuleIndex::intervalCount(Collective collective) const {
  const int c = static_cast<int>(collective);
  return c >= 0 && c < kNumCollectives ? tables_[c].starts.size() : 0;
}

size_t RuleIndex::memoryBytes() const {
  size_t bytes =
      rules_.capacity() * sizeof(Rule) + callKeys_.capacity() * sizeof(CallKeys) + entries_.capacity() * sizeof(Entry);
  for (const Table& table : tables_)
    bytes += table.starts.capacity() * sizeof(uint64_t) + table.offsets.capacity() * sizeof(uint32_t);
  return bytes;
}

}  // namespace railtune::tuner::rules
