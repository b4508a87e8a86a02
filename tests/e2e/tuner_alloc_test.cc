// NCCL's enqueue path allocates nothing in the tuner (architecture rule 3): 20,000 getCollInfo and
// getChunkSize calls through the real .so's v6 table with 10,000 rules make zero heap allocations.
// malloc and friends are replaced in this executable (exported, so the plugin's calls, including
// those of its static C++ runtime's operator new, bind here) and counted while `gCounting` is set.
// Sanitizers replace malloc themselves, so their builds skip this test.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "emulator/loader.h"
#include "emulator/tuner_driver.h"
#include "nccl/tuner_v6.h"
#include "tests/unit/tuner_plugin/rules/tuner_rules_random.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RAILTUNE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define RAILTUNE_SANITIZED 1
#endif
#endif

namespace {
std::atomic<bool> gCounting{false};
std::atomic<long> gAllocations{0};
[[maybe_unused]] void count() {
  if (gCounting.load(std::memory_order_relaxed)) gAllocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

#ifndef RAILTUNE_SANITIZED
extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);

__attribute__((visibility("default"))) void* malloc(size_t n) {
  count();
  return __libc_malloc(n);
}
__attribute__((visibility("default"))) void* calloc(size_t n, size_t size) {
  count();
  return __libc_calloc(n, size);
}
__attribute__((visibility("default"))) void* realloc(void* p, size_t n) {
  count();
  return __libc_realloc(p, n);
}
__attribute__((visibility("default"))) void* aligned_alloc(size_t alignment, size_t n) {
  count();
  return __libc_memalign(alignment, n);
}
__attribute__((visibility("default"))) int posix_memalign(void** out, size_t alignment, size_t n) {
  count();
  *out = __libc_memalign(alignment, n);
  return *out ? 0 : ENOMEM;
}
__attribute__((visibility("default"))) void free(void* p) {
  __libc_free(p);
}
}
#endif

namespace {

namespace rules = railtune::tuner::rules;

[[maybe_unused]] void quietLogger(ncclDebugLogLevel, unsigned long, const char*, int, const char*, ...) {}

TEST(TunerAllocations, NoneOnTheEnqueuePathWithTenThousandRules) {
#ifdef RAILTUNE_SANITIZED
  GTEST_SKIP() << "the sanitizer owns malloc in this build";
#else
  std::mt19937_64 rng(42);
  std::string json = "{\"schema\": \"railtune.tuner-rules/1\", \"rules\": [\n";
  for (int i = 0; i < 10000; ++i)
    json += (i ? ",\n" : "") + rules::testing::ruleJson(rules::testing::randomRule(rng, static_cast<uint32_t>(i + 1)));
  json += "]}\n";
  const std::string path =
      (std::filesystem::temp_directory_path() / ("railtune-alloc-" + std::to_string(::getpid()) + ".json")).string();
  std::ofstream(path) << json;
  setenv("RAILTUNE_TUNER_CONFIG", path.c_str(), 1);
  const railtune::emu::Binding binding = railtune::emu::Loader::bindVersion(
      railtune::emu::PluginKind::Tuner, std::string(RAILTUNE_PLUGIN_DIR) + "/libnccl-tuner-railtune.so", 6);
  ASSERT_TRUE(binding);
  const auto* tuner = static_cast<const ncclTuner_v6_t*>(binding.table);
  ncclNvlDomainInfo_v5_t domains{2, 72, 72};
  ncclTunerConstants_v5_t constants = railtune::emu::defaultTunerConstants(railtune::emu::NcclBehaviour::V2_30);
  void* ctx = nullptr;
  ASSERT_EQ(tuner->init(&ctx, 1, 144, 2, quietLogger, &domains, &constants), ncclSuccess);
  float table[NCCL_NUM_ALGORITHMS][NCCL_NUM_PROTOCOLS];
  int changed = 0;
  gCounting = true;
  for (int i = 0; i < 10000; ++i) {
    for (auto& row : table)
      for (float& cell : row) cell = 50.0f;
    int nChannels = 0;
    const auto coll = static_cast<ncclFunc_t>(i % 5);
    const size_t bytes = rules::testing::randomSize(rng);
    tuner->getCollInfo(ctx, coll, bytes, 1 + i % 2, reinterpret_cast<float**>(table), 7, 3, i % 2, &nChannels);
    changed += nChannels > 0;
    size_t chunk = 0;
    tuner->getChunkSize(ctx, coll, bytes, NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, nChannels, &chunk);
  }
  gCounting = false;
  EXPECT_EQ(gAllocations.load(), 0);
  EXPECT_GT(changed, 0) << "the rules applied to some calls, or the count proves nothing";
  // The counter sees the plugin's allocations: init builds a context and an index.
  void* second = nullptr;
  gCounting = true;
  ASSERT_EQ(tuner->init(&second, 2, 144, 2, quietLogger, &domains, &constants), ncclSuccess);
  gCounting = false;
  EXPECT_GT(gAllocations.load(), 0) << "malloc was not interposed: the zero above proves nothing";
  tuner->finalize(second);
  tuner->finalize(ctx);
  unsetenv("RAILTUNE_TUNER_CONFIG");
  std::filesystem::remove(path);
#endif
}

// The same with a fitted model that covers the communicator: its corrections are a fixed array built at init, a
// shape's own included (the example's Ring/LL128 entry of 8 ranks, 1 node).
TEST(TunerAllocations, NoneOnTheEnqueuePathWithAFittedModel) {
#ifdef RAILTUNE_SANITIZED
  GTEST_SKIP() << "the sanitizer owns malloc in this build";
#else
  const std::string railMap =
      (std::filesystem::temp_directory_path() / ("railtune-alloc-map-" + std::to_string(::getpid()))).string();
  std::ofstream(railMap) << R"({"schema": "railtune.rail_map.v1", "cluster": "c", "gpu": "NVIDIA GB300", "rails": 1,
    "planes": 1, "hosts": [{"name": "h0", "domain": "d0", "gpus": [{"index": 0, "bus_id": "0000:01:00.0", "nics": [
    {"hca": "mlx5_0", "netdev": "", "bus_id": "0000:03:00.0", "port": 1, "rail": 0, "plane": -1,
     "speed_mbps": 800000}]}]}]})";
  setenv("RAILTUNE_RAIL_MAP", railMap.c_str(), 1);
  setenv("RAILTUNE_TUNER_MODEL_FILE", RAILTUNE_SOURCE_DIR "/docs/formats/tuner-model.example.json", 1);
  const railtune::emu::Binding binding = railtune::emu::Loader::bindVersion(
      railtune::emu::PluginKind::Tuner, std::string(RAILTUNE_PLUGIN_DIR) + "/libnccl-tuner-railtune.so", 6);
  ASSERT_TRUE(binding);
  const auto* tuner = static_cast<const ncclTuner_v6_t*>(binding.table);
  ncclNvlDomainInfo_v5_t domains{1, 8, 8};
  ncclTunerConstants_v5_t constants = railtune::emu::defaultTunerConstants(railtune::emu::NcclBehaviour::V2_30);
  void* ctx = nullptr;
  ASSERT_EQ(tuner->init(&ctx, 1, 8, 1, quietLogger, &domains, &constants), ncclSuccess);
  float table[NCCL_NUM_ALGORITHMS][NCCL_NUM_PROTOCOLS];
  int corrected = 0, ownCorrected = 0;
  gAllocations = 0;
  gCounting = true;
  for (int i = 0; i < 10000; ++i) {
    for (auto& row : table)
      for (float& cell : row) cell = 50.0f;
    int nChannels = 0;
    tuner->getCollInfo(ctx, static_cast<ncclFunc_t>(i % 5), size_t{1} << (i % 34), 1, reinterpret_cast<float**>(table),
                       7, 3, 0, &nChannels);
    corrected += table[NCCL_ALGO_RING][NCCL_PROTO_SIMPLE] != 50.0f;
    ownCorrected += table[NCCL_ALGO_RING][NCCL_PROTO_LL128] != 50.0f;
  }
  gCounting = false;
  EXPECT_EQ(gAllocations.load(), 0);
  EXPECT_EQ(corrected, 10000) << "the fit's Ring/Simple correction applied to every call, or the count proves nothing";
  EXPECT_EQ(ownCorrected, 10000) << "8 ranks' own Ring/LL128 correction applied to every call";
  tuner->finalize(ctx);
  unsetenv("RAILTUNE_RAIL_MAP");
  unsetenv("RAILTUNE_TUNER_MODEL_FILE");
  std::filesystem::remove(railMap);
#endif
}

}  // namespace
