// The hang watchdog: one background thread per process that, every interval, lets each watched
// communicator's InFlightSource do its housekeeping (closing operations by age, reporting losses) and,
// unless the timeout is 0, asks it for operations incomplete for longer than the timeout. Each new hang
// (once per operation) is pushed to the communicator's RecordSink, flushed through `flushNow` so it is
// on disk before a framework's own timeout aborts the process, and reported in one WARN through the
// communicator's logger. The job itself is never touched: no abort, no signal.
//
// The thread runs while at least one communicator is watched: the first watch() starts it, the last
// unwatch() (or the destructor, at library unload) stops and joins it without waiting out an interval.
// A callback that unwatches its own communicator from the watchdog's thread is safe; the thread then
// idles until the next watch(), unwatch() or the destructor. A forked child starts its own thread.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/log.h"
#include "profiler_plugin/record_sink.h"
#include "profiler_plugin/watchdog/hang_settings.h"

namespace railtune::profiler {

// What the watchdog needs of one communicator. None of it is owned: source, sink and flushNow must
// stay valid until unwatch() returns.
struct WatchTarget {
  InFlightSource* source = nullptr;
  RecordSink* sink = nullptr;      // NULL: hangs are only logged
  std::function<void()> flushNow;  // writes what the sink holds to disk; may be empty
  Log log{"profiler"};             // the communicator's logger
};

using WatchId = uint64_t;  // 0 is never a valid id

class HangWatchdog {
 public:
  explicit HangWatchdog(HangSettings settings);
  ~HangWatchdog();
  HangWatchdog(const HangWatchdog&) = delete;
  HangWatchdog& operator=(const HangWatchdog&) = delete;

  // Thread-safe. With the hang check off (timeout 0) the thread still runs each source's housekeeping.
  // A rejected RAILTUNE_HANG_TIMEOUT is reported once, through the first target's logger.
  WatchId watch(WatchTarget target);
  // Waits for a scan of this target in progress, so that its source may be destroyed right after.
  // Unknown ids are ignored. Stops the thread when it was the last target.
  void unwatch(WatchId id);

  // fork() handlers (pthread_atfork): wait for a scan in progress and hold the locks across the fork,
  // so that the child inherits none locked by a thread it does not have; the child then forgets the
  // parent's thread and the parent's communicators.
  void beforeFork();
  void afterForkInParent();
  void afterForkInChild();

  bool running() const;            // the thread exists (for tests)
  uint64_t hangsReported() const;  // WARNs written since construction (for tests)

 private:
  // An operation within one communicator: seq alone is not enough, as P2p operations are counted
  // apart from collectives.
  struct Key {
    uint64_t seq;
    int peer;
    InlineText<24> operation;
    bool operator==(const Key& other) const {
      return seq == other.seq && peer == other.peer && operation.view() == other.operation.view();
    }
  };
  struct Watched {
    WatchTarget target;
    std::vector<Key> reported;  // hangs already reported that were still incomplete at the last scan
    bool sourceFailed = false;  // the source threw once: WARNed, no longer asked
    bool removed = false;       // unwatched from inside its own scan: erased when the scan ends
  };

  void startLocked();          // lifecycle_ held
  void stop();                 // joins; lifecycle_ held
  void forgetParentsThread();  // lifecycle_ held
  void run();
  void scanAll(std::unique_lock<std::mutex>& lock);
  void scanGuarded(Watched& watched);
  void stopWatching(Watched& watched, const char* why);
  void scan(Watched& watched, int64_t nowNs);
  void report(Watched& watched, const OperationRecord& hang);

  const HangSettings settings_;
  mutable std::mutex lifecycle_;  // serialises starting and joining the thread
  mutable std::mutex mutex_;
  std::condition_variable wake_;      // the thread: stop requested
  std::condition_variable scanDone_;  // unwatch(), fork: the scan of a target finished, the thread started
  std::map<WatchId, Watched> watched_;
  WatchId nextId_ = 1;
  WatchId scanning_ = 0;
  bool threadStarting_ = false;  // created, not yet in its loop: a fork waits for it
  bool stopping_ = false;
  bool settingsReported_ = false;
  uint64_t hangsReported_ = 0;
  std::vector<OperationRecord> buffer_;  // the thread's scratch space
  // Held by pointer so that a forked child, which inherits the object but not the thread, can drop
  // it without joining (the join would never return).
  std::unique_ptr<std::thread> thread_;
  pid_t threadPid_ = 0;                      // the process that started the thread
  std::atomic<std::thread::id> threadId_{};  // the running thread's id, so that it never joins itself
};

// The process's watchdog, configured from the environment on first use, stopped at library unload,
// with its fork handlers registered (glibc drops them when the library is unloaded).
HangWatchdog& processWatchdog();

}  // namespace railtune::profiler
