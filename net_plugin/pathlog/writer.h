// PathLogWriter: the one file of path log records a process writes, <job>-<host>-<pid>.<start>.jsonl
// under RAILTUNE_PATH_LOG_DIR (common/record_files.h), and the background thread that writes it.
//
// The data path and the connection setup call record(), which only pushes onto a bounded queue: it
// never blocks, never allocates and never touches the file. When the queue is full the record is
// dropped and counted, and the next record written says how many were lost ("dropped"). The writer
// thread wakes every flush interval, drains the queue, writes a snapshot for every open connection
// whose counters moved (at most once per snapshot interval), and hands the lines to the kernel with
// write(2), so a job killed with SIGKILL still leaves everything up to the last flush on disk.
// shutdown() (or the destructor) writes what is left, final snapshots included.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "common/bounded_queue.h"
#include "common/identity.h"
#include "common/log.h"
#include "common/params.h"
#include "common/writer_thread.h"
#include "formats/path_log.h"
#include "net_plugin/pathlog/counters.h"

namespace railtune::net::pathlog {

struct WriterOptions {
  std::string directory;  // created, with its missing parents, when missing
  Identity identity;
  size_t capacity = 1024;  // queued records before record() drops
  std::chrono::milliseconds flushInterval{1000};
  std::chrono::milliseconds snapshotInterval{10000};
};

class PathLogWriter {
 public:
  // Creates the folder (and its missing parents), opens a file of this process's own for appending
  // (claimRecordFile) and starts the writer thread. Throws std::runtime_error naming the folder or
  // the file and the system's reason when it cannot.
  explicit PathLogWriter(WriterOptions options, const Log& log = Log("net"));
  ~PathLogWriter();
  PathLogWriter(const PathLogWriter&) = delete;
  PathLogWriter& operator=(const PathLogWriter&) = delete;

  // The writer RAILTUNE_PATH_LOG_DIR asks for: nullptr when it is unset, or (with one WARN) when
  // the value is rejected or the file cannot be opened; the job runs on without a path log.
  static std::unique_ptr<PathLogWriter> fromEnvironment(const Log& log, EnvLookup env = processEnv);

  // A connection id unique within this process (and so within the file).
  uint64_t newConnection() noexcept { return nextConnection_.fetch_add(1, std::memory_order_relaxed); }

  // Queues a record; timeUs 0 is stamped with the current time. A connect record with counters
  // registers the connection for snapshots until its close record. Never blocks or allocates;
  // false when the record was dropped (queue full, or after shutdown).
  bool record(PathRecord record, std::shared_ptr<const ConnectionCounters> counters = nullptr) noexcept;

  // Writes what is queued and the final snapshots, then stops the thread. Idempotent. Call it after
  // the connections are closed: a record() racing with it may be lost without being counted.
  void shutdown();

  const std::string& path() const { return path_; }
  uint64_t droppedTotal() const { return droppedTotal_.load(std::memory_order_relaxed); }

 private:
  struct Entry {
    PathRecord record;
    std::shared_ptr<const ConnectionCounters> counters;
  };
  struct OpenConnection {
    std::shared_ptr<const ConnectionCounters> counters;
    std::optional<uint64_t> comm;
    int rank = -1;
    Traffic written;  // what the last snapshot said
  };

  void cycle(bool final);
  void take(Entry& entry, std::string* out);
  void snapshots(std::string* out);
  void append(PathRecord& record, std::string* out);
  void writeOut(const std::string& text);

  WriterOptions options_;
  Log log_;
  std::string path_;
  int fd_ = -1;
  BoundedQueue<Entry> queue_;
  std::atomic<uint64_t> nextConnection_{1};
  std::atomic<uint64_t> droppedUnreported_{0};
  std::atomic<uint64_t> droppedTotal_{0};
  // Below: the writer thread's own state.
  std::map<uint64_t, OpenConnection> open_;
  std::chrono::steady_clock::time_point lastSnapshot_;
  OnceFlag writeFailed_;
  WriterThread thread_;  // last: it stops (and writes the final cycle) before the members above go
};

}  // namespace railtune::net::pathlog
