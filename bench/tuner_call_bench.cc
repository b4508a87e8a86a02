// What one getCollInfo call costs NCCL, side by side in one run:
//   BM_EmptyExternCCall        a direct call to an empty extern "C" function of the same signature
//   BM_RailtuneGetCollInfo/v   the railtune tuner's exported table, as NCCL calls it (adapter,
//                              boundary, pass-through engine), for ABI v5 (NCCL 2.28), v6 (2.30, 2.31)
//                              and v7 (2.32.6)
//   BM_NcclTableScan           no plugin: NCCL's own pick of the cheapest entry of the cost table
#include <benchmark/benchmark.h>

#include <string>

#include "bench/empty_tuner.h"
#include "emulator/loader.h"
#include "emulator/tuner_driver.h"

namespace {

using railtune::emu::CostTable;

constexpr size_t kBytes = 1 << 20;

// NCCL's default-model costs for a mid-size AllReduce (µs): every entry valid, so nothing is skipped.
void fillCostTable(CostTable& table) {
  for (int a = 0; a < NCCL_NUM_ALGORITHMS; ++a)
    for (int p = 0; p < NCCL_NUM_PROTOCOLS; ++p) table[a][p] = 40.0f + static_cast<float>(7 * a + 3 * p);
}

void BM_EmptyExternCCall(benchmark::State& state) {
  CostTable table;
  fillCostTable(table);
  int nChannels = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(railtuneBenchEmptyGetCollInfo(nullptr, ncclFuncAllReduce, kBytes, 1,
                                                           reinterpret_cast<float**>(table), NCCL_NUM_ALGORITHMS,
                                                           NCCL_NUM_PROTOCOLS, 0, &nChannels));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_EmptyExternCCall);

// v5, v6 and v7 share the getCollInfo signature and place; init differs in its constants table, so it goes
// through the emulator's driver with NCCL's v7 table (narrowed for v5/v6, as NCCL does).
void BM_RailtuneGetCollInfo(benchmark::State& state) {
  const int version = static_cast<int>(state.range(0));
  const railtune::emu::Binding binding = railtune::emu::Loader::bindVersion(
      railtune::emu::PluginKind::Tuner, std::string(RAILTUNE_PLUGIN_DIR) + "/libnccl-tuner-railtune.so", version);
  if (!binding) {
    state.SkipWithError("the railtune tuner did not bind");
    return;
  }
  const auto* tuner = static_cast<const ncclTuner_v5_t*>(binding.table);
  railtune::emu::TunerDriver driver(binding);
  ncclTunerConstants_v7_t constants = railtune::emu::defaultTunerConstantsV7(railtune::emu::NcclBehaviour::V2_30);
  if (driver.initV7(0x1234, 8, 2, {2, 4, 4}, &constants) != ncclSuccess) {
    state.SkipWithError("tuner init failed");
    return;
  }
  void* ctx = driver.context();
  CostTable table;
  fillCostTable(table);
  int nChannels = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(tuner->getCollInfo(ctx, ncclFuncAllReduce, kBytes, 1, reinterpret_cast<float**>(table),
                                                NCCL_NUM_ALGORITHMS, NCCL_NUM_PROTOCOLS, 0, &nChannels));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_RailtuneGetCollInfo)->Arg(5)->Arg(6)->Arg(7)->ArgName("abi");

void BM_NcclTableScan(benchmark::State& state) {
  CostTable table;
  fillCostTable(table);
  int algorithm = 0, protocol = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(railtune::emu::pickFromCostTable(table, &algorithm, &protocol));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_NcclTableScan);

}  // namespace

BENCHMARK_MAIN();
