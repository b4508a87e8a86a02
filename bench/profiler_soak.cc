// The profiler's soak: millions of operations through the real libnccl-profiler-railtune.so, loaded and
// driven as NCCL 2.30 does (emulator/profiler_sequence.h), with its writer on: a ring AllReduce with its
// network flows and KernelCh events, a self send/recv pair (no children at all) and a symmetric-memory
// AllReduce (no task event) per round. Before finalize, every operation must be a record in the
// collective log or counted in a "dropped" line; the run reports operations a second, records written
// and lost, and the process's peak resident memory (docs/performance.md, "The profiler's soak").
//   bench_profiler_soak [--operations=N]   (default 10,000,000; exit 1 when the accounting fails)
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "emulator/loader.h"
#include "emulator/profiler_driver.h"
#include "emulator/profiler_sequence.h"

namespace {

namespace fs = std::filesystem;
using railtune::emu::EmulatedOperation;

constexpr int kRank = 3, kRanks = 8;
constexpr uint64_t kOperationsPerRound = 3;  // the ring AllReduce and the self pair

struct Counts {
  uint64_t records = 0, lost = 0, hangs = 0;
};

uint64_t numberAfter(const std::string& line, const std::string& key) {
  const size_t at = line.find("\"" + key + "\":");
  return at == std::string::npos ? 0 : std::strtoull(line.c_str() + at + key.size() + 3, nullptr, 10);
}

Counts countLog(const fs::path& dir) {
  Counts counts;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().string().find(".collectives.jsonl") == std::string::npos) continue;
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) {
      if (line.find("\"record\":\"collective\"") != std::string::npos ||
          line.find("\"record\":\"p2p\"") != std::string::npos) {
        ++counts.records;
      }
      if (line.find("\"record\":\"hang\"") != std::string::npos) ++counts.hangs;
      counts.lost += numberAfter(line, "records_dropped") + numberAfter(line, "operations_dropped");
    }
  }
  return counts;
}

std::vector<std::vector<EmulatedOperation>> round() {
  EmulatedOperation symmetric = railtune::emu::ringAllReduce(kRank, kRanks, 4, 1, 1, 4096);
  symmetric.taskEvent = false;
  return {{railtune::emu::ringAllReduce(kRank, kRanks, 2, 1, 2, 1 << 20)},
          {railtune::emu::p2pOperation(true, kRank, kRank, 4096, 1, 1),
           railtune::emu::p2pOperation(false, kRank, kRank, 4096, 1, 1)},
          {symmetric}};
}

int run(uint64_t operations) {
  const fs::path dir = fs::temp_directory_path() / ("railtune-soak-" + std::to_string(getpid()));
  fs::remove_all(dir);
  setenv("RAILTUNE_PROFILE_DIR", dir.c_str(), 1);
  setenv("RAILTUNE_JOB_ID", "soak", 1);
  const std::string plugin = std::string(RAILTUNE_PLUGIN_DIR) + "/libnccl-profiler-railtune.so";
  const railtune::emu::Binding binding =
      railtune::emu::Loader::bindVersion(railtune::emu::PluginKind::Profiler, plugin, 6);
  if (!binding) throw std::runtime_error("cannot load " + plugin);
  railtune::emu::ProfilerDriver driver(binding, railtune::emu::NcclBehaviour::V2_30);
  if (driver.init(0x50a4, "soak", 2, kRanks, kRank) != ncclSuccess) throw std::runtime_error("init failed");
  railtune::emu::ProfilerSequence sequence(driver, kRank);
  const auto groups = round();
  const uint64_t rounds = (operations + kOperationsPerRound - 1) / kOperationsPerRound;
  const auto start = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < rounds; ++i) {
    for (const auto& group : groups) {
      if (sequence.run(group).failures != 0) throw std::runtime_error("a call failed");
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const uint64_t expected = rounds * kOperationsPerRound;
  Counts counts;  // housekeeping and a flush, a second each
  for (int wait = 0; wait < 100 && (counts = countLog(dir)).records + counts.lost < expected; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  driver.finalize();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf(
      "operations %llu in %.1f s: %.0f a second; records %llu, counted lost %llu, hang records %llu; "
      "peak RSS %ld MiB\n",
      static_cast<unsigned long long>(expected), seconds, static_cast<double>(expected) / seconds,
      static_cast<unsigned long long>(counts.records), static_cast<unsigned long long>(counts.lost),
      static_cast<unsigned long long>(counts.hangs), usage.ru_maxrss / 1024);
  fs::remove_all(dir);
  if (counts.records + counts.lost != expected || counts.hangs != 0) {
    std::fprintf(stderr, "FAIL: records plus losses differ from the operations run\n");
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t operations = 10'000'000;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--operations=", 0) == 0) {
      operations = std::strtoull(arg.c_str() + 13, nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: %s [--operations=N]\n", argv[0]);
      return 2;
    }
  }
  try {
    return run(operations);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_profiler_soak: %s\n", e.what());
    return 1;
  }
}
