// bench_profiler_events: what each profiler event costs NCCL's threads. The real
// libnccl-profiler-railtune.so, opened as NCCL opens it and called through its ncclProfiler_v5 table
// (NCCL 2.28-2.30), or its _v6 and _v7 tables (NCCL 2.31), beside a no-op table of the same ABI compiled
// into the benchmark (profiler_bench_table.h), in the same run. One benchmark per event type and output:
//   events/TYPE/output:none       RAILTUNE_PROFILE_DIR unset: capture only (records go nowhere)
//   events/TYPE/output:dir        RAILTUNE_PROFILE_DIR a temporary directory: the writer runs too
//   events/vN/TYPE/output:...     the same through ncclProfiler_vN (6, 7) in NCCL 2.31's order
// TYPE is Group, Coll, P2p, ProxyOp, ProxyStep (with its three state changes), KernelCh, NetPlugin
// (railtune's net event under a ProxyStep), Collective (a whole 2-channel collective, 40 pairs) or
// CollectiveDefault (the same with the default mask's events only, 8 pairs); through v7 also Coll with the
// application's tag, KernelPhase (a phase's start, KernelPhaseStop state and stop under an open KernelCh)
// and CollectiveDefault as NCCL 2.31 sends it (13 pairs with the phases; through v6, 7). The mask is
// RAILTUNE_PROFILE_MASK=all, but default for the v6 and v7 CollectiveDefault rows; see
// profiler_bench_events.h. Each benchmark alternates rounds: no-op on one thread and on two, railtune
// on one thread, railtune on two threads with one communicator each (two inits), all doing pairs at
// full speed.
// Counters, in ns per start/stop pair, are medians over the rounds of each round's median stretch (a
// few microseconds of pairs between two clock reads): noop_ns, single_ns, two_threads_ns (the mean of
// the two threads), ratio (the median over rounds of two_threads / single, from rounds run back to
// back). Also: single_mean_ns, two_threads_mean_ns (whole rounds, every slow stretch included: on a
// loaded machine, time the thread spent preempted too); concurrency (the two threads' CPU time over
// their round's wall time; 2: they ran side by side); noop_ratio (ratio for the no-op table: what two
// threads cost each other on this machine without any profiler). Targets (issue 6): single_ns <= 100;
// ratio <= 1.5.
// With output:dir the collective logs are read back after finalize: every completed operation must be
// a record written or counted as dropped, and no event may have been dropped, or the benchmark fails
// (counters records_written, records_dropped). Exit status 1 when a benchmark failed or none matched
// the filter.
// Options besides Google Benchmark's: --rounds=N (9), --pairs=N per round and thread (200000),
// --plugin=PATH (default: the build's lib/libnccl-profiler-railtune.so), --writer-seconds=N (2: how
// long output/writer/* pushes), --consumer-fifo=1 (the writer's thread SCHED_FIFO: profiler_bench_output.h).
// The same program runs the writer's own benchmarks, output/* (profiler_bench_output.h):
//   bench_profiler_events --benchmark_filter='^output/'.
#include <benchmark/benchmark.h>

#include <stdlib.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench/bench_support.h"
#include "bench/profiler_bench_events.h"
#include "bench/profiler_bench_output.h"
#include "bench/profiler_bench_table.h"

namespace {

using namespace railtune::bench;

struct Options {
  std::string plugin = RAILTUNE_PLUGIN_DIR "/libnccl-profiler-railtune.so";
  int rounds = 9;
  int pairs = 200000;
  int writerSeconds = 2;
  int consumerFifo = 0;
};

Options& options() {
  static Options instance;
  return instance;
}

bool& anyFailed() {
  static bool failed = false;
  return failed;
}

double meanNsPerPair(const RoundResult& round) {
  return round.pairs == 0 ? 0 : round.timedNs / static_cast<double>(round.pairs);
}

double threadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// Both communicators at once, one thread each, released together. `concurrency`: the two threads'
// CPU time over the round's wall time, 2 when both had a CPU throughout (on a loaded machine they
// may take turns instead, and then the round says little about contention between them).
struct TwoThreadRound {
  RoundResult first, second;
  double concurrency = 0;
};

template <typename Table>
TwoThreadRound twoThreadRound(const ProfiledComm<Table>& a, const ProfiledComm<Table>& b, EventKind kind,
                              uint64_t units) {
  std::atomic<int> ready{0};
  TwoThreadRound round;
  double secondCpuNs = 0;
  std::thread other([&] {
    ready.fetch_add(1);
    while (ready.load() < 2) {
    }
    const double cpuStart = threadCpuNs();
    round.second = runRound(b.table(), b.context(), kind, units);
    secondCpuNs = threadCpuNs() - cpuStart;
  });
  while (ready.load() < 1) {
  }
  const auto wallStart = std::chrono::steady_clock::now();
  const double cpuStart = threadCpuNs();
  ready.fetch_add(1);
  round.first = runRound(a.table(), a.context(), kind, units);
  const double firstCpuNs = threadCpuNs() - cpuStart;
  other.join();
  const double wallNs = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - wallStart).count();
  round.concurrency = wallNs > 0 ? (firstCpuNs + secondCpuNs) / wallNs : 0;
  return round;
}

// Per round: ns per pair in the median stretch, and over the whole round (mean).
struct Medians {
  std::vector<double> noop, single, two, ratio, singleMean, twoMean, concurrency, noopRatio;
};

// The mask a benchmark runs under: the default for CollectiveDefault through v6 and v7 (NCCL 2.31's rows),
// every event otherwise. Throws when the capture did not take it.
const char* maskFor(EventKind kind, int abiVersion) {
  return kind == EventKind::CollectiveDefault && abiVersion >= 6 ? "default" : "all";
}
void checkMask(int mask, EventKind kind, int abiVersion) {
  const bool all = std::string(maskFor(kind, abiVersion)) == "all";
  if (all && (mask & ncclProfileNetPlugin) == 0) throw ProfilerBenchError("RAILTUNE_PROFILE_MASK=all was not applied");
  if (!all && (mask & ncclProfileNetPlugin) != 0)
    throw ProfilerBenchError("RAILTUNE_PROFILE_MASK=default was not applied");
  if (abiVersion >= 7 && (mask & ncclProfileKernelPhase) == 0) throw ProfilerBenchError("v7 mask lacks KernelPhase");
}

// The rounds; returns the operations the railtune communicators completed (each one a record).
template <typename Table>
uint64_t runRounds(benchmark::State& state, EventKind kind, Medians& out) {
  constexpr uint64_t kCommA = 0xa11ce, kCommB = 0xb0b;
  constexpr int kAbi = ProfilerAbi<Table>::kVersion;
  static const Table& railtune = railtuneProfilerTable<Table>(options().plugin);  // loaded once
  const ProfiledComm<Table> noop(noopProfilerTable<Table>(), 1);
  const ProfiledComm<Table> noop2(noopProfilerTable<Table>(), 2);
  const ProfiledComm<Table> a(railtune, kCommA);
  const ProfiledComm<Table> b(railtune, kCommB);
  checkMask(a.mask(), kind, kAbi);
  const uint64_t units = std::max<uint64_t>(1, static_cast<uint64_t>(options().pairs) / pairsPerUnit(kind, kAbi));
  uint64_t operations = 0;
  (void)runRound(noop.table(), noop.context(), kind, units / 8 + 1);  // warm-up: caches, pools, pages
  for (const ProfiledComm<Table>* comm : {&a, &b}) {
    operations += runRound(comm->table(), comm->context(), kind, units / 8 + 1).operationsCompleted;
  }
  for (auto _ : state) {
    const RoundResult none = runRound(noop.table(), noop.context(), kind, units);
    const TwoThreadRound noneBoth = twoThreadRound(noop, noop2, kind, units);
    const RoundResult single = runRound(a.table(), a.context(), kind, units);
    const TwoThreadRound both = twoThreadRound(a, b, kind, units);
    const RoundResult& first = both.first;
    const RoundResult& second = both.second;
    state.SetIterationTime(single.timedNs / 1e9);
    const double two = (first.medianStretchNsPerPair + second.medianStretchNsPerPair) / 2;
    out.noop.push_back(none.medianStretchNsPerPair);
    out.single.push_back(single.medianStretchNsPerPair);
    out.two.push_back(two);
    out.ratio.push_back(two / single.medianStretchNsPerPair);
    out.singleMean.push_back(meanNsPerPair(single));
    out.twoMean.push_back((meanNsPerPair(first) + meanNsPerPair(second)) / 2);
    out.concurrency.push_back(both.concurrency);
    out.noopRatio.push_back((noneBoth.first.medianStretchNsPerPair + noneBoth.second.medianStretchNsPerPair) / 2 /
                            none.medianStretchNsPerPair);
    operations += single.operationsCompleted + first.operationsCompleted + second.operationsCompleted;
  }
  state.counters["pairs_per_round"] = static_cast<double>(units * pairsPerUnit(kind, kAbi));
  state.counters["clock_ns"] = clockOverheadNs();  // subtracted from every timed stretch
  return operations;
}  // finalize: the captures push their last records; the last one closes the writer

// Every completed operation is in the collective log, or counted there as dropped by the writer's
// queue; the captures dropped no event (their pools never filled).
void checkCollectiveLog(benchmark::State& state, const std::string& dir, uint64_t operations) {
  const CollectiveLogCounts counts = countCollectiveLog(dir);
  if (counts.files == 0) throw ProfilerBenchError("the profiler wrote no collective log under " + dir);
  if (counts.records + counts.recordsDropped != operations) {
    throw ProfilerBenchError(std::to_string(operations) + " operations completed, but the collective log has " +
                             std::to_string(counts.records) + " records and " + std::to_string(counts.recordsDropped) +
                             " dropped");
  }
  if (counts.eventsDropped != 0) {
    throw ProfilerBenchError("the capture dropped " + std::to_string(counts.eventsDropped) + " events (a pool filled)");
  }
  state.counters["records_written"] = static_cast<double>(counts.records);
  state.counters["records_dropped"] = static_cast<double>(counts.recordsDropped);
}

template <typename Table>
void eventPairs(benchmark::State& state, EventKind kind, bool writeOutput) {
  try {
    setenv("RAILTUNE_PROFILE_MASK", maskFor(kind, ProfilerAbi<Table>::kVersion), 1);
    const ProfileOutputDir dir(writeOutput);
    Medians rounds;
    const uint64_t operations = runRounds<Table>(state, kind, rounds);
    state.counters["noop_ns"] = railtune::bench::median(rounds.noop);
    state.counters["single_ns"] = railtune::bench::median(rounds.single);
    state.counters["two_threads_ns"] = railtune::bench::median(rounds.two);
    state.counters["ratio"] = railtune::bench::median(rounds.ratio);
    state.counters["single_mean_ns"] = railtune::bench::median(rounds.singleMean);
    state.counters["two_threads_mean_ns"] = railtune::bench::median(rounds.twoMean);
    state.counters["concurrency"] = railtune::bench::median(rounds.concurrency);
    state.counters["noop_ratio"] = railtune::bench::median(rounds.noopRatio);
    if (writeOutput) checkCollectiveLog(state, dir.path(), operations);
  } catch (const std::exception& error) {
    anyFailed() = true;
    state.SkipWithError(error.what());
  }
}

template <typename Table>
void registerEvents(EventKind kind, bool writeOutput) {
  const int abi = ProfilerAbi<Table>::kVersion;
  const std::string name = std::string("events/") + (abi == 5 ? "" : "v" + std::to_string(abi) + "/") +
                           eventKindName(kind) + (writeOutput ? "/output:dir" : "/output:none");
  benchmark::RegisterBenchmark(name.c_str(), eventPairs<Table>, kind, writeOutput)
      ->Iterations(options().rounds)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

// Through v5 every event type (NCCL 2.28-2.30's rows, names without an ABI); through v7 what NCCL 2.31
// adds or changes (a tagged Coll, KernelPhase, the default mask's collective), and that collective through
// v6 beside it (2.31's calls without the phases).
void registerBenchmarks() {
  constexpr EventKind kKinds[] = {EventKind::Group,     EventKind::Coll,       EventKind::P2p,
                                  EventKind::ProxyOp,   EventKind::ProxyStep,  EventKind::KernelCh,
                                  EventKind::NetPlugin, EventKind::Collective, EventKind::CollectiveDefault};
  for (const bool writeOutput : {false, true}) {
    for (const EventKind kind : kKinds) registerEvents<ncclProfiler_v5_t>(kind, writeOutput);
    registerEvents<ncclProfiler_v6_t>(EventKind::CollectiveDefault, writeOutput);
    for (const EventKind kind : {EventKind::Coll, EventKind::KernelPhase, EventKind::CollectiveDefault}) {
      registerEvents<ncclProfiler_v7_t>(kind, writeOutput);
    }
  }
}

// What Google Benchmark left in argv: our own options. false (after a message): a bad one.
bool parseOptions(int argc, char** argv, Options& o) {
  using railtune::bench::parseCount;
  return railtune::bench::parseOptions(
      argc, argv,
      {{"--plugin", [&](const std::string& v) { return !(o.plugin = v).empty(); }},
       {"--rounds", [&](const std::string& v) { return parseCount(v, 1, 100000, o.rounds); }},
       {"--pairs", [&](const std::string& v) { return parseCount(v, 1, 100000000, o.pairs); }},
       {"--writer-seconds", [&](const std::string& v) { return parseCount(v, 1, 3600, o.writerSeconds); }},
       {"--consumer-fifo", [&](const std::string& v) { return parseCount(v, 0, 1, o.consumerFifo); }}},
      "bench_profiler_events",
      "--rounds=N (1..100000) --pairs=N (1..100000000) --plugin=PATH --writer-seconds=N (1..3600) "
      "--consumer-fifo=0|1");
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (!parseOptions(argc, argv, options())) return 2;
  registerBenchmarks();
  registerOutputBenchmarks(options().writerSeconds, options().consumerFifo != 0);
  const size_t ran = benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return ran == 0 || anyFailed() ? 1 : 0;
}
