// The two profilers bench_profiler_events drives through the same table: the real
// libnccl-profiler-railtune.so, opened as NCCL opens a profiler plugin (dlopen, then dlsym of
// "ncclProfiler_vN"), and a no-op table compiled into the benchmark, so that the cost of the calls
// themselves (an indirect call per event, the descriptor passed by pointer) is visible beside it.
// Each comes as three ABIs: ncclProfiler_v5 (NCCL 2.28-2.30's rows), _v6 and _v7 (NCCL 2.31's rows).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "nccl/profiler_v6.h"  // and v5, which it includes
#include "nccl/profiler_v7.h"

namespace railtune::bench {

class ProfilerBenchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a table's ABI version changes for the benchmark: its descriptor and state-argument types.
template <typename Table>
struct ProfilerAbi;
template <>
struct ProfilerAbi<ncclProfiler_v5_t> {
  using Descr = ncclProfilerEventDescr_v5_t;
  using StateArgs = ncclProfilerEventStateArgs_v5_t;
  static constexpr int kVersion = 5;
};
template <>
struct ProfilerAbi<ncclProfiler_v6_t> {
  using Descr = ncclProfilerEventDescr_v6_t;
  using StateArgs = ncclProfilerEventStateArgs_v6_t;
  static constexpr int kVersion = 6;
};
template <>
struct ProfilerAbi<ncclProfiler_v7_t> {
  using Descr = ncclProfilerEventDescr_v7_t;
  using StateArgs = ncclProfilerEventStateArgs_v7_t;
  static constexpr int kVersion = 7;
};

// The plugin's table of that version; the library stays loaded for the life of the process, as NCCL
// keeps it while communicators exist. Throws ProfilerBenchError naming the path and dlerror() when it
// cannot load, or the symbol when it is missing.
template <typename Table>
const Table& railtuneProfilerTable(const std::string& path);

// A table whose functions do nothing: startEvent hands back a dummy non-NULL handle.
template <typename Table>
const Table& noopProfilerTable();

// One communicator's profiler context: init through the table on construction (commId, 2 ranks,
// 1 node, rank 0), finalize on destruction. Throws when init fails or leaves the event mask 0.
template <typename Table>
class ProfiledComm {
 public:
  ProfiledComm(const Table& table, uint64_t commId);
  ~ProfiledComm();
  ProfiledComm(const ProfiledComm&) = delete;
  ProfiledComm& operator=(const ProfiledComm&) = delete;

  const Table& table() const { return table_; }
  void* context() const { return context_; }
  int mask() const { return mask_; }

 private:
  const Table& table_;
  void* context_ = nullptr;
  int mask_ = 0;
};

}  // namespace railtune::bench
