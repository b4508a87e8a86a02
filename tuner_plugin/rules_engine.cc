#include "tuner_plugin/rules_engine.h"

namespace railtune::tuner {

RulesEngine::RulesEngine(std::shared_ptr<const rules::RuleSet> rules, const CommInfo& comm)
    : rules_(std::move(rules)), index_(*rules_, rules::scopeOf(comm)) {}

void RulesEngine::decide(const CollQuery& query, CostTableView table, CollDecision& decision) {
  const rules::Rule* rule =
      index_.lookup(query.collective, query.nBytes, query.numPipeOps, query.registeredBuffers ? 1 : 0,
                    [&table](Algorithm a, Protocol p) { return table.available(a, p); });
  if (rule == nullptr) return;  // nothing applies: NCCL's table and nChannels stay as they are
  table.prefer(rule->algorithm, rule->protocol);
  if (rule->channels > 0) decision.nChannels = rule->channels;
}

std::optional<size_t> RulesEngine::chunkSize(const ChunkQuery& query) {
  const rules::Rule* rule = index_.lookup(query.collective, query.nBytes, 1, 0, [&query](Algorithm a, Protocol p) {
    return a == query.algorithm && p == query.protocol;
  });
  if (rule == nullptr || rule->chunkSize == 0) return std::nullopt;
  return static_cast<size_t>(rule->chunkSize);
}

}  // namespace railtune::tuner
