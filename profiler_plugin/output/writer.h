// ProfileWriter: the profiler's one writer per process. It implements RecordSink: the capture (on
// NCCL's threads) pushes completed records and the hang watchdog pushes hang records; a background
// thread renders them into the files under RAILTUNE_PROFILE_DIR, named <job>-<host>-<pid>.<kind>:
//   collectives.jsonl  the collective log (railtune.profile.collectives.v1)
//   net.jsonl          the network summary (railtune.profile.net.v1)
//   trace.json         the Chrome trace (trace.h)
// and, when RAILTUNE_PROFILE_PROMETHEUS names one, rewrites a Prometheus textfile (prometheus.h).
//
// push() only copies the record into a bounded queue: it never blocks, never allocates and never
// touches a file. When the queue is full the record is dropped and counted, and the next line of the
// collective log says how many were lost ("records_dropped"). The thread drains the queue every few
// milliseconds (so a burst does not fill it) and hands the text to the kernel with write(2) every
// flush interval, so a job killed with SIGKILL leaves every record up to the last flush. flushNow()
// is the watchdog's: its hang record is on disk before a framework aborts the process. shutdown()
// (or the destructor) writes what is left and closes the trace's array.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/bounded_queue.h"
#include "common/identity.h"
#include "common/log.h"
#include "common/params.h"
#include "profiler_plugin/output/prometheus.h"
#include "profiler_plugin/output/trace.h"
#include "profiler_plugin/record_sink.h"

namespace railtune::profiler::output {

struct ProfileOptions {
  std::string directory;       // "" : no files (a Prometheus textfile alone); created (one level) if missing
  std::string prometheusPath;  // "" : no textfile
  Identity identity;
  size_t capacity = 1024;  // queued records before push() drops; 5.7 KiB each
  std::chrono::milliseconds flushInterval{1000};
  std::chrono::milliseconds drainInterval{10};
};

enum class ProfileFile { Collectives, Net, Trace };

// "<job>-<host>-<pid>.collectives.jsonl" (".net.jsonl", ".trace.json"), every character outside
// [A-Za-z0-9._-] replaced by '_' as in the path log's names.
std::string profileFileName(const Identity& identity, ProfileFile file);

// RAILTUNE_PROFILE_PROMETHEUS's value with every "%p" replaced by the process id.
std::string expandPid(const std::string& pattern, int pid);

class ProfileWriter final : public RecordSink {
 public:
  // Opens the files and starts the thread. Throws std::runtime_error naming the file and the
  // system's reason when a file cannot be opened.
  explicit ProfileWriter(ProfileOptions options, const Log& log = Log("profiler"));
  ~ProfileWriter() override;
  ProfileWriter(const ProfileWriter&) = delete;
  ProfileWriter& operator=(const ProfileWriter&) = delete;

  // The writer RAILTUNE_PROFILE_DIR and RAILTUNE_PROFILE_PROMETHEUS ask for: nullptr when both are
  // unset, or (with one WARN) when a value is rejected or a file cannot be opened; the job runs on.
  static std::unique_ptr<ProfileWriter> fromEnvironment(const Log& log, EnvLookup env = processEnv);

  bool push(const OperationRecord& record) noexcept override;

  // Writes every record pushed before the call and returns once it is with the kernel (true), or
  // after `timeout` (false; also after shutdown). Blocks: never call it from NCCL's threads.
  bool flushNow(std::chrono::milliseconds timeout);

  // Writes what is queued, closes the trace's array and stops the thread. Idempotent. A push()
  // racing with it may be lost without being counted.
  void shutdown();

  std::string path(ProfileFile file) const;  // "" when there are no files
  const std::string& prometheusPath() const { return options_.prometheusPath; }
  uint64_t droppedTotal() const { return droppedTotal_.load(std::memory_order_relaxed); }

 private:
  void openFiles();
  void run();
  bool drain();
  void take(const OperationRecord& record);
  void flush(bool final);
  void flushOrThrow(bool final);
  void writeOut(int fd, std::string* text);

  ProfileOptions options_;
  Log log_;
  int collectivesFd_ = -1, netFd_ = -1, traceFd_ = -1;
  BoundedQueue<OperationRecord> queue_;
  std::atomic<uint64_t> droppedUnreported_{0};
  std::atomic<uint64_t> droppedTotal_{0};
  std::atomic<bool> accepting_{true};
  // The writer thread's own state.
  std::unique_ptr<OperationRecord> scratch_;  // one record popped at a time (5 KiB: not on the stack)
  std::string collectives_, net_, trace_;     // rendered, not yet written
  TraceRenderer traceRenderer_;
  PrometheusMetrics metrics_;
  bool metricsChanged_ = true;
  std::chrono::steady_clock::time_point lastFlush_;
  OnceFlag writeFailed_, prometheusFailed_, renderFailed_;
  // mutex_ guards the flags below and pairs with the two condition variables.
  std::mutex mutex_;
  std::condition_variable wake_, flushed_;
  bool stopping_ = false, stopped_ = false;
  uint64_t flushRequested_ = 0, flushDone_ = 0;
  size_t flushTarget_ = 0;  // queue position the latest request waits for (under mutex_)
  std::thread thread_;
};

}  // namespace railtune::profiler::output
