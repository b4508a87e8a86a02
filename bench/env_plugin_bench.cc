// libnccl-env-railtune.so's getEnv after init (NCCL calls it for every variable it reads), beside plain getenv of
// the same names in the same run (docs/performance.md, "Env plugin getEnv"). The plugin reads the process
// environment first, so both scan `environ`; the argument is how many extra variables it holds (a container's
// environment is typically 50 to 150 long). Target: <= 100 ns per getEnv.
#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <unistd.h>

#include "nccl/env_v2.h"

namespace {

void quietLogger(ncclDebugLogLevel, unsigned long, const char*, int, const char*, ...) {}

const ncclEnv_v2_t* plugin() {
  static const ncclEnv_v2_t* table = [] {
    ::setenv("RAILTUNE_RAIL_MAP", RAILTUNE_SOURCE_DIR "/docs/formats/rail-map.example.json", 1);
    ::setenv("RAILTUNE_HOST", "dgx-h100-01", 1);
    ::setenv("NCCL_DEBUG", "WARN", 1);
    void* handle = ::dlopen(RAILTUNE_PLUGIN_DIR "/libnccl-env-railtune.so", RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      std::fprintf(stderr, "env bench: %s\n", ::dlerror());
      std::exit(1);
    }
    auto* t = static_cast<const ncclEnv_v2_t*>(::dlsym(handle, "ncclEnvPlugin_v2"));
    if (t == nullptr || t->init(2, 31, 2, "", quietLogger) != ncclSuccess) std::exit(1);
    return t;
  }();
  return table;
}

// Makes the environment exactly `extra` variables longer than the process started with.
void padEnvironment(int64_t extra) {
  static int64_t added = 0;
  for (; added < extra; ++added)
    ::setenv(("RAILTUNE_BENCH_PAD_" + std::to_string(added)).c_str(), "some-value-of-a-typical-length", 1);
  for (; added > extra; --added) ::unsetenv(("RAILTUNE_BENCH_PAD_" + std::to_string(added - 1)).c_str());
}

size_t environSize() {
  size_t n = 0;
  for (char** e = environ; *e != nullptr; ++e) ++n;
  return n;
}

template <bool viaPlugin>
void getOne(benchmark::State& state, const char* name) {
  padEnvironment(state.range(0));
  const ncclEnv_v2_t* table = plugin();
  state.counters["environ"] = static_cast<double>(environSize());
  for (auto _ : state) {
    const char* value = viaPlugin ? table->getEnv(name) : std::getenv(name);
    benchmark::DoNotOptimize(value);
  }
}

// NCCL_IB_HCA: unset in the environment, answered from the table by the plugin (getenv scans all of environ).
void BM_Getenv_TableName(benchmark::State& s) {
  getOne<false>(s, "NCCL_IB_HCA");
}
void BM_Plugin_TableName(benchmark::State& s) {
  getOne<true>(s, "NCCL_IB_HCA");
}
// NCCL_DEBUG: set in the environment, which wins (passed through).
void BM_Getenv_SetVariable(benchmark::State& s) {
  getOne<false>(s, "NCCL_DEBUG");
}
void BM_Plugin_SetVariable(benchmark::State& s) {
  getOne<true>(s, "NCCL_DEBUG");
}
// NCCL_ALGO: set nowhere (NCCL's default applies).
void BM_Getenv_UnsetVariable(benchmark::State& s) {
  getOne<false>(s, "NCCL_ALGO");
}
void BM_Plugin_UnsetVariable(benchmark::State& s) {
  getOne<true>(s, "NCCL_ALGO");
}

BENCHMARK(BM_Getenv_TableName)->Arg(0)->Arg(100);
BENCHMARK(BM_Plugin_TableName)->Arg(0)->Arg(100);
BENCHMARK(BM_Getenv_SetVariable)->Arg(0)->Arg(100);
BENCHMARK(BM_Plugin_SetVariable)->Arg(0)->Arg(100);
BENCHMARK(BM_Getenv_UnsetVariable)->Arg(0)->Arg(100);
BENCHMARK(BM_Plugin_UnsetVariable)->Arg(0)->Arg(100);

}  // namespace

BENCHMARK_MAIN();
