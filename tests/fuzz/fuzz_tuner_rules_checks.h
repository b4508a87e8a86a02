// Properties both rules readers promise, checked by fuzz_tuner_csv and fuzz_tuner_rules_json:
// errors are positioned inside the text and leave no rules; accepted rules are well formed, and the
// index built from them picks what the linear scan picks.
#pragma once

#include <cstdlib>
#include <string_view>

#include "tuner_plugin/rules/rule_index.h"

namespace railtune::tuner::rules::fuzzing {

inline void require(bool promise) {
  if (!promise) std::abort();
}

inline size_t lineCount(std::string_view text) {
  size_t lines = 1;
  for (char c : text) lines += c == '\n';
  return lines;
}

inline void checkErrors(const RulesResult& r, std::string_view text) {
  require(r.errors.size() <= kMaxErrorsReported + 1);
  require(r.ruleSet.rules.empty());
  for (const RuleError& e : r.errors) {
    require(e.line >= 1 && e.line <= lineCount(text));
    require(e.column >= 1 && e.column <= text.size() + 1);
    require(!e.message.empty());
  }
}

inline void checkRule(const Rule& rule, uint32_t number) {
  require(rule.number == number);
  require(rule.minBytes <= rule.maxBytes);
  require(rule.channels >= 0 && rule.channels <= kMaxChannels);
  require(rule.chunkSize <= kMaxChunkSize);
  require(rule.regBuff >= kAny && rule.regBuff <= 1);
  for (int key : {rule.nNodes, rule.nRanks, rule.nvlDomains, rule.ranksPerDomain, rule.numPipeOps})
    require(key == kAny || key >= 1);
  require(static_cast<int>(rule.algorithm) < kNumAlgorithms && static_cast<int>(rule.protocol) < kNumProtocols);
}

// Queries at every rule's range ends, for a communicator most rules name.
inline void checkIndex(const RuleSet& set) {
  RuleScope scope;
  if (!set.rules.empty() && set.rules[0].nRanks > 0) scope.nRanks = static_cast<size_t>(set.rules[0].nRanks);
  if (!set.rules.empty() && set.rules[0].nNodes > 0) scope.nNodes = static_cast<size_t>(set.rules[0].nNodes);
  const RuleIndex index(set, scope);
  const auto cells = [](Algorithm a, Protocol p) { return (static_cast<int>(a) + static_cast<int>(p)) % 3 != 0; };
  for (const Rule& rule : set.rules)
    for (uint64_t nBytes : {rule.minBytes, rule.maxBytes, rule.minBytes * scope.nRanks, rule.maxBytes + 1})
      for (int c = 0; c < kNumCollectives; ++c)
        for (int regBuff = 0; regBuff <= 1; ++regBuff) {
          const auto coll = static_cast<Collective>(c);
          const Rule* fast = index.lookup(coll, nBytes, 1, regBuff, cells);
          const Rule* slow = linearLookup(set, scope, coll, nBytes, 1, regBuff, cells);
          require((fast == nullptr) == (slow == nullptr));
          require(fast == nullptr || fast->number == slow->number);
        }
}

inline void checkResult(const RulesResult& r, std::string_view text) {
  if (!r.ok()) return checkErrors(r, text);
  require(r.ruleSet.rules.size() <= kMaxRules);
  for (size_t i = 0; i < r.ruleSet.rules.size(); ++i) checkRule(r.ruleSet.rules[i], static_cast<uint32_t>(i + 1));
  if (r.ruleSet.rules.size() <= 64) checkIndex(r.ruleSet);  // the lookups above are quadratic
}

}  // namespace railtune::tuner::rules::fuzzing
