// The one writer of railtune's tuner rules JSON (railtune.tuner-rules/1, docs/formats.md) for the sweep:
// the one-rule files `sweep run` gives each forced run and the derived rules `sweep rules` writes. Strings
// are JSON-escaped (a description naming a dataset path with a quote stays valid JSON); the tuner's reader
// (formats/tuner_rules/railtune_json.h) takes both layouts.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "formats/json_append.h"
#include "nccl-tests-integration/dataset/choice.h"

namespace railtune::sweep {

enum class RulesLayout {
  kOneLine,         // {"schema":...,"rules":[{...}]}: a run's rules file, read by the tuner only
  kOneRulePerLine,  // indented, one rule a line: derived rules, read by people too
};

// The document: the schema, the description, then `rules`, each a JSON object already written.
std::string tunerRulesDocument(std::string_view description, const std::vector<std::string>& rules, RulesLayout layout);

// A rule's choice: "algorithm", "protocol", and "channels" and "chunkSize" when set.
void appendRuleChoice(formats::JsonAppender& rule, const Choice& choice);

}  // namespace railtune::sweep
