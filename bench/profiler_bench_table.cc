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

ncclResult_t noopStartEvent(void* /*context*/, void** eHandle, ncclProfilerEventDescr_v5_t* /*eDescr*/) {
  *eHandle = &noopHandle;
  return ncclSuccess;
}

ncclResult_t noopStopEvent(void* /*eHandle*/) {
  return ncclSuccess;
}

ncclResult_t noopRecordEventState(void* /*eHandle*/, ncclProfilerEventState_v5_t /*eState*/,
                                  ncclProfilerEventStateArgs_v5_t* /*eStateArgs*/) {
  return ncclSuccess;
}

ncclResult_t noopFinalize(void* /*context*/) {
  return ncclSuccess;
}

const ncclProfiler_v5_t kNoopTable = {"noop",      noopInit, noopStartEvent, noopStopEvent, noopRecordEventState,
                                      noopFinalize};

}  // namespace

const ncclProfiler_v5_t& railtuneProfilerTable(const std::string& path) {
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    throw ProfilerBenchError("cannot load " + path + ": " + (why != nullptr ? why : "unknown dlopen error"));
  }
  const void* symbol = dlsym(library, "ncclProfiler_v5");
  if (symbol == nullptr) throw ProfilerBenchError(path + " does not export ncclProfiler_v5");
  return *static_cast<const ncclProfiler_v5_t*>(symbol);
}

const ncclProfiler_v5_t& noopProfilerTable() {
  return kNoopTable;
}

ProfiledComm::ProfiledComm(const ncclProfiler_v5_t& table, uint64_t commId) : table_(table) {
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

ProfiledComm::~ProfiledComm() {
  (void)table_.finalize(context_);
}

}  // namespace railtune::bench
