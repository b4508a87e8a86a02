// The tuner's rule lookup in isolation, side by side in one run, for 1, 100 and 10,000 seeded
// random rules (tests/unit/tuner_plugin/rules/tuner_rules_random.h: overlapping ranges, wildcards in every key):
//   BM_RuleIndexLookup/N/F   RuleIndex::lookup, as the engine calls it on NCCL's enqueue path
//   BM_LinearRuleScan/N/F    the first-match scan over the same rules (NCCL's example's method)
// F = 0: a cluster-wide file, most of whose rules are for other communicator sizes;
// F = 1: the same rules with their communicator keys cleared, so that all of them fit.
// Before timing, every query's pick from the index is checked against the linear scan.
// Targets (issue 4): <= 50 ns per lookup at 10,000 rules, >= 20x faster than the linear scan.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "tests/unit/tuner_plugin/rules/tuner_rules_random.h"
#include "tuner_plugin/rules/rule_index.h"

namespace {

using namespace railtune::tuner;
using namespace railtune::tuner::rules;
using namespace railtune::formats::tuner_rules;

struct Query {
  Collective collective;
  uint64_t nBytes;
  int numPipeOps;
  int regBuff;
};

// Two racks of GB200 NVL72 with MNNVL: 144 ranks, 2 nodes, 2 NVLink domains of 72.
const RuleScope kScope{144, 2, 2, 72, 72};
constexpr size_t kQueries = 4096;  // a power of two: the loop wraps with a mask

// NCCL's cost table for one call: CollNet cells IGNOREd (no SHARP), as on most clusters.
struct CostTable {
  float cost[kNumAlgorithms][kNumProtocols];
  CostTable() {
    for (int a = 0; a < kNumAlgorithms; ++a)
      for (int p = 0; p < kNumProtocols; ++p) cost[a][p] = 10.0f + static_cast<float>(a + p);
    for (int p = 0; p < kNumProtocols; ++p) {
      cost[static_cast<int>(Algorithm::CollNetDirect)][p] = -1.0f;
      cost[static_cast<int>(Algorithm::CollNetChain)][p] = -1.0f;
    }
  }
  bool operator()(Algorithm a, Protocol p) const { return cost[static_cast<int>(a)][static_cast<int>(p)] >= 0.0f; }
};

std::vector<Query> makeQueries() {
  std::mt19937_64 rng(42);
  std::vector<Query> queries(kQueries);
  for (Query& q : queries)
    q = {static_cast<Collective>(rng() % kNumCollectives), testing::randomSize(rng), 1 + static_cast<int>(rng() % 4),
         static_cast<int>(rng() % 2)};
  return queries;
}

struct Fixture {
  RuleSet set;
  RuleIndex index;
  std::vector<Query> queries = makeQueries();
  CostTable table;
  Fixture(size_t rules, bool allFit) : set(makeSet(rules, allFit)), index(set, kScope) {}

  // allFit clears the communicator-wide keys, so that the index's prefilter drops nothing.
  static RuleSet makeSet(size_t rules, bool allFit) {
    RuleSet s = testing::randomRuleSet(1000 + rules, rules);
    if (allFit)
      for (Rule& r : s.rules) r.nNodes = r.nRanks = r.nvlDomains = r.ranksPerDomain = kAny;
    return s;
  }

  // The index must pick exactly what the linear scan picks, or its timing means nothing.
  bool agrees() const {
    for (const Query& q : queries) {
      const Rule* fast = index.lookup(q.collective, q.nBytes, q.numPipeOps, q.regBuff, table);
      const Rule* slow = linearLookup(set, kScope, q.collective, q.nBytes, q.numPipeOps, q.regBuff, table);
      if ((fast == nullptr) != (slow == nullptr) || (fast != nullptr && fast->number != slow->number)) return false;
    }
    return true;
  }
};

void BM_RuleIndexLookup(benchmark::State& state) {
  const Fixture f(static_cast<size_t>(state.range(0)), state.range(1) != 0);
  if (!f.agrees() || f.index.usesLinearScan()) {
    state.SkipWithError("the index disagrees with the linear scan, or fell back to it");
    return;
  }
  size_t i = 0;
  for (auto _ : state) {
    const Query& q = f.queries[i++ & (kQueries - 1)];
    benchmark::DoNotOptimize(f.index.lookup(q.collective, q.nBytes, q.numPipeOps, q.regBuff, f.table));
  }
  state.counters["rules_kept"] = static_cast<double>(f.index.ruleCount());
  state.counters["index_KiB"] = static_cast<double>(f.index.memoryBytes()) / 1024.0;
}
// Second argument: 0 = a cluster-wide file (rules for many communicator sizes), 1 = every rule fits.
BENCHMARK(BM_RuleIndexLookup)->ArgsProduct({{1, 100, 10'000}, {0, 1}});

void BM_LinearRuleScan(benchmark::State& state) {
  const Fixture f(static_cast<size_t>(state.range(0)), state.range(1) != 0);
  size_t i = 0;
  for (auto _ : state) {
    const Query& q = f.queries[i++ & (kQueries - 1)];
    benchmark::DoNotOptimize(linearLookup(f.set, kScope, q.collective, q.nBytes, q.numPipeOps, q.regBuff, f.table));
  }
}
BENCHMARK(BM_LinearRuleScan)->ArgsProduct({{1, 100, 10'000}, {0, 1}});

}  // namespace

BENCHMARK_MAIN();
