// NCCL's example tuner CSV, case by case: each field, wildcards, inclusive ends, first match wins,
// comments, CRLF, and each deliberate deviation (docs/tuning.md, "Deviations from NCCL's example").
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "formats/tuner_rules/nccl_csv.h"
#include "tests/support/shared_data.h"
#include "tuner_plugin/rules/rule_index.h"

namespace railtune::tuner::rules {
using namespace formats::tuner_rules;  // the readers: the rules file format
namespace {

RulesResult csv(const std::string& text) {
  return readNcclTunerCsv(text, "rules.csv");
}

Rule only(const std::string& text) {
  const RulesResult r = csv(text);
  EXPECT_TRUE(r.ok()) << r.describeErrors();
  EXPECT_EQ(r.ruleSet.rules.size(), 1u);
  return r.ruleSet.rules.empty() ? Rule{} : r.ruleSet.rules[0];
}

// The single error of a one-line file, as "line:column: message".
std::string errorOf(const std::string& text) {
  const RulesResult r = csv(text);
  EXPECT_EQ(r.errors.size(), 1u) << r.describeErrors();
  EXPECT_TRUE(r.ruleSet.rules.empty());
  return r.errors.empty() ? "" : r.errors[0].describe();
}

bool anyCell(Algorithm, Protocol) {
  return true;
}

const Rule* match(const RulesResult& r, Collective c, uint64_t nBytes, RuleScope scope = {}, int pipeOps = 1,
                  int regBuff = 0) {
  return linearLookup(r.ruleSet, scope, c, nBytes, pipeOps, regBuff, anyCell);
}

TEST(TunerRulesCsv, ReadsNcclsOwnExampleFileUnchanged) {
  const std::string path = railtune::testing::sharedDataPath("tuner/nccl_tuner.conf");
  if (!railtune::testing::sharedDataPresent(path)) GTEST_SKIP() << path << " is absent";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const RulesResult r = readNcclTunerCsv(text.str(), "nccl_tuner.conf");
  ASSERT_TRUE(r.ok()) << r.describeErrors();
  ASSERT_EQ(r.ruleSet.rules.size(), 9u);
  const Rule& first = r.ruleSet.rules[0];  // allreduce,0,65536,tree,simple,2,1,-1,-1,1
  EXPECT_EQ(first.collective, Collective::AllReduce);
  EXPECT_EQ(first.minBytes, 0u);
  EXPECT_EQ(first.maxBytes, 65536u);
  EXPECT_EQ(first.algorithm, Algorithm::Tree);
  EXPECT_EQ(first.protocol, Protocol::Simple);
  EXPECT_EQ(first.channels, 2);
  EXPECT_EQ(first.nNodes, 1);
  EXPECT_EQ(first.nRanks, kAny);
  EXPECT_EQ(first.numPipeOps, kAny);
  EXPECT_EQ(first.regBuff, 1);
  EXPECT_EQ(first.number, 1u);
  EXPECT_EQ(first.line, 19u);              // its line in NCCL's file
  const Rule& third = r.ruleSet.rules[2];  // allreduce,1048577,4294967295,ring,ll128,-1,-1,-1,4,-1
  EXPECT_EQ(third.channels, 0);
  EXPECT_EQ(third.numPipeOps, 4);
  EXPECT_EQ(third.protocol, Protocol::LL128);
  const Rule& gather = r.ruleSet.rules[5];  // allgather,0,4294967295,ring,simple,4,2,-1 (8 fields)
  EXPECT_EQ(gather.collective, Collective::AllGather);
  EXPECT_EQ(gather.nNodes, 2);
  EXPECT_EQ(gather.numPipeOps, kAny);
  EXPECT_EQ(gather.regBuff, kAny);
}

TEST(TunerRulesCsv, EveryCollectiveAlgorithmAndProtocolName) {
  const char* collectives[] = {"broadcast", "reduce", "allgather", "reducescatter", "allreduce"};
  for (int c = 0; c < kNumCollectives; ++c)
    EXPECT_EQ(only(std::string(collectives[c]) + ",0,1,ring,simple,-1,-1,-1").collective, static_cast<Collective>(c));
  const char* algorithms[] = {"tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat"};
  for (int a = 0; a < kNumAlgorithms; ++a)
    EXPECT_EQ(only(std::string("allreduce,0,1,") + algorithms[a] + ",simple,-1,-1,-1").algorithm,
              static_cast<Algorithm>(a));
  const char* protocols[] = {"ll", "ll128", "simple"};
  for (int p = 0; p < kNumProtocols; ++p)
    EXPECT_EQ(only(std::string("allreduce,0,1,ring,") + protocols[p] + ",-1,-1,-1").protocol, static_cast<Protocol>(p));
}

TEST(TunerRulesCsv, NumbersOfEachField) {
  const Rule r = only("reducescatter,4096,8191,pat,ll,12,4,16,2,0");
  EXPECT_EQ(r.minBytes, 4096u);
  EXPECT_EQ(r.maxBytes, 8191u);
  EXPECT_EQ(r.channels, 12);
  EXPECT_EQ(r.nNodes, 4);
  EXPECT_EQ(r.nRanks, 16);
  EXPECT_EQ(r.numPipeOps, 2);
  EXPECT_EQ(r.regBuff, 0);
  EXPECT_EQ(r.sizeKey, SizeKey::NBytes);
  EXPECT_EQ(r.chunkSize, 0u);
  EXPECT_EQ(only("allreduce,0,18446744073709551615,ring,ll,0,-1,-1").maxBytes, kNoUpperBound);
}

TEST(TunerRulesCsv, NineAndTenFieldsAndWildcards) {
  const Rule nine = only("allreduce,0,1,ring,simple,-1,-1,-1,3");
  EXPECT_EQ(nine.numPipeOps, 3);
  EXPECT_EQ(nine.regBuff, kAny);
  const Rule ten = only("allreduce,0,1,ring,simple,-1,-1,-1,-1,-1");
  EXPECT_EQ(ten.nNodes, kAny);
  EXPECT_EQ(ten.nRanks, kAny);
  EXPECT_EQ(ten.numPipeOps, kAny);
  EXPECT_EQ(ten.regBuff, kAny);
}

TEST(TunerRulesCsv, WildcardsMatchAnyValueAndNumbersOnlyTheirOwn) {
  const RulesResult r = csv("allreduce,0,100,ring,simple,-1,2,16,1,1\nallreduce,0,100,tree,ll,-1,-1,-1,-1,-1\n");
  ASSERT_TRUE(r.ok());
  const RuleScope twoBySixteen{16, 2, 2, 8, 8};
  EXPECT_EQ(match(r, Collective::AllReduce, 10, twoBySixteen, 1, 1)->number, 1u);
  EXPECT_EQ(match(r, Collective::AllReduce, 10, twoBySixteen, 2, 1)->number, 2u);                 // numPipeOps differs
  EXPECT_EQ(match(r, Collective::AllReduce, 10, twoBySixteen, 1, 0)->number, 2u);                 // regBuff differs
  EXPECT_EQ(match(r, Collective::AllReduce, 10, RuleScope{16, 4, 4, 4, 4}, 1, 1)->number, 2u);    // nNodes
  EXPECT_EQ(match(r, Collective::AllReduce, 10, RuleScope{32, 2, 2, 16, 16}, 1, 1)->number, 2u);  // nRanks
  EXPECT_EQ(match(r, Collective::AllGather, 10, twoBySixteen, 1, 1), nullptr);                    // collective
}

TEST(TunerRulesCsv, ByteRangesAreInclusive) {
  const RulesResult r = csv("broadcast,100,200,ring,simple,-1,-1,-1\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(match(r, Collective::Broadcast, 99), nullptr);
  EXPECT_NE(match(r, Collective::Broadcast, 100), nullptr);
  EXPECT_NE(match(r, Collective::Broadcast, 200), nullptr);
  EXPECT_EQ(match(r, Collective::Broadcast, 201), nullptr);
}

TEST(TunerRulesCsv, FirstMatchWins) {
  const RulesResult r =
      csv("allreduce,0,1000,tree,ll,-1,-1,-1\n"
          "allreduce,500,2000,ring,ll128,-1,-1,-1\n"
          "allreduce,0,4000,nvls,simple,-1,-1,-1\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(match(r, Collective::AllReduce, 700)->number, 1u);
  EXPECT_EQ(match(r, Collective::AllReduce, 1001)->number, 2u);
  EXPECT_EQ(match(r, Collective::AllReduce, 3000)->number, 3u);
  EXPECT_EQ(match(r, Collective::AllReduce, 4001), nullptr);
}

TEST(TunerRulesCsv, CommentsBlankLinesBlanksAroundFieldsAndCrlf) {
  const RulesResult r =
      csv("\xEF\xBB\xBF# a comment, with, many, commas, in, it, ok, yes, really\r\n"
          "\r\n"
          "   \t\n"
          "  # an indented comment\n"
          " allreduce , 0 ,\t100 , ring , ll128 , 4 , -1 , -1 \r\n"
          "reduce,0,100,tree,ll,-1,-1,-1");  // no final line break
  ASSERT_TRUE(r.ok()) << r.describeErrors();
  ASSERT_EQ(r.ruleSet.rules.size(), 2u);
  EXPECT_EQ(r.ruleSet.rules[0].line, 5u);
  EXPECT_EQ(r.ruleSet.rules[0].protocol, Protocol::LL128);
  EXPECT_EQ(r.ruleSet.rules[0].channels, 4);
  EXPECT_EQ(r.ruleSet.rules[1].collective, Collective::Reduce);
  EXPECT_EQ(r.ruleSet.rules[1].number, 2u);
  EXPECT_TRUE(csv("").ok());
  EXPECT_TRUE(csv("# only a comment\n").ruleSet.rules.empty());
}

TEST(TunerRulesCsv, ChannelsMinusOneAndZeroKeepNcclsChoice) {
  EXPECT_EQ(only("allreduce,0,1,ring,simple,-1,-1,-1").channels, 0);
  EXPECT_EQ(only("allreduce,0,1,ring,simple,0,-1,-1").channels, 0);
  EXPECT_EQ(only("allreduce,0,1,ring,simple,64,-1,-1").channels, 64);
}

TEST(TunerRulesCsv, MaxBytesMinusOneMeansNoUpperBound) {
  // NCCL's strtoull reads "-1" as the largest size; so does this reader.
  EXPECT_EQ(only("allreduce,0,-1,ring,simple,-1,-1,-1").maxBytes, kNoUpperBound);
}

TEST(TunerRulesCsv, DeviationUnknownNamesAreErrorsWithPosition) {
  EXPECT_EQ(errorOf("allreduc,0,1,ring,simple,-1,-1,-1"),
            "rules.csv:1:1: unknown collective 'allreduc' (expected one of broadcast, reduce, allgather, "
            "reducescatter, allreduce)");
  EXPECT_EQ(errorOf("# c\nallreduce,0,1, rng,simple,-1,-1,-1"),
            "rules.csv:2:16: unknown algorithm 'rng' (expected one of tree, ring, collnet_direct, collnet_chain, nvls, "
            "nvls_tree, pat)");
  EXPECT_EQ(errorOf("allreduce,0,1,ring,LL128,-1,-1,-1"),
            "rules.csv:1:20: unknown protocol 'LL128' (expected one of ll, ll128, simple)");
  // Algorithm and protocol names are case-sensitive, as NCCL's example compares them with strcmp.
  EXPECT_NE(errorOf("allreduce,0,1,Ring,simple,-1,-1,-1").find("unknown algorithm 'Ring'"), std::string::npos);
}

TEST(TunerRulesCsv, CollectiveNamesAreReadWithoutCase) {
  // NCCL's own spelling ("AllReduce": `tuner decisions --collectives`, NCCL's logs) is the same collective as
  // the example file's "allreduce"; NCCL's example would read "AllGather" as its fallback, allreduce.
  EXPECT_EQ(only("AllReduce,0,1,ring,simple,-1,-1,-1").collective, Collective::AllReduce);
  EXPECT_EQ(only("AllGather,0,1,ring,simple,-1,-1,-1").collective, Collective::AllGather);
  EXPECT_EQ(only("REDUCESCATTER,0,1,ring,simple,-1,-1,-1").collective, Collective::ReduceScatter);
  EXPECT_EQ(only("broadCast,0,1,ring,simple,-1,-1,-1").collective, Collective::Broadcast);
  EXPECT_EQ(errorOf("All_Reduce,0,1,ring,simple,-1,-1,-1"),
            "rules.csv:1:1: unknown collective 'All_Reduce' (expected one of broadcast, reduce, allgather, "
            "reducescatter, allreduce)");
}

TEST(TunerRulesCsv, DeviationBadNumbersAreErrors) {
  EXPECT_EQ(errorOf("allreduce,12abc,100,ring,simple,-1,-1,-1"),
            "rules.csv:1:11: minBytes '12abc' is not a byte count (decimal, 0 or more)");
  EXPECT_NE(errorOf("allreduce,0,0x10,ring,simple,-1,-1,-1").find("1:13: maxBytes '0x10'"), std::string::npos);
  EXPECT_NE(errorOf("allreduce,0,1.5,ring,simple,-1,-1,-1").find("maxBytes '1.5'"), std::string::npos);
  EXPECT_NE(errorOf("allreduce,-1,10,ring,simple,-1,-1,-1").find("minBytes '-1'"), std::string::npos);
  EXPECT_NE(errorOf("allreduce,0,18446744073709551616,ring,simple,-1,-1,-1").find("maxBytes"), std::string::npos);
  EXPECT_EQ(errorOf("allreduce,0,1,ring,simple,many,-1,-1"),
            "rules.csv:1:27: channels 'many' must be -1 (keep NCCL's) or 0..64");
  EXPECT_NE(errorOf("allreduce,0,1,ring,simple,65,-1,-1").find("channels '65'"), std::string::npos);
  EXPECT_NE(errorOf("allreduce,0,1,ring,simple,-1,0,-1").find("1:30: nNodes '0' must be -1 (any)"), std::string::npos);
  EXPECT_NE(errorOf("allreduce,0,1,ring,simple,-1,-1,-2").find("nRanks '-2'"), std::string::npos);
  EXPECT_NE(errorOf("allreduce,0,1,ring,simple,-1,-1,-1,x").find("numPipeOps 'x'"), std::string::npos);
  EXPECT_EQ(errorOf("allreduce,0,1,ring,simple,-1,-1,-1,-1,2"), "rules.csv:1:39: regBuff '2' must be -1 (any), 0 or 1");
  // Trailing text, which atoi/strtoull would ignore, is an error too.
  EXPECT_NE(errorOf("allreduce,0,1,ring,simple,-1,-1,-1 # note").find("nRanks '-1 # note'"), std::string::npos);
}

TEST(TunerRulesCsv, DeviationWrongFieldCountIsAnError) {
  EXPECT_EQ(errorOf("allreduce,0,1,ring,simple,-1,-1"),
            "rules.csv:1:1: expected 8 to 10 comma-separated fields (collective,minBytes,maxBytes,algorithm,protocol,"
            "channels,nNodes,nRanks[,numPipeOps[,regBuff]]), found 7");
  EXPECT_NE(errorOf("allreduce,0,1,ring,simple,-1,-1,-1,-1,-1,-1").find("found 11"), std::string::npos);
  // NCCL's strtok would merge the empty field away; here an empty field is a field.
  const RulesResult shifted = csv("allreduce,,0,1,ring,simple,-1,-1");
  ASSERT_EQ(shifted.errors.size(), 4u);  // every field after the empty one is off by one
  EXPECT_EQ(shifted.errors[0].describe(), "rules.csv:1:11: minBytes '' is not a byte count (decimal, 0 or more)");
  EXPECT_NE(errorOf("allreduce,0,1,ring,simple,-1,-1,-1,").find("1:36: numPipeOps ''"), std::string::npos);
}

TEST(TunerRulesCsv, DeviationMinAboveMaxIsAnError) {
  EXPECT_EQ(errorOf("allgather,200,100,ring,simple,-1,-1,-1"),
            "rules.csv:1:11: minBytes 200 is larger than maxBytes 100: the rule could never match");
  EXPECT_TRUE(csv("allgather,100,100,ring,simple,-1,-1,-1").ok());
}

TEST(TunerRulesCsv, EveryBadFieldOfALineIsReportedAndNoRulesAreKept) {
  const RulesResult r = csv("allreduce,0,1,ring,simple,-1,-1,-1\nfoo,0,1,bar,baz,-1,-1,-1\n");
  ASSERT_EQ(r.errors.size(), 3u);
  EXPECT_EQ(r.errors[0].column, 1u);
  EXPECT_EQ(r.errors[1].column, 9u);
  EXPECT_EQ(r.errors[2].column, 13u);
  EXPECT_EQ(r.errors[2].line, 2u);
  EXPECT_TRUE(r.ruleSet.rules.empty());  // a file with errors yields no rules at all
}

TEST(TunerRulesCsv, LongLinesAreErrors) {
  const std::string padded = "allreduce,0,1,ring,simple,-1,-1," + std::string(kMaxLineBytes - 34, ' ') + "-1";
  ASSERT_EQ(padded.size(), kMaxLineBytes);
  EXPECT_TRUE(csv(padded + "\n").ok());
  EXPECT_EQ(errorOf(padded + " \n"), "rules.csv:1:4097: line longer than 4096 bytes");
}

TEST(TunerRulesCsv, AtMostOneHundredThousandRules) {
  std::string text;
  for (size_t i = 0; i < kMaxRules; ++i) text += "allreduce,0,1,ring,simple,-1,-1,-1\n";
  const RulesResult full = csv(text);
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(full.ruleSet.rules.size(), kMaxRules);
  EXPECT_EQ(full.ruleSet.rules.back().number, kMaxRules);
  EXPECT_EQ(errorOf(text + "allreduce,0,1,ring,simple,-1,-1,-1\n"), "rules.csv:100001:1: more than 100000 rules");
}

TEST(TunerRulesCsv, ErrorsAreCappedWithOneClosingLine) {
  std::string text;
  for (int i = 0; i < 100; ++i) text += "bad line\n";
  const RulesResult r = csv(text);
  ASSERT_EQ(r.errors.size(), kMaxErrorsReported + 1);
  EXPECT_EQ(r.errors.back().message, "further errors not reported");
  EXPECT_EQ(r.errors.back().line, kMaxErrorsReported + 1);
}

}  // namespace
}  // namespace railtune::tuner::rules
