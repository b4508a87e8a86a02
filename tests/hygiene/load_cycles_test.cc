// Rule 5 of the architecture: loading and unloading a plugin 1,000 times in one process leaves it
// unmapped after each cycle, and the heap, file descriptors and threads flat. Every fourth cycle
// also runs init, a call and finalize through NCCL's ABI (exercise.h).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <string>
#include <thread>

#include "tests/hygiene/exercise.h"
#include "tests/hygiene/process_probe.h"

namespace railtune::hygiene {
namespace {

constexpr int kCycles = 1000;
constexpr int kWarmupCycles = 20;  // first-use allocations of glibc (dlerror buffers, stdio) settle here
constexpr int kExerciseEvery = 4;
constexpr std::size_t kHeapSlackBytes = 4096;  // far below one leaked byte per cycle (1,000)

struct PluginCase {
  const char* file;
  const char* (*exercise)(void* handle, int cycle);
};

void PrintTo(const PluginCase& c, std::ostream* os) {
  *os << c.file;
}

std::string realPath(const std::string& path) {
  char buf[PATH_MAX];
  return realpath(path.c_str(), buf) != nullptr ? std::string(buf) : path;
}

// A joined thread leaves /proc/self/task shortly after pthread_join returns; allow it a moment.
std::size_t settledThreadCount(std::size_t expected) {
  std::size_t n = sampleResources().threads;
  for (int i = 0; i < 100 && n != expected; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    n = sampleResources().threads;
  }
  return n;
}

// Test names by plugin kind: libnccl-<kind>-railtune.so -> <kind>.
std::string kindOfCase(const ::testing::TestParamInfo<PluginCase>& param) {
  const std::string file = param.param.file;
  const auto start = file.find('-') + 1;
  return file.substr(start, file.find('-', start) - start);
}

class LoadCycles : public ::testing::TestWithParam<PluginCase> {};

TEST_P(LoadCycles, UnmapsAndLeavesProcessFlat) {
  const std::string path = realPath(std::string(RAILTUNE_PLUGIN_DIR) + "/" + GetParam().file);
  ProcessResources before;
  for (int cycle = 0; cycle < kCycles; ++cycle) {
    if (cycle == kWarmupCycles) before = sampleResources();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle, nullptr) << "cycle " << cycle << ": " << dlerror();
    if (cycle % kExerciseEvery == 0) {
      const char* broken = GetParam().exercise(handle, cycle / kExerciseEvery);
      ASSERT_EQ(broken, nullptr) << "cycle " << cycle << ": " << broken;
    }
    ASSERT_EQ(dlclose(handle), 0) << "cycle " << cycle << ": " << dlerror();
    ASSERT_FALSE(isMapped(path)) << "cycle " << cycle << ": " << path << " still mapped after dlclose";
  }
  const ProcessResources after = sampleResources();
  EXPECT_EQ(after.openFds, before.openFds) << "file descriptors leaked over " << kCycles - kWarmupCycles << " cycles";
  EXPECT_EQ(settledThreadCount(before.threads), before.threads) << "threads left running";
  if (RAILTUNE_SANITIZED) {
    std::printf("heap check skipped: the sanitizer's allocator does not report through mallinfo2\n");
    return;
  }
  EXPECT_LE(after.heapInUse, before.heapInUse + kHeapSlackBytes)
      << "heap grew by " << (after.heapInUse - before.heapInUse) << " bytes over " << kCycles - kWarmupCycles
      << " cycles";
}

INSTANTIATE_TEST_SUITE_P(Plugins, LoadCycles,
                         ::testing::Values(PluginCase{"libnccl-tuner-railtune.so", exerciseTuner},
                                           PluginCase{"libnccl-net-railtune.so", exerciseNet},
                                           PluginCase{"libnccl-profiler-railtune.so", exerciseProfiler},
                                           PluginCase{"libnccl-env-railtune.so", exerciseEnv}),
                         kindOfCase);

}  // namespace
}  // namespace railtune::hygiene
