// ProfileWriter: the profiler's one writer per process. It implements RecordSink: the capture (on
// NCCL's threads) pushes completed records and the hang watchdog pushes hang records; a background
// thread renders them into the files under RAILTUNE_PROFILE_DIR, named <job>-<host>-<pid>.<start>.<kind>
// (common/record_files.h: <start> keeps apart processes with the same job, host and pid):
//   collectives.jsonl  the collective log (railtune.profile.collectives.v1)
//   net.jsonl          the network summary (railtune.profile.net.v1)
//   trace.json         the Chrome trace (trace.h)
// and, when RAILTUNE_PROFILE_PROMETHEUS names one, rewrites a Prometheus textfile (prometheus.h).
//
// push() only copies the record into a bounded queue: it never blocks, never allocates and never
// touches a file. When the queue is full the record is dropped and counted; the next flush writes a
// "dropped" line with the count (and the Prometheus counter), so a loss shows within one flush
// interval even when no record follows. A RecordKind::Lost record (a capture's pools were full) is
// written as a "dropped" line of its own. The thread drains the queue every few milliseconds (so a
// burst does not fill it), renders into buffers it reuses (no allocation per record once they have
// grown) and hands the text to the kernel with write(2) every flush interval, also while idle (and every
// 192 KiB of text under a flood, while it is still in the CPU's cache), so a
// job killed with SIGKILL or stopped leaves every record up to the last flush. flushNow() is the
// watchdog's: its hang record is on disk before a framework aborts the process. shutdown() (or the
// destructor) writes what is left and closes the trace's array.
//
// A write that fails (a full disk: ENOSPC, EIO...) loses nothing at once: the text not yet written
// is kept from the very byte where the kernel stopped (so no line is torn or written twice) and
// written again at a later flush, first after retryInitial, then at doubling intervals up to
// retryMax. Meanwhile each file keeps at most 4 MiB of text: records past that are not rendered but
// counted, and written as one "dropped" line once writing resumes. One WARN when writing stops, one
// when it resumes (how long, how many records lost).
//
// Every record is on disk or counted (docs/profiler.md, "Nothing unaccounted"). Each flush first checks
// that its files still have a name (fstat: a link count of 0 means they were removed, e.g. `rm -rf` of
// the folder while the job runs). A removed file is opened again under the same name (the folder made
// again if missing, retried like a failing write when it cannot be) and the new collective log's header
// counts what the removed one held, all lost with it: its records and the counts of its dropped lines,
// with "dropped_reason". One WARN for the first removal. The writer knows what each line of its buffer
// holds (a ledger of line ends), so a write that stops midway counts exactly the records that got out.
// At shutdown, what still cannot be written is counted: one last "dropped" line when the file takes it,
// and always a WARN with the count; the Prometheus counter includes it.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <sys/types.h>

#include "common/bounded_queue.h"
#include "common/identity.h"
#include "common/log.h"
#include "common/params.h"
#include "common/writer_thread.h"
#include "profiler_plugin/output/prometheus.h"
#include "profiler_plugin/output/trace.h"
#include "profiler_plugin/profile_format.h"
#include "profiler_plugin/record_sink.h"

namespace railtune::profiler::output {

struct ProfileOptions {
  std::string directory;       // "" : no files (a Prometheus textfile alone); created with its parents if missing
  std::string prometheusPath;  // "" : no textfile
  Identity identity;
  std::string bootId;       // the host's boot id for the header line ("": unknown, not written)
  int profilerVersion = 0;  // the profiler ABI NCCL bound: what the header says is invisible (0: not known)
  size_t capacity = 1024;   // queued records before push() drops; 5.7 KiB each
  std::chrono::milliseconds flushInterval{1000};
  std::chrono::milliseconds drainInterval{10};
  // After a failed write: the first retry, and the longest interval the doubling reaches.
  std::chrono::milliseconds retryInitial{1000};
  std::chrono::milliseconds retryMax{30000};
  // write(2) unless set: the tests' full disk and short writes.
  std::function<ssize_t(int fd, const void* data, size_t size)> write;
};

// The host's boot id (/proc/sys/kernel/random/boot_id, or `path`), "" when it cannot be read or is not
// the kernel's UUID form. Read once per writer: processes with one boot id share one clock.
std::string readBootId(const char* path = "/proc/sys/kernel/random/boot_id");

// RAILTUNE_PROFILE_PROMETHEUS's value with every "%p" replaced by the process id.
std::string expandPid(const std::string& pattern, int pid);

class ProfileWriter final : public RecordSink {
 public:
  // Creates the folder (and its missing parents), opens the files and starts the thread. Throws
  // std::runtime_error naming the folder or file and the system's reason when one cannot be made.
  explicit ProfileWriter(ProfileOptions options, const Log& log = Log("profiler"));
  ~ProfileWriter() override;
  ProfileWriter(const ProfileWriter&) = delete;
  ProfileWriter& operator=(const ProfileWriter&) = delete;

  // The writer RAILTUNE_PROFILE_DIR and RAILTUNE_PROFILE_PROMETHEUS ask for: nullptr when both are
  // unset, or (with one WARN) when a value is rejected or a file cannot be opened; the job runs on.
  // profilerVersion: the ABI NCCL bound, for the header (ProfileOptions::profilerVersion).
  static std::unique_ptr<ProfileWriter> fromEnvironment(const Log& log, EnvLookup env = processEnv,
                                                        int profilerVersion = 0);

  bool push(const OperationRecord& record) noexcept override;

  // Writes every record pushed before the call and returns once it is with the kernel (true), or
  // after `timeout`, or when the write failed (false; also after shutdown). Blocks: never call it
  // from NCCL's threads.
  bool flushNow(std::chrono::milliseconds timeout);

  // Writes what is queued, closes the trace's array and stops the thread. Idempotent. A push()
  // racing with it may be lost without being counted.
  void shutdown();

  std::string path(ProfileFile file) const;  // "" when there are no files
  const std::string& prometheusPath() const { return options_.prometheusPath; }
  uint64_t droppedTotal() const { return droppedTotal_.load(std::memory_order_relaxed); }
  // Records counted lost for any reason (full queue, failing disk, removed file, unwritten at exit):
  // every record pushed is either in a file that still exists or counted here, once shutdown returned.
  uint64_t lostTotal() const { return lostTotal_.load(std::memory_order_relaxed); }

 private:
  void openFiles();
  bool cycle(uint64_t request);
  void finalCycle();
  bool drain();
  // A quarter of the queue waits: the thread is woken with three quarters left (7.5 ms at 100,000 records a
  // second) for the scheduler to run it on a busy host.
  bool backlogged() const { return queue_.pushed() - queue_.popped() >= queue_.capacity() / 4; }
  void take(const OperationRecord& record);
  void countLoss(const OperationRecord& record);
  size_t buffered() const { return collectives_.size() + net_.size() + trace_.size(); }
  void flush(bool force, bool final);
  void flushOrThrow(bool force, bool final);
  void appendLossLine();
  bool writeFiles();
  bool writeOut(int fd, std::string* text, size_t* written = nullptr);
  bool startOrBackOff();
  void writeFailed(const std::string& file, int error);
  void writeResumed();
  // writer_files.cc: the files' lifecycle.
  void noteLine(size_t start, uint32_t records, const DroppedNotice& loss);
  void settleWritten(size_t bytes);
  DroppedNotice unwrittenLoss() const;
  bool filesPresent();
  void fileRemoved(ProfileFile file);
  bool reopenFiles();
  void accountAtExit();
  void countLost(uint64_t records);

  // One line of collectives_ not yet written: where it ends (an offset in the whole stream of the
  // collective log's text), the records it is, and the losses it says (a dropped line, a header).
  struct BufferedLine {
    uint32_t length = 0;   // with its newline
    uint32_t records = 0;  // 1 for a record's line
    uint64_t lostRecords = 0, lostOperations = 0, lostEvents = 0;
  };
  int& fdOf(ProfileFile file);
  std::string& textOf(ProfileFile file);
  void startFile(ProfileFile file);
  void reopenFailed(const std::string& reason);

  ProfileOptions options_;
  Log log_;
  int collectivesFd_ = -1, netFd_ = -1, traceFd_ = -1;
  std::string tag_;  // the tag in the files' names (claimRecordFile)
  BoundedQueue<OperationRecord> queue_;
  // Written by pushers that found the queue full: on lines of their own, away from the queue's read position,
  // which the writer thread changes at every record (sharing its line cost the writer a third of its speed
  // while a job outran it: docs/performance.md, "Issue 28: profiler writer").
  alignas(64) std::atomic<uint64_t> droppedUnreported_{0};
  std::atomic<uint64_t> droppedTotal_{0};
  std::atomic<uint64_t> lostTotal_{0};
  alignas(64) std::atomic<bool> wakeRequested_{false};  // a push found the queue backlogged and woke the thread
  // The writer thread's own state.
  alignas(64) std::string collectives_;  // rendered, not yet written
  std::string net_, trace_;
  TraceRenderer traceRenderer_;
  PrometheusMetrics metrics_;
  bool metricsChanged_ = true;
  std::chrono::steady_clock::time_point lastFlush_;
  DroppedNotice pendingLoss_;  // lost and not yet in a "dropped" line
  // A failing disk: since when, when to try again, the interval after that, records lost meanwhile.
  bool failing_ = false;
  std::chrono::steady_clock::time_point failingSince_, retryAt_;
  std::chrono::milliseconds backoff_{0};
  uint64_t lostWhileFailing_ = 0;
  OnceFlag prometheusFailed_, renderFailed_, removedWarned_;
  // The collective log's ledger: lines_[linesHead_..] are the lines of collectives_, of which the
  // first frontWritten_ bytes are already in the file (> 0: the file ends with part of a line).
  std::vector<BufferedLine> lines_;
  size_t linesHead_ = 0, frontWritten_ = 0;
  // What the current collective log holds (lost with it when it is removed): its records, and the
  // counts its dropped lines and header say. carried_: what removed files held, until a header says it.
  uint64_t inFileRecords_ = 0;
  DroppedNotice inFileLoss_, carried_;
  // By ProfileFile: removed and not yet opened again; the file ends with part of a line or event.
  bool gone_[3] = {false, false, false}, torn_[3] = {false, false, false};
  size_t cycleTarget_ = 0;   // flushTarget_ as the current cycle's request saw it
  bool requestMet_ = false;  // whether the current cycle met its request
  // thread_.mutex() guards the flags below and pairs with flushed_ (flushNow's wait).
  std::condition_variable flushed_;
  bool stopped_ = false;
  uint64_t flushRequested_ = 0, flushDone_ = 0;
  bool flushOk_ = true;     // whether the flush that met the latest request reached the kernel
  size_t flushTarget_ = 0;  // queue position the latest request waits for
  WriterThread thread_;     // last: it stops (and writes the final cycle) before the members above go
};

}  // namespace railtune::profiler::output
