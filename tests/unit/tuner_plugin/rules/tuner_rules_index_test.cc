// The rule index against the linear first-match scan it replaces: IGNORE handling, the
// communicator prefilter, a randomized differential test, the memory fallback, and zero heap
// allocations per lookup (operator new is replaced in this test binary to count them).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <random>
#include <vector>

#include "formats/tuner_rules/nccl_csv.h"
#include "tests/support/allocation_counter.h"
#include "tests/unit/tuner_plugin/rules/tuner_rules_random.h"
#include "tuner_plugin/rules/rule_index.h"

using railtune::testing::gAllocations;

namespace railtune::tuner::rules {
using namespace formats::tuner_rules;  // the readers: the rules file format
namespace {

using testing::RandomCells;
using testing::randomRuleSet;
using testing::randomSize;

bool everyCellAllowed(Algorithm, Protocol) {
  return true;
}

RuleSet csvRules(const std::string& text) {
  RulesResult r = readNcclTunerCsv(text, "rules.csv");
  EXPECT_TRUE(r.ok()) << r.describeErrors();
  return r.ruleSet;
}

uint32_t numberOf(const Rule* rule) {
  return rule == nullptr ? 0 : rule->number;
}

TEST(TunerRulesIndex, SkipsRulesWhoseCellNcclIgnoresAndContinues) {
  const RuleSet set = csvRules(
      "allreduce,0,1000,nvls,simple,8,-1,-1\n"
      "allreduce,0,1000,ring,ll,-1,-1,-1\n"
      "allreduce,0,1000,nvls,simple,4,-1,-1\n");
  const RuleIndex index(set, RuleScope{});
  const auto noNvls = [](Algorithm a, Protocol) { return a != Algorithm::Nvls; };
  const auto nothing = [](Algorithm, Protocol) { return false; };
  EXPECT_EQ(numberOf(index.lookup(Collective::AllReduce, 10, 1, 0, everyCellAllowed)), 1u);
  EXPECT_EQ(numberOf(index.lookup(Collective::AllReduce, 10, 1, 0, noNvls)), 2u);
  EXPECT_EQ(numberOf(index.lookup(Collective::AllReduce, 10, 1, 0, nothing)), 0u);
  EXPECT_EQ(numberOf(linearLookup(set, RuleScope{}, Collective::AllReduce, 10, 1, 0, noNvls)), 2u);
}

TEST(TunerRulesIndex, LeavesOutRulesThatCanNeverWinAndMergesIntervals) {
  std::string text = "allreduce,100,-1,ring,ll,-1,-1,-1\n";  // matches every call from 100 bytes on
  for (int k = 1; k <= 20; ++k) {
    text += "allreduce," + std::to_string(k * 1000) + "," + std::to_string(k * 1000 + 5) + ",ring,ll,8,-1,-1,2,1\n";
    text += "allreduce," + std::to_string(k * 1000) + ",-1,tree,ll,-1,-1,-1,-1,0\n";
  }
  const RuleSet set = csvRules(text);
  const RuleIndex index(set, RuleScope{});
  // Rule 1 hides every later ring/ll rule, and rule 3 every later tree/ll rule with regBuff 0:
  // what is left is [0, 99] (nothing), [100, 999] (rule 1) and [1000, max] (rules 1 and 3).
  EXPECT_EQ(index.intervalCount(Collective::AllReduce), 3u);
  const auto noRingLL = [](Algorithm a, Protocol p) { return a != Algorithm::Ring || p != Protocol::LL; };
  EXPECT_EQ(numberOf(index.lookup(Collective::AllReduce, 5003, 2, 1, everyCellAllowed)), 1u);
  EXPECT_EQ(numberOf(index.lookup(Collective::AllReduce, 5003, 2, 1, noRingLL)), 0u);
  EXPECT_EQ(numberOf(index.lookup(Collective::AllReduce, 5003, 2, 0, noRingLL)), 3u);
  EXPECT_EQ(numberOf(index.lookup(Collective::AllReduce, 50, 2, 0, everyCellAllowed)), 0u);
  EXPECT_EQ(index.intervalCount(Collective::Reduce), 1u);
}

TEST(TunerRulesIndex, PrefiltersOnCommunicatorWideKeys) {
  RuleSet set = csvRules(
      "allreduce,0,-1,ring,ll,-1,2,-1\n"
      "allreduce,0,-1,tree,ll,-1,-1,144\n"
      "allreduce,0,-1,ring,simple,-1,-1,-1\n");
  Rule domains = set.rules[2];
  domains.nvlDomains = 2;
  domains.ranksPerDomain = 72;
  domains.number = 4;
  set.rules.insert(set.rules.begin() + 2, domains);
  const RuleIndex twoRacks(set, RuleScope{144, 2, 2, 72, 72});
  EXPECT_EQ(twoRacks.ruleCount(), 4u);
  const RuleIndex oneRack(set, RuleScope{72, 1, 1, 72, 72});
  EXPECT_EQ(oneRack.ruleCount(), 1u);
  EXPECT_EQ(numberOf(oneRack.lookup(Collective::AllReduce, 1, 1, 0, everyCellAllowed)), 3u);
  // ranksPerDomain matches only when every domain has that many ranks.
  const RuleIndex uneven(set, RuleScope{144, 2, 2, 71, 73});
  EXPECT_EQ(uneven.ruleCount(), 3u);
}

TEST(TunerRulesIndex, BytesPerRankRulesFollowTheCollective) {
  RuleSet set;
  Rule rule;
  rule.anyCollective = true;
  rule.sizeKey = SizeKey::BytesPerRank;
  rule.minBytes = 100;
  rule.maxBytes = 200;
  rule.number = 1;
  set.rules.push_back(rule);
  const RuleScope threeRanks{3, 1, 1, 3, 3};
  const RuleIndex index(set, threeRanks);
  for (uint64_t n : {299u, 300u, 602u, 603u}) {
    const bool inGather = n >= 300 && n <= 602;  // floor(n / 3) in [100, 200]
    EXPECT_EQ(index.lookup(Collective::AllGather, n, 1, 0, everyCellAllowed) != nullptr, inGather) << n;
    EXPECT_EQ(index.lookup(Collective::ReduceScatter, n, 1, 0, everyCellAllowed) != nullptr, inGather) << n;
    EXPECT_EQ(index.lookup(Collective::AllReduce, n, 1, 0, everyCellAllowed) != nullptr, false) << n;
  }
  EXPECT_NE(index.lookup(Collective::Broadcast, 150, 1, 0, everyCellAllowed), nullptr);
}

// The differential test: the index and the linear scan give the same rule for every query.
// Returns how many queries matched a rule.
size_t expectSameAsLinear(const RuleSet& set, const RuleScope& scope, const RuleIndex& index, uint64_t seed,
                          size_t queries) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> edges;  // every range end and its neighbours: where off-by-one errors live
  for (const Rule& r : set.rules)
    for (uint64_t v : {r.minBytes, r.maxBytes})
      for (uint64_t n : {uint64_t{1}, uint64_t{scope.nRanks}})
        for (uint64_t d : {v * n - 1, v * n, v * n + 1, v * n + n - 1, v * n + n}) edges.push_back(d);
  RandomCells cells(rng);
  size_t matched = 0;
  for (size_t q = 0; q < queries; ++q) {
    if (q % 64 == 0) cells = RandomCells(rng);
    const auto c = static_cast<Collective>(rng() % kNumCollectives);
    const uint64_t nBytes = rng() % 2 == 0 ? randomSize(rng) : edges[rng() % edges.size()];
    const int pipeOps = static_cast<int>(rng() % 5);
    const int regBuff = static_cast<int>(rng() % 3) - (rng() % 8 == 0 ? 1 : 0);  // mostly 0/1, sometimes not
    const Rule* expected = linearLookup(set, scope, c, nBytes, pipeOps, regBuff, cells);
    const Rule* got = index.lookup(c, nBytes, pipeOps, regBuff, cells);
    EXPECT_EQ(numberOf(got), numberOf(expected)) << "query " << q << ": " << collectiveName(c) << " nBytes=" << nBytes
                                                 << " pipeOps=" << pipeOps << " regBuff=" << regBuff;
    if (numberOf(got) != numberOf(expected)) break;  // one report is enough
    matched += expected != nullptr;
  }
  return matched;
}

TEST(TunerRulesIndex, MatchesTheLinearScanOnRandomRules) {
  const RuleScope scopes[] = {{8, 2, 2, 4, 4}, {72, 1, 1, 72, 72}, {288, 4, 4, 72, 72}, {144, 2, 1, 144, 144}};
  uint64_t seed = 20261130;
  for (const RuleScope& scope : scopes) {
    for (size_t count : {1u, 10u, 100u, 2000u}) {
      const RuleSet set = randomRuleSet(++seed, count);
      const RuleIndex index(set, scope);
      ASSERT_FALSE(index.usesLinearScan());
      const size_t matched = expectSameAsLinear(set, scope, index, seed, 25'000);
      // With many rules the queries exercise matches, not only misses.
      if (count == 2000) {
        EXPECT_GT(matched, 25'000u / 4) << "scope with " << scope.nRanks << " ranks";
      }
    }
  }
}

TEST(TunerRulesIndex, TenThousandRulesStayWithinTheMemoryBound) {
  const RuleSet set = randomRuleSet(7, 10'000);
  const RuleScope scope{144, 2, 2, 72, 72};
  const RuleIndex index(set, scope);
  ASSERT_FALSE(index.usesLinearScan());
  EXPECT_LT(index.memoryBytes(), kDefaultIndexBudgetBytes);
  EXPECT_GT(expectSameAsLinear(set, scope, index, 8, 100'000), 100'000u / 4);
}

TEST(TunerRulesIndex, FallsBackToTheLinearScanBeyondTheMemoryBudget) {
  const RuleSet set = randomRuleSet(11, 2000);
  const RuleScope scope{8, 2, 2, 4, 4};
  ASSERT_FALSE(RuleIndex(set, scope).usesLinearScan());
  const RuleIndex small(set, scope, 1024);
  EXPECT_TRUE(small.usesLinearScan());
  EXPECT_LE(small.memoryBytes(), 2000 * sizeof(Rule));
  EXPECT_GT(expectSameAsLinear(set, scope, small, 12, 20'000), 0u);
}

TEST(TunerRulesIndex, EmptyRuleSetsMatchNothing) {
  const RuleIndex index(RuleSet{}, RuleScope{});
  EXPECT_EQ(index.lookup(Collective::AllReduce, 1, 1, 0, everyCellAllowed), nullptr);
  EXPECT_EQ(index.lookup(static_cast<Collective>(9), 1, 1, 0, everyCellAllowed), nullptr);
}

TEST(TunerRulesIndex, LookupsDoNotAllocate) {
  if (!railtune::testing::kCountsAllocations) GTEST_SKIP() << "operator new cannot be replaced under TSan";
  const RuleSet set = randomRuleSet(3, 10'000);
  const RuleScope scope{144, 2, 2, 72, 72};
  const RuleIndex index(set, scope);
  const RuleIndex linear(set, scope, 0);
  ASSERT_TRUE(linear.usesLinearScan());
  std::mt19937_64 rng(4);
  const RandomCells cells(rng);
  std::vector<uint64_t> sizes(100'000);
  for (uint64_t& s : sizes) s = randomSize(rng);
  size_t found = 0;
  const size_t before = gAllocations.load();
  for (size_t i = 0; i < sizes.size(); ++i) {
    const auto c = static_cast<Collective>(i % kNumCollectives);
    found += index.lookup(c, sizes[i], 1 + static_cast<int>(i % 4), static_cast<int>(i % 2), cells) != nullptr;
    if (i % 100 == 0) found += linear.lookup(c, sizes[i], 1, 0, cells) != nullptr;
  }
  EXPECT_EQ(gAllocations.load() - before, 0u);
  EXPECT_GT(found, 0u);
  // The counter works: building an index allocates.
  const RuleIndex another(set, scope);
  EXPECT_GT(gAllocations.load() - before, 0u);
}

}  // namespace
}  // namespace railtune::tuner::rules
