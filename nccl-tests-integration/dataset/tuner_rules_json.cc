// Writing tuner rules JSON (tuner_rules_json.h).
#include "nccl-tests-integration/dataset/tuner_rules_json.h"

#include "formats/schemas.h"

namespace railtune::sweep {

std::string tunerRulesDocument(std::string_view description, const std::vector<std::string>& rules,
                               RulesLayout layout) {
  const bool oneLine = layout == RulesLayout::kOneLine;
  std::string out = oneLine ? "{\"schema\":\"" : "{\n  \"schema\": \"";
  out += formats::kTunerRulesSchema;
  out += oneLine ? "\",\"description\":" : "\",\n  \"description\": ";
  formats::appendJsonString(&out, description);
  out += oneLine ? ",\"rules\":[" : ",\n  \"rules\": [";
  for (size_t i = 0; i < rules.size(); ++i) {
    if (!oneLine) out += i == 0 ? "\n    " : ",\n    ";
    if (oneLine && i > 0) out += ",";
    out += rules[i];
  }
  if (oneLine) return out + "]}\n";
  return out + (rules.empty() ? "]\n}\n" : "\n  ]\n}\n");
}

void appendRuleChoice(formats::JsonAppender& rule, const Choice& choice) {
  rule.key("algorithm").string(choice.algorithm);
  rule.key("protocol").string(choice.protocol);
  if (choice.channels > 0) rule.key("channels").integer(choice.channels);
  if (choice.chunkSize > 0) rule.key("chunkSize").count(choice.chunkSize);
}

}  // namespace railtune::sweep
