#include "bench/profiler_bench_table.h"

#include <dlfcn.h>

#include <cstdio>

#include "bench/bench_logger.h"

namespace railtune::bench {
namespace {

// The no-op profiler. Defined in this file, called only through the table's pointers from
// profiler_bench_events.cc, so the compiler cannot inline the calls away.
int noopHandle = 0;

ncclResult_t noopInit(void** context, uint64_t /*commId*/, int* eActivationMask, const char* /*commName*/,
                      int /*nNodes*/, int /*nranks*/, int /*rank*/, ncclDebugLogger_t /*logfn*/) {
  *context = &noopHandle;
  *eActivationMask = ~0;
  return ncclSuccess;
}

template <typename Descr>
ncclResult_t noopStartEvent(void* /*context*/, void** eHandle, Descr* /*eDescr*/) {
  *eHandle = &noopHandle;
  return ncclSuccess;
}

ncclResult_t noopStopEvent(void* /*eHandle*/) {
  return ncclSuccess;
}

template <typename Args>
ncclResult_t noopRecordEventState(void* /*eHandle*/, ncclProfilerEventState_t /*eState*/, Args* /*eStateArgs*/) {
  return ncclSuccess;
}

ncclResult_t noopFinalize(void* /*context*/) {
  return ncclSuccess;
}

template <typename Table>
constexpr Table kNoopTable = {"noop",
                              noopInit,
                              noopStartEvent<typename ProfilerAbi<Table>::Descr>,
                              noopStopEvent,
                              noopRecordEventState<typename ProfilerAbi<Table>::StateArgs>,
                              noopFinalize};

}  // namespace

template <typename Table>
const Table& railtuneProfilerTable(const std::string& path) {
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);  // the same handle at every call
  if (library == nullptr) {
    const char* why = dlerror();
    throw ProfilerBenchError("cannot load " + path + ": " + (why != nullptr ? why : "unknown dlopen error"));
  }
  const std::string symbol = "ncclProfiler_v" + std::to_string(ProfilerAbi<Table>::kVersion);
  const void* table = dlsym(library, symbol.c_str());
  if (table == nullptr) throw ProfilerBenchError(path + " does not export " + symbol);
  return *static_cast<const Table*>(table);
}

template <typename Table>
const Table& noopProfilerTable() {
  return kNoopTable<Table>;
}

template <typename Table>
ProfiledComm<Table>::ProfiledComm(const Table& table, uint64_t commId) : table_(table) {
  const std::string name = "bench-" + std::to_string(commId);
  const ncclResult_t result = table_.init(&context_, commId, &mask_, name.c_str(), 1, 2, 0, benchLogger);
  if (result != ncclSuccess || context_ == nullptr) {
    throw ProfilerBenchError(std::string(table_.name) + ": init of comm " + std::to_string(commId) +
                             " failed with NCCL error " + std::to_string(static_cast<int>(result)));
  }
  if (mask_ == 0) {
    (void)table_.finalize(context_);
    throw ProfilerBenchError(std::string(table_.name) + ": init left the event mask 0 (profiling off)");
  }
}

template <typename Table>
ProfiledComm<Table>::~ProfiledComm() {
  (void)table_.finalize(context_);
}

#define RAILTUNE_BENCH_PROFILER_TABLE(Table)                              \
  template const Table& railtuneProfilerTable<Table>(const std::string&); \
  template const Table& noopProfilerTable<Table>();                       \
  template class ProfiledComm<Table>;
RAILTUNE_BENCH_PROFILER_TABLE(ncclProfiler_v5_t)
RAILTUNE_BENCH_PROFILER_TABLE(ncclProfiler_v6_t)
RAILTUNE_BENCH_PROFILER_TABLE(ncclProfiler_v7_t)
#undef RAILTUNE_BENCH_PROFILER_TABLE

}  // namespace railtune::bench
