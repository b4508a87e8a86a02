// A tuner rules file asked what it chooses for a sweep's communicator and size, the way the tuner would
// (formats/tuner_rules: the first rule that matches the scope, the collective, the size and a call with
// one operation in flight and unregistered buffers, as nccl-tests makes by default). `sweep rules` reads
// what it wrote back through this, so a file the tuner would refuse is never left behind silently;
// `sweep compare --rules` uses it to name the chosen choice at each size.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "formats/tuner_rules/rule.h"
#include "nccl-tests-integration/rules/aggregate.h"

namespace railtune::sweep {

// Throws std::runtime_error with the reader's errors (file:line:column) when the tuner would refuse it.
formats::tuner_rules::RuleSet loadTunerRules(const std::string& path);
formats::tuner_rules::RuleSet parseTunerRules(const std::string& text, const std::string& source);

// nullopt: no rule matches (NCCL decides), or the collective is not one the tuner is asked about.
std::optional<Choice> ruleChoice(const formats::tuner_rules::RuleSet& rules, const GroupKey& group, uint64_t size);

}  // namespace railtune::sweep
