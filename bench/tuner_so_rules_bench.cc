// getCollInfo through the real libnccl-tuner-railtune.so with 1, 100 and 10,000 rules, as NCCL calls
// it (the v5 and v6 function tables obtained by dlsym), beside the baseline the issue names: a linear
// first-match scan over the same rules, in the same run. Seeded random rules, overlapping, with
// wildcards in every field (tests/unit/tuner_plugin/rules/tuner_rules_random.h), written as railtune JSON and read by
// the plugin through RAILTUNE_TUNER_CONFIG. Before timing, the plugin's pick for every query is
// checked against the scan's; a difference stops the benchmark with an error.
//   BM_SoGetCollInfo/abi/rules   one call through the plugin (adapter, boundary, index)
//   BM_LinearScan/rules          the first-match scan plus the same table edit
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "emulator/loader.h"
#include "emulator/tuner_driver.h"
#include "formats/tuner_rules/rules_file.h"
#include "tests/unit/tuner_plugin/rules/tuner_rules_random.h"
#include "tuner_plugin/rules/rule_index.h"

namespace {

namespace rules = railtune::tuner::rules;
using railtune::emu::CostTable;

constexpr size_t kRanks = 144, kNodes = 2;  // two NVL72 racks with MNNVL
constexpr int kQueries = 4096;

void quietLogger(ncclDebugLogLevel, unsigned long, const char*, int, const char*, ...) {}

// The rules file for `count` seeded rules, written once per count; its parsed form for the scan.
struct RulesFixture {
  std::string path;
  rules::RuleSet set;
};

const RulesFixture& rulesFixture(int count) {
  static std::map<int, RulesFixture> fixtures;
  auto [it, fresh] = fixtures.try_emplace(count);
  if (!fresh) return it->second;
  std::mt19937_64 rng(20261130 + static_cast<uint64_t>(count));
  std::string json = "{\"schema\": \"railtune.tuner-rules/1\", \"rules\": [\n";
  for (int i = 0; i < count; ++i)
    json += (i ? ",\n" : "") + rules::testing::ruleJson(rules::testing::randomRule(rng, static_cast<uint32_t>(i + 1)));
  json += "\n]}\n";
  it->second.path = (std::filesystem::temp_directory_path() /
                     ("railtune-bench-rules-" + std::to_string(::getpid()) + "-" + std::to_string(count) + ".json"))
                        .string();
  std::ofstream(it->second.path) << json;
  rules::RulesResult parsed = railtune::formats::tuner_rules::readRules(json, it->second.path);
  it->second.set = std::move(parsed.ruleSet);
  return it->second;
}

struct Query {
  ncclFunc_t coll;
  size_t nBytes;
};

std::vector<Query> queries() {
  std::mt19937_64 rng(7);
  std::vector<Query> out;
  for (int i = 0; i < kQueries; ++i)
    out.push_back({static_cast<ncclFunc_t>(rng() % 5), rules::testing::randomSize(rng)});
  return out;
}

void fillTable(CostTable& t) {
  for (int a = 0; a < NCCL_NUM_ALGORITHMS; ++a)
    for (int p = 0; p < NCCL_NUM_PROTOCOLS; ++p) t[a][p] = 40.0f + static_cast<float>(7 * a + 3 * p);
  t[NCCL_ALGO_COLLNET_DIRECT][NCCL_PROTO_SIMPLE] = -1.0f;  // some IGNORE cells, as NCCL leaves them
  t[NCCL_ALGO_COLLNET_CHAIN][NCCL_PROTO_SIMPLE] = -1.0f;
}

const rules::RuleScope kScope{kRanks, kNodes, static_cast<int>(kNodes), kRanks / kNodes, kRanks / kNodes};

// The scan's answer as NCCL would run it: the rule's cell, or NCCL's own cheapest cell.
std::pair<int, int> scanPick(const rules::RuleSet& set, const Query& q) {
  CostTable t;
  fillTable(t);
  const rules::Rule* rule = rules::linearLookup(
      set, kScope, static_cast<railtune::tuner::Collective>(q.coll), q.nBytes, 1, 0,
      [&t](railtune::tuner::Algorithm a, railtune::tuner::Protocol p) { return t[int(a)][int(p)] >= 0.0f; });
  if (rule) t[int(rule->algorithm)][int(rule->protocol)] = 0.0f;
  int a = -1, p = -1;
  railtune::emu::pickFromCostTable(t, &a, &p);
  return {a, p};
}

void BM_SoGetCollInfo(benchmark::State& state) {
  const int version = static_cast<int>(state.range(0));
  const RulesFixture& fixture = rulesFixture(static_cast<int>(state.range(1)));
  setenv("RAILTUNE_TUNER_CONFIG", fixture.path.c_str(), 1);
  const railtune::emu::Binding binding = railtune::emu::Loader::bindVersion(
      railtune::emu::PluginKind::Tuner, std::string(RAILTUNE_PLUGIN_DIR) + "/libnccl-tuner-railtune.so", version);
  if (!binding) return state.SkipWithError("the railtune tuner did not bind");
  const auto* tuner = static_cast<const ncclTuner_v5_t*>(binding.table);  // v6 starts with the same fields
  ncclNvlDomainInfo_v5_t domains{int(kNodes), int(kRanks / kNodes), int(kRanks / kNodes)};
  ncclTunerConstants_v5_t constants = railtune::emu::defaultTunerConstants(railtune::emu::NcclBehaviour::V2_30);
  void* ctx = nullptr;
  if (tuner->init(&ctx, 0x1234, kRanks, kNodes, quietLogger, &domains, &constants) != ncclSuccess)
    return state.SkipWithError("tuner init failed");
  const std::vector<Query> qs = queries();
  CostTable templ, t;
  fillTable(templ);
  for (const Query& q : qs) {  // the plugin must pick what the scan picks, for every query
    std::memcpy(t, templ, sizeof(t));
    int nChannels = 0, a = -1, p = -1;
    tuner->getCollInfo(ctx, q.coll, q.nBytes, 1, reinterpret_cast<float**>(t), 7, 3, 0, &nChannels);
    railtune::emu::pickFromCostTable(t, &a, &p);
    if (std::make_pair(a, p) != scanPick(fixture.set, q)) return state.SkipWithError("pick differs from the scan");
  }
  size_t i = 0;
  int nChannels = 0;
  for (auto _ : state) {
    const Query& q = qs[i++ % kQueries];
    std::memcpy(t, templ, sizeof(t));
    benchmark::DoNotOptimize(
        tuner->getCollInfo(ctx, q.coll, q.nBytes, 1, reinterpret_cast<float**>(t), 7, 3, 0, &nChannels));
    benchmark::ClobberMemory();
  }
  tuner->finalize(ctx);
  unsetenv("RAILTUNE_TUNER_CONFIG");
}
BENCHMARK(BM_SoGetCollInfo)->ArgsProduct({{5, 6}, {1, 100, 10000}})->ArgNames({"abi", "rules"});

void BM_LinearScan(benchmark::State& state) {
  const RulesFixture& fixture = rulesFixture(static_cast<int>(state.range(0)));
  const std::vector<Query> qs = queries();
  CostTable templ, t;
  fillTable(templ);
  size_t i = 0;
  for (auto _ : state) {
    const Query& q = qs[i++ % kQueries];
    std::memcpy(t, templ, sizeof(t));
    const rules::Rule* rule = rules::linearLookup(
        fixture.set, kScope, static_cast<railtune::tuner::Collective>(q.coll), q.nBytes, 1, 0,
        [&t](railtune::tuner::Algorithm a, railtune::tuner::Protocol p) { return t[int(a)][int(p)] >= 0.0f; });
    if (rule) t[int(rule->algorithm)][int(rule->protocol)] = 0.0f;
    benchmark::DoNotOptimize(rule);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_LinearScan)->Arg(1)->Arg(100)->Arg(10000)->ArgName("rules");

}  // namespace

BENCHMARK_MAIN();
