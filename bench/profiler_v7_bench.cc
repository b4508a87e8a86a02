// bench_profiler_v7: what a start/stop pair costs NCCL 2.31's threads through libnccl-profiler-railtune.so's
// ncclProfiler_v7 table, beside its ncclProfiler_v6 table and a no-op v7 table compiled in here, in the
// same run, with RAILTUNE_PROFILE_DIR set (the writer renders and writes every record) and the default
// mask. One unit is one collective in NCCL 2.31's order (profiler.cc@v2.31.2): Coll start (tagged under v7),
// its stop ("enqueued"), then per channel KernelCh start, under v7 the three KernelPhase events (start,
// KernelPhaseStop state, stop) and KernelCh's stop state and stop: 1 + 2 x 4 = 9 pairs under v7, 1 + 2 = 3
// under v6. Rounds alternate the tables; the figure per table is the median over rounds of the round's
// time per pair (state changes included, clock reads around the whole round only). After finalize the
// collective log is read back: every collective must be a record or counted in a dropped line (the writer
// drops whole records when its queue is full), or the run fails (exit 1).
//   bench_profiler_v7 [--plugin=PATH] [--rounds=N (41)] [--collectives=N per round and table (400)]
//                     [--pause-ms=N after each round (50)]
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "nccl/profiler_v6.h"
#include "nccl/profiler_v7.h"

namespace {

constexpr int kChannels = 2;

struct Options {
  std::string plugin = RAILTUNE_PLUGIN_DIR "/libnccl-profiler-railtune.so";
  int rounds = 41;
  int collectives = 400;  // per round and table: within the writer's queue (1,024 records)
  int pauseMs = 50;       // after each round, untimed: the writer drains its queue
};

int noopHandle;
ncclResult_t noopInit(void** ctx, uint64_t, int* mask, const char*, int, int, int, ncclDebugLogger_t) {
  *ctx = &noopHandle;
  *mask = ncclProfileColl | ncclProfileKernelCh | ncclProfileKernelPhase;
  return ncclSuccess;
}
ncclResult_t noopStart(void*, void** handle, ncclProfilerEventDescr_v7_t*) {
  *handle = &noopHandle;
  return ncclSuccess;
}
ncclResult_t noopStop(void*) {
  return ncclSuccess;
}
ncclResult_t noopState(void*, ncclProfilerEventState_v7_t, ncclProfilerEventStateArgs_v7_t*) {
  return ncclSuccess;
}
ncclResult_t noopFinalize(void*) {
  return ncclSuccess;
}
const ncclProfiler_v7_t kNoopTable = {"noop", noopInit, noopStart, noopStop, noopState, noopFinalize};
// Through a volatile pointer, as NCCL calls a table it loaded: the calls are not inlined away.
const ncclProfiler_v7_t* volatile noopTable = &kNoopTable;

// One collective through a v6 or v7 table (Descr/Args: its types); returns the start/stop pairs made.
template <typename Table, typename Descr, typename Args>
int collective(const Table& t, void* ctx, uint64_t seq, uint64_t& gpuNs) {
  constexpr bool v7 = std::is_same_v<Descr, ncclProfilerEventDescr_v7_t>;
  Descr coll{};
  coll.type = ncclProfileColl;
  coll.coll.seqNumber = seq;
  coll.coll.func = "AllReduce";
  coll.coll.count = 1 << 20;
  coll.coll.datatype = "ncclFloat32";
  coll.coll.nChannels = kChannels;
  coll.coll.algo = "RING";
  coll.coll.proto = "SIMPLE";
  if constexpr (v7) coll.coll.userTag = 1 + seq % 3;
  void* op = nullptr;
  t.startEvent(ctx, &op, &coll);
  t.stopEvent(op);
  int pairs = 1;
  for (int c = 0; c < kChannels; ++c) {
    Descr ch{};
    ch.type = ncclProfileKernelCh;
    ch.parentObj = op;
    ch.kernelCh.channelId = static_cast<uint8_t>(c);
    ch.kernelCh.pTimer = gpuNs += 100;
    void* channel = nullptr;
    t.startEvent(ctx, &channel, &ch);
    if constexpr (v7) {
      for (uint8_t phase = 0; phase < 3; ++phase) {
        Descr p{};
        p.type = ncclProfileKernelPhase;
        p.parentObj = channel;
        p.kernelPhase.channelId = static_cast<uint8_t>(c);
        p.kernelPhase.phaseId = phase;
        p.kernelPhase.pTimer = gpuNs;
        void* handle = nullptr;
        t.startEvent(ctx, &handle, &p);
        Args end{};
        end.kernelCh.pTimer = gpuNs += 1000;
        t.recordEventState(handle, ncclProfilerKernelPhaseStop, &end);
        t.stopEvent(handle);
        ++pairs;
      }
    }
    Args stop{};
    stop.kernelCh.pTimer = gpuNs += 100;
    t.recordEventState(channel, ncclProfilerKernelChStop, &stop);
    t.stopEvent(channel);
    ++pairs;
  }
  return pairs;
}

template <typename Table, typename Descr, typename Args>
double roundNsPerPair(const Table& t, void* ctx, int collectives, uint64_t& seq, uint64_t& gpuNs) {
  long pairs = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < collectives; ++i) pairs += collective<Table, Descr, Args>(t, ctx, seq++, gpuNs);
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  return ns / static_cast<double>(pairs);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--plugin=", 0) == 0) o.plugin = a.substr(9);
    if (a.rfind("--rounds=", 0) == 0) o.rounds = std::max(1, std::atoi(a.c_str() + 9));
    if (a.rfind("--collectives=", 0) == 0) o.collectives = std::max(1, std::atoi(a.c_str() + 14));
    if (a.rfind("--pause-ms=", 0) == 0) o.pauseMs = std::max(0, std::atoi(a.c_str() + 11));
  }
  return o;
}

// The number after `key` in `line`, 0 when absent.
long countAfter(const std::string& line, const char* key) {
  const size_t at = line.find(key);
  return at == std::string::npos ? 0 : std::atol(line.c_str() + at + std::strlen(key));
}

// Collective lines in the logs under `dir`, and the records and operations their dropped lines count.
struct Accounted {
  long written = 0, dropped = 0;
};
Accounted accounted(const std::filesystem::path& dir) {
  Accounted a;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().string().find(".collectives.jsonl") == std::string::npos) continue;
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) {
      a.written += line.find("\"record\":\"collective\"") != std::string::npos;
      if (line.find("\"record\":\"dropped\"") == std::string::npos) continue;
      a.dropped += countAfter(line, "\"records_dropped\":") + countAfter(line, "\"operations_dropped\":");
    }
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  char dirTemplate[] = "/tmp/railtune-bench-v7-XXXXXX";
  if (mkdtemp(dirTemplate) == nullptr) return 1;
  setenv("RAILTUNE_PROFILE_DIR", dirTemplate, 1);
  unsetenv("RAILTUNE_PROFILE_MASK");
  void* lib = dlopen(o.plugin.c_str(), RTLD_NOW | RTLD_LOCAL);
  const auto* v7 = lib ? static_cast<const ncclProfiler_v7_t*>(dlsym(lib, "ncclProfiler_v7")) : nullptr;
  const auto* v6 = lib ? static_cast<const ncclProfiler_v6_t*>(dlsym(lib, "ncclProfiler_v6")) : nullptr;
  if (v7 == nullptr || v6 == nullptr) {
    std::fprintf(stderr, "bench_profiler_v7: cannot bind %s: %s\n", o.plugin.c_str(),
                 lib ? "no v6/v7 table" : dlerror());
    return 1;
  }
  void *c7 = nullptr, *c6 = nullptr, *cn = nullptr;
  int m7 = 0, m6 = 0, mn = 0;
  v7->init(&c7, 0x7, &m7, "v7", 1, 2, 0, nullptr);
  v6->init(&c6, 0x6, &m6, "v6", 1, 2, 0, nullptr);
  const ncclProfiler_v7_t& noop = *noopTable;
  noop.init(&cn, 0, &mn, "noop", 1, 2, 0, nullptr);
  using D7 = ncclProfilerEventDescr_v7_t;
  using A7 = ncclProfilerEventStateArgs_v7_t;
  using D6 = ncclProfilerEventDescr_v6_t;
  using A6 = ncclProfilerEventStateArgs_v6_t;
  std::vector<double> r7, r6, rn;
  uint64_t s7 = 0, s6 = 0, sn = 0, g7 = 1, g6 = 1, gn = 1;
  for (int r = 0; r <= o.rounds; ++r) {  // round 0 warms caches, pools and pages, and is not counted
    const double n = roundNsPerPair<ncclProfiler_v7_t, D7, A7>(noop, cn, o.collectives, sn, gn);
    const double a = roundNsPerPair<ncclProfiler_v7_t, D7, A7>(*v7, c7, o.collectives, s7, g7);
    const double b = roundNsPerPair<ncclProfiler_v6_t, D6, A6>(*v6, c6, o.collectives, s6, g6);
    std::this_thread::sleep_for(std::chrono::milliseconds(o.pauseMs));
    if (r == 0) continue;
    rn.push_back(n);
    r7.push_back(a);
    r6.push_back(b);
  }
  v7->finalize(c7);
  v6->finalize(c6);  // the last communicator: the writer flushes and stops
  const Accounted done = accounted(dirTemplate);
  const long expected = static_cast<long>(s7 + s6);
  std::printf("table        ns/pair (median of %d rounds)  min\n", o.rounds);
  std::printf("noop v7      %8.1f  %8.1f\n", median(rn), *std::min_element(rn.begin(), rn.end()));
  std::printf("railtune v7  %8.1f  %8.1f   (9 pairs per collective: Coll, 2 KernelCh, 6 KernelPhase)\n", median(r7),
              *std::min_element(r7.begin(), r7.end()));
  std::printf("railtune v6  %8.1f  %8.1f   (3 pairs per collective: Coll, 2 KernelCh)\n", median(r6),
              *std::min_element(r6.begin(), r6.end()));
  std::printf("records written %ld, dropped and counted %ld, of %ld collectives (v7 mask 0x%x)\n", done.written,
              done.dropped, expected, m7);
  std::filesystem::remove_all(dirTemplate);
  return done.written + done.dropped == expected && (m7 & ncclProfileKernelPhase) != 0 ? 0 : 1;
}
