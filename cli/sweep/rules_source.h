// A tuner rules file asked what it chooses for a sweep's communicator and size, the way the tuner would
// (tuner_plugin/rules: the first rule that matches the scope, the collective, the size and a call with
// one operation in flight and unregistered buffers, as nccl-tests makes by default). `sweep rules` reads
// what it wrote back through this, so a file the tuner would refuse is never left behind silently;
// `sweep compare --rules` uses it to name the chosen choice at each size.
#pragma once

#include <optional>
#include <string>

#include "nccl-tests-integration/compare/report.h"
#include "tuner_plugin/rules/rule.h"

namespace railtune::cli {

// Throws std::runtime_error with the reader's errors (file:line:column) when the tuner would refuse it.
tuner::rules::RuleSet loadTunerRules(const std::string& path);
tuner::rules::RuleSet parseTunerRules(const std::string& text, const std::string& source);

// nullopt: no rule matches (NCCL decides), or the collective is not one the tuner is asked about.
std::optional<sweep::Choice> ruleChoice(const tuner::rules::RuleSet& rules, const sweep::GroupKey& group,
                                        uint64_t size);

}  // namespace railtune::cli
