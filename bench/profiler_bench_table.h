// The two profilers bench_profiler_events drives through the same ncclProfiler_v5 table: the real
// libnccl-profiler-railtune.so, opened as NCCL opens a profiler plugin (dlopen, then dlsym of
// "ncclProfiler_v5"), and a no-op table compiled into the benchmark, so that the cost of the calls
// themselves (an indirect call per event, the descriptor passed by pointer) is visible beside it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "nccl/profiler_v5.h"

namespace railtune::bench {

class ProfilerBenchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The plugin's table; the library stays loaded for the life of the process, as NCCL keeps it while
// communicators exist. Throws ProfilerBenchError naming the path and dlerror() when it cannot load.
const ncclProfiler_v5_t& railtuneProfilerTable(const std::string& path);

// A table whose functions do nothing: startEvent hands back a dummy non-NULL handle.
const ncclProfiler_v5_t& noopProfilerTable();

// One communicator's profiler context: init through the table on construction (commId, 2 ranks,
// 1 node, rank 0), finalize on destruction. Throws when init fails or leaves the event mask 0.
class ProfiledComm {
 public:
  ProfiledComm(const ncclProfiler_v5_t& table, uint64_t commId);
  ~ProfiledComm();
  ProfiledComm(const ProfiledComm&) = delete;
  ProfiledComm& operator=(const ProfiledComm&) = delete;

  const ncclProfiler_v5_t& table() const { return table_; }
  void* context() const { return context_; }
  int mask() const { return mask_; }

 private:
  const ncclProfiler_v5_t& table_;
  void* context_ = nullptr;
  int mask_ = 0;
};

}  // namespace railtune::bench
