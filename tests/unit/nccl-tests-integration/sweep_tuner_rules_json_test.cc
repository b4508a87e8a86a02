// The sweep's one writer of tuner rules JSON (nccl-tests-integration/dataset/tuner_rules_json.h): both layouts
// byte for byte, hostile descriptions escaped, and every document read back by the tuner's own reader.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/tuner_rules/rules_file.h"
#include "nccl-tests-integration/dataset/tuner_rules_json.h"

namespace railtune::sweep {
namespace {

std::string ruleOf(const Choice& choice, std::string_view collective) {
  std::string rule;
  formats::JsonAppender json(&rule);
  json.beginObject();
  json.key("collective").string(collective);
  appendRuleChoice(json, choice);
  json.endObject();
  return rule;
}

TEST(SweepTunerRulesJson, OneLineLayout) {
  Choice c;
  c.algorithm = "ring";
  c.protocol = "ll128";
  c.channels = 16;
  c.chunkSize = 524288;
  EXPECT_EQ(tunerRulesDocument("forces ring", {ruleOf(c, "allreduce")}, RulesLayout::kOneLine),
            "{\"schema\":\"railtune.tuner-rules/1\",\"description\":\"forces ring\",\"rules\":[{\"collective\":"
            "\"allreduce\",\"algorithm\":\"ring\",\"protocol\":\"ll128\",\"channels\":16,\"chunkSize\":524288}]}\n");
  Choice plain;
  plain.algorithm = "tree";
  plain.protocol = "simple";
  EXPECT_EQ(ruleOf(plain, "broadcast"), R"({"collective":"broadcast","algorithm":"tree","protocol":"simple"})");
  EXPECT_EQ(tunerRulesDocument("d", {"{}", "{}"}, RulesLayout::kOneLine),
            "{\"schema\":\"railtune.tuner-rules/1\",\"description\":\"d\",\"rules\":[{},{}]}\n");
}

TEST(SweepTunerRulesJson, OneRulePerLineLayout) {
  EXPECT_EQ(tunerRulesDocument("d", {"{\"a\":1}", "{\"b\":2}"}, RulesLayout::kOneRulePerLine),
            "{\n  \"schema\": \"railtune.tuner-rules/1\",\n  \"description\": \"d\",\n  \"rules\": [\n    "
            "{\"a\":1},\n    {\"b\":2}\n  ]\n}\n");
  EXPECT_EQ(tunerRulesDocument("d", {}, RulesLayout::kOneRulePerLine),
            "{\n  \"schema\": \"railtune.tuner-rules/1\",\n  \"description\": \"d\",\n  \"rules\": []\n}\n");
}

TEST(SweepTunerRulesJson, DescriptionsAreEscaped) {
  Choice c;
  c.algorithm = "ring";
  c.protocol = "simple";
  const std::string hostile = "from \"my runs\"\\new\n\t$HOME";
  for (const RulesLayout layout : {RulesLayout::kOneLine, RulesLayout::kOneRulePerLine}) {
    const std::string text = tunerRulesDocument(hostile, {ruleOf(c, "allreduce")}, layout);
    EXPECT_NE(text.find(R"("from \"my runs\"\\new\n\t$HOME")"), std::string::npos) << text;
    const formats::tuner_rules::RulesResult read = formats::tuner_rules::readRules(text, "rules.json");
    EXPECT_TRUE(read.ok()) << read.describeErrors() << "\n" << text;
  }
}

}  // namespace
}  // namespace railtune::sweep
