// Asking a tuner rules file (rules_choice.h).
#include "nccl-tests-integration/rules/rules_choice.h"

#include <algorithm>
#include <stdexcept>

#include "formats/tuner_rules/rules_file.h"

namespace railtune::sweep {

namespace rules = formats::tuner_rules;

rules::RuleSet loadTunerRules(const std::string& path) {
  rules::RulesResult result = rules::readRulesFile(path);
  if (!result.ok()) throw std::runtime_error("the tuner would refuse " + path + ":\n" + result.describeErrors());
  return std::move(result.ruleSet);
}

rules::RuleSet parseTunerRules(const std::string& text, const std::string& source) {
  rules::RulesResult result = rules::readRules(text, source);
  if (!result.ok()) throw std::runtime_error("the tuner would refuse " + source + ":\n" + result.describeErrors());
  return std::move(result.ruleSet);
}

std::optional<Choice> ruleChoice(const rules::RuleSet& set, const GroupKey& group, uint64_t size) {
  formats::Collective collective{};
  if (!rules::collectiveFromRuleName(group.collective, &collective)) return std::nullopt;
  const Shape& s = group.shape;
  rules::RuleScope scope;
  scope.nRanks = static_cast<size_t>(std::max(1, s.ranks));
  scope.nNodes = static_cast<size_t>(std::max(1, s.nodes));
  scope.nvlDomains = std::max(1, s.nvlDomains);
  // Uneven domains (ranksPerDomain 0): the floor and ceiling of an even split, as NCCL's nvlDomainInfo would give.
  const int perDomainLow = s.ranksPerDomain > 0 ? s.ranksPerDomain : s.ranks / scope.nvlDomains;
  const int perDomainHigh =
      s.ranksPerDomain > 0 ? s.ranksPerDomain : (s.ranks + scope.nvlDomains - 1) / scope.nvlDomains;
  scope.minRanksPerDomain = std::max(1, perDomainLow);
  scope.maxRanksPerDomain = std::max(1, perDomainHigh);
  for (const rules::Rule& rule : set.rules) {
    if (!rules::matchesScope(rule, scope) || !rules::matchesCollective(rule, collective) ||
        !rules::matchesSize(rule, collective, size, scope.nRanks) || !rules::matchesCall(rule, 1, 0))
      continue;
    Choice choice;
    choice.algorithm = rules::algorithmRuleName(rule.algorithm);
    choice.protocol = rules::protocolRuleName(rule.protocol);
    choice.channels = rule.channels;
    choice.chunkSize = rule.chunkSize;
    return choice;
  }
  return std::nullopt;
}

}  // namespace railtune::sweep
