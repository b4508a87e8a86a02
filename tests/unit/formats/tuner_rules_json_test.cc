// railtune's JSON rules format: the documented example, every key, and errors with positions.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "formats/tuner_rules/json_positions.h"
#include "formats/tuner_rules/railtune_json.h"
#include "tests/support/file_text.h"

namespace railtune::formats::tuner_rules {
namespace {

using railtune::testing::readFile;

RulesResult json(const std::string& text) {
  return readRailtuneRules(text, "rules.json");
}

// A document around the given rules array body.
std::string doc(const std::string& rules) {
  return "{\"schema\": \"railtune.tuner-rules/1\",\n\"rules\": [\n" + rules + "\n]}";
}

std::string firstError(const std::string& text) {
  const RulesResult r = json(text);
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.ruleSet.rules.empty());
  return r.errors.empty() ? "" : r.errors[0].describe();
}

TEST(TunerRulesJson, ReadsTheDocumentedExample) {
  const RulesResult r = readRailtuneRules(readFile(RAILTUNE_TUNER_RULES_EXAMPLE), "example.json");
  ASSERT_TRUE(r.ok()) << r.describeErrors();
  ASSERT_EQ(r.ruleSet.rules.size(), 4u);
  const Rule& small = r.ruleSet.rules[0];
  EXPECT_EQ(small.collective, Collective::AllReduce);
  EXPECT_EQ(small.sizeKey, SizeKey::NBytes);
  EXPECT_EQ(small.maxBytes, 65535u);
  EXPECT_EQ(small.nvlDomains, 1);
  EXPECT_EQ(small.protocol, Protocol::LL);
  EXPECT_EQ(small.line, 5u);
  const Rule& gather = r.ruleSet.rules[1];
  EXPECT_EQ(gather.sizeKey, SizeKey::BytesPerRank);
  EXPECT_EQ(gather.minBytes, 1048576u);
  EXPECT_EQ(gather.maxBytes, kNoUpperBound);
  EXPECT_EQ(gather.ranksPerDomain, 72);
  EXPECT_EQ(gather.channels, 32);
  EXPECT_EQ(gather.chunkSize, 524288u);
  const Rule& scatter = r.ruleSet.rules[2];
  EXPECT_EQ(scatter.algorithm, Algorithm::Pat);
  EXPECT_EQ(scatter.nNodes, 2);
  EXPECT_EQ(scatter.numPipeOps, 1);
  EXPECT_EQ(scatter.regBuff, 1);
  const Rule& any = r.ruleSet.rules[3];
  EXPECT_TRUE(any.anyCollective);
  EXPECT_EQ(any.nRanks, 144);
  EXPECT_EQ(any.channels, 0);
  EXPECT_EQ(any.number, 4u);
}

TEST(TunerRulesJson, AbsentKeysAreWildcards) {
  const RulesResult r = json(doc(R"({"algorithm": "nvls_tree", "protocol": "ll128", "regBuff": false})"));
  ASSERT_TRUE(r.ok()) << r.describeErrors();
  const Rule& rule = r.ruleSet.rules[0];
  EXPECT_TRUE(rule.anyCollective);
  EXPECT_EQ(rule.minBytes, 0u);
  EXPECT_EQ(rule.maxBytes, kNoUpperBound);
  EXPECT_EQ(rule.nNodes, kAny);
  EXPECT_EQ(rule.nRanks, kAny);
  EXPECT_EQ(rule.nvlDomains, kAny);
  EXPECT_EQ(rule.ranksPerDomain, kAny);
  EXPECT_EQ(rule.numPipeOps, kAny);
  EXPECT_EQ(rule.regBuff, 0);
  EXPECT_EQ(rule.chunkSize, 0u);
  EXPECT_TRUE(json(doc("")).ok());
}

TEST(TunerRulesJson, UnknownKeysAreErrorsAtTheKey) {
  EXPECT_EQ(firstError(doc(R"(  {"algorithm": "ring", "protocol": "ll", "chanels": 4})")),
            "rules.json:3:43: unknown key \"chanels\" in a rule (known: description, collective, bytesPerRank, nBytes, "
            "nNodes, nRanks, nvlDomains, ranksPerDomain, numPipeOps, regBuff, algorithm, protocol, channels, "
            "chunkSize, evidence)");
  EXPECT_EQ(firstError(doc(R"({"algorithm": "ring", "protocol": "ll", "nBytes": {"min": 1, "mx": 2}})")),
            "rules.json:3:62: unknown key \"mx\" in nBytes (known: min, max)");
  EXPECT_EQ(firstError("{\"schema\": \"railtune.tuner-rules/1\", \"rules\": [], \"extra\": 1}"),
            "rules.json:1:51: unknown key \"extra\" in the document (known: schema, description, rules)");
}

TEST(TunerRulesJson, WrongTypesAndRangesAreErrorsAtTheValue) {
  const std::string base = R"("algorithm": "ring", "protocol": "ll", )";
  EXPECT_EQ(firstError(doc("{" + base + R"("nNodes": "2"})")),
            "rules.json:3:51: \"nNodes\" must be an integer from 1 to 2147483647");
  EXPECT_NE(firstError(doc("{" + base + R"("nRanks": 2.0})")).find("\"nRanks\" must be an integer"), std::string::npos);
  EXPECT_NE(firstError(doc("{" + base + R"("numPipeOps": -1})")).find("\"numPipeOps\" must be an integer from 1"),
            std::string::npos);
  EXPECT_EQ(firstError(doc("{" + base + R"("regBuff": 1})")),
            "rules.json:3:52: \"regBuff\" must be true or false, not an integer");
  EXPECT_NE(firstError(doc("{" + base + R"("channels": 0})")).find("\"channels\" must be an integer from 1 to 64"),
            std::string::npos);
  EXPECT_NE(firstError(doc("{" + base + R"("channels": 65})")).find("from 1 to 64"), std::string::npos);
  EXPECT_NE(
      firstError(doc("{" + base + R"("chunkSize": 0})")).find("\"chunkSize\" must be an integer from 1 to 1073741824"),
      std::string::npos);
  EXPECT_NE(firstError(doc("{" + base + R"("collective": 4})")).find("\"collective\" must be a string, not an integer"),
            std::string::npos);
  EXPECT_NE(firstError(doc("{" + base + R"("nBytes": [1, 2]})")).find("nBytes must be an object, not an array"),
            std::string::npos);
  EXPECT_NE(firstError(doc("7")).find("rules.json:3:1: a rule must be an object, not an integer"), std::string::npos);
}

TEST(TunerRulesJson, NamesAreCheckedAndRequired) {
  EXPECT_EQ(firstError(doc(R"({"collective": "all_reduce", "algorithm": "ring", "protocol": "ll"})")),
            "rules.json:3:16: unknown collective \"all_reduce\" (expected one of broadcast, reduce, allgather, "
            "reducescatter, allreduce)");
  EXPECT_NE(firstError(doc(R"({"algorithm": "NVLS", "protocol": "ll"})")).find("3:15: unknown algorithm \"NVLS\""),
            std::string::npos);
  EXPECT_NE(firstError(doc(R"({"algorithm": "ring", "protocol": "LL"})")).find("3:35: unknown protocol \"LL\""),
            std::string::npos);
  EXPECT_EQ(firstError(doc(R"({"algorithm": "ring"})")), "rules.json:3:1: rule has no \"protocol\"");
  EXPECT_EQ(firstError(doc(R"({"protocol": "ring"})")), "rules.json:3:1: rule has no \"algorithm\"");
}

TEST(TunerRulesJson, SizeKeys) {
  EXPECT_NE(firstError(doc(R"({"algorithm": "ring", "protocol": "ll", "bytesPerRank": {}, "nBytes": {}})"))
                .find("3:71: a rule keys on \"bytesPerRank\" or \"nBytes\", not both"),
            std::string::npos);
  EXPECT_EQ(firstError(doc(R"({"algorithm": "ring", "protocol": "ll", "nBytes": {"min": 9, "max": 8}})")),
            "rules.json:3:51: \"nBytes\" min 9 is larger than max 8: the rule could never match");
  const RulesResult r =
      json(doc(R"({"algorithm": "ring", "protocol": "ll", "bytesPerRank": {"min": 18446744073709551615}})"));
  ASSERT_TRUE(r.ok()) << r.describeErrors();
  EXPECT_EQ(r.ruleSet.rules[0].minBytes, kNoUpperBound);
  EXPECT_EQ(r.ruleSet.rules[0].sizeKey, SizeKey::BytesPerRank);
}

TEST(TunerRulesJson, DocumentLevelErrors) {
  EXPECT_EQ(firstError("{\"rules\": []}"), "rules.json:1:1: no \"schema\" (expected \"railtune.tuner-rules/1\")");
  EXPECT_EQ(firstError("{\"schema\": \"railtune.tuner-rules/2\", \"rules\": []}"),
            "rules.json:1:12: schema \"railtune.tuner-rules/2\" is not \"railtune.tuner-rules/1\"");
  EXPECT_EQ(firstError("{\"schema\": \"railtune.tuner-rules/1\"}"),
            "rules.json:1:1: \"rules\" must be an array of rule objects");
  EXPECT_EQ(firstError("[]"), "rules.json:1:1: the document must be an object, not an array");
}

TEST(TunerRulesJson, SyntaxErrorsNameLineAndColumn) {
  const std::string error = firstError("{\n  \"schema\": \"railtune.tuner-rules/1\",\n  \"rules\": [,]\n}");
  EXPECT_EQ(error.rfind("rules.json:3:13: syntax error", 0), 0u) << error;
  EXPECT_EQ(firstError("{\"a\": 1} x").rfind("rules.json:1:10: syntax error", 0), 0u);
  EXPECT_EQ(firstError("").rfind("rules.json:1:1: syntax error", 0), 0u);
  EXPECT_EQ(firstError("{\"schema\": 1, \"schema\": 2}"), "rules.json:1:15: duplicate key \"schema\"");
  EXPECT_EQ(firstError(std::string(40, '[')), "rules.json:1:33: nesting deeper than 32 levels");
}

TEST(TunerRulesJson, HostileDocumentsAreBounded) {
  std::string object = "{";
  for (size_t i = 0; i <= kMaxJsonObjectKeys; ++i) object += (i == 0 ? "\"k" : ", \"k") + std::to_string(i) + "\": 0";
  object += "}";
  EXPECT_EQ(firstError(object),
            "rules.json:1:" + std::to_string(object.find("\"k64\"") + 1) + ": an object with more than 64 keys");
  std::string values = "[";
  for (size_t i = 0; i < kMaxJsonValues; ++i) values += i == 0 ? "0" : ",0";
  values += "]";  // the array and its elements: one value too many
  EXPECT_EQ(firstError(values),
            "rules.json:1:" + std::to_string(2 * kMaxJsonValues) + ": more than 2000000 JSON values");
}

TEST(TunerRulesJson, AtMostOneHundredThousandRules) {
  std::string rules;
  for (size_t i = 0; i <= kMaxRules; ++i) rules += i == 0 ? "{}" : ",{}";
  EXPECT_EQ(firstError("{\"schema\": \"railtune.tuner-rules/1\", \"rules\": [" + rules + "]}"),
            "rules.json:1:" + std::to_string(48 + 3 * kMaxRules) + ": more than 100000 rules");
}

TEST(TunerRulesJson, PositionsSurviveBomAndCrlf) {
  const RulesResult r = json("\xEF\xBB\xBF{\"schema\": \"railtune.tuner-rules/1\",\r\n \"rules\": [{\"bogus\": 1}]}");
  ASSERT_EQ(r.errors.size(), 3u);  // the unknown key, then no algorithm and no protocol
  EXPECT_EQ(r.errors[0].line, 2u);
  EXPECT_EQ(r.errors[0].column, 13u);
  EXPECT_EQ(r.errors[1].column, 12u);
}

TEST(TunerRulesJson, LineMapAgreesWithLineColumnAt) {
  const std::string text = "ab\ncd\n\nefg";
  const LineMap map(text);
  for (size_t offset = 0; offset <= text.size(); ++offset) {
    EXPECT_EQ(map.at(offset).line, lineColumnAt(text, offset).line) << offset;
    EXPECT_EQ(map.at(offset).column, lineColumnAt(text, offset).column) << offset;
  }
}

}  // namespace
}  // namespace railtune::formats::tuner_rules
