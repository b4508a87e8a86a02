// HangWatchdog: the registry of watched communicators, the thread's life, and one scan.
#include "profiler_plugin/watchdog/watchdog.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <exception>

#include "profiler_plugin/watchdog/hang_report.h"

namespace railtune::profiler {
namespace {

// Hangs read per communicator and scan; more are picked up at the next scan.
constexpr size_t kMaxHangsPerScan = 16;

int64_t monotonicNowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace

HangWatchdog::HangWatchdog(HangSettings settings) : settings_(std::move(settings)) {}

HangWatchdog::~HangWatchdog() {
  std::lock_guard<std::mutex> lifecycle(lifecycle_);
  stop();
}

WatchId HangWatchdog::watch(WatchTarget target) {
  std::lock_guard<std::mutex> lifecycle(lifecycle_);
  WatchId id = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!settings_.error.empty() && !settingsReported_) {
      settingsReported_ = true;
      RT_WARN(target.log, NCCL_PROFILE, "%s; using the default", settings_.error.c_str());
    }
    id = nextId_++;
    watched_.emplace(id, Watched{std::move(target), {}, false, false});
  }
  forgetParentsThread();
  // The thread runs with the hang check off too: it also closes operations by age and reports losses.
  if (thread_ == nullptr) startLocked();
  return id;
}

void HangWatchdog::startLocked() {
  try {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      threadStarting_ = true;
    }
    thread_ = std::make_unique<std::thread>([this] { run(); });
    threadPid_ = getpid();
  } catch (const std::exception& e) {
    // No thread, no watchdog; the job goes on. Said once, through the communicator that asked.
    std::lock_guard<std::mutex> lock(mutex_);
    threadStarting_ = false;
    const Log& log = watched_.rbegin()->second.target.log;
    RT_WARN(log, NCCL_PROFILE, "hang watchdog not started: %s", e.what());
  }
}

void HangWatchdog::unwatch(WatchId id) {
  const bool onWatchdogThread = std::this_thread::get_id() == threadId_.load();
  std::unique_lock<std::mutex> lifecycle(lifecycle_, std::defer_lock);
  if (!onWatchdogThread) lifecycle.lock();  // the thread itself (from a callback) must not wait on itself
  bool last = false;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (onWatchdogThread && scanning_ == id) {
      watched_.at(id).removed = true;  // the scan in progress still uses it
      return;
    }
    scanDone_.wait(lock, [&] { return scanning_ != id; });
    watched_.erase(id);
    last = watched_.empty();
  }
  if (last && !onWatchdogThread) stop();
}

// After fork() the child holds the parent's thread object but no thread: drop it unjoined (a small,
// deliberate leak) so that the child neither waits for it forever nor goes without a watchdog.
void HangWatchdog::forgetParentsThread() {
  if (thread_ == nullptr || threadPid_ == getpid()) return;
  static_cast<void>(thread_.release());
  threadId_.store(std::thread::id());
  std::lock_guard<std::mutex> lock(mutex_);
  scanning_ = 0;
  threadStarting_ = false;
  stopping_ = false;
}

void HangWatchdog::stop() {
  forgetParentsThread();
  if (thread_ == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_->join();
  thread_.reset();
  threadId_.store(std::thread::id());
  std::lock_guard<std::mutex> lock(mutex_);
  stopping_ = false;
}

bool HangWatchdog::running() const {
  std::lock_guard<std::mutex> lifecycle(lifecycle_);
  return thread_ != nullptr;
}

uint64_t HangWatchdog::hangsReported() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return hangsReported_;
}

void HangWatchdog::run() {
  threadId_.store(std::this_thread::get_id());
  bool buffered = true;
  try {
    buffer_.resize(kMaxHangsPerScan);
  } catch (...) {
    buffered = false;  // out of memory at start: no watchdog rather than a terminated job
  }
  std::unique_lock<std::mutex> lock(mutex_);
  threadStarting_ = false;
  scanDone_.notify_all();
  if (!buffered) return;
  while (!stopping_) {
    // A condition variable, not a sleep: stop() must not wait out the interval.
    if (wake_.wait_for(lock, settings_.interval, [this] { return stopping_; })) break;
    scanAll(lock);
  }
}

// Scans each target with the lock released, marking it as the one in progress so that unwatch()
// waits for it; targets added or removed meanwhile are seen at the next scan.
void HangWatchdog::scanAll(std::unique_lock<std::mutex>& lock) {
  std::vector<WatchId> ids;
  ids.reserve(watched_.size());
  for (const auto& entry : watched_) ids.push_back(entry.first);
  for (WatchId id : ids) {
    if (stopping_) return;
    auto it = watched_.find(id);
    if (it == watched_.end() || it->second.sourceFailed) continue;
    scanning_ = id;
    lock.unlock();
    scanGuarded(it->second);
    lock.lock();
    if (it->second.removed) watched_.erase(it);
    scanning_ = 0;
    scanDone_.notify_all();
  }
}

// Nothing may escape the watchdog's thread (std::terminate would end the job): a target that fails is
// reported once and no longer scanned.
void HangWatchdog::scanGuarded(Watched& watched) {
  try {
    scan(watched, monotonicNowNs());
    return;
  } catch (const std::exception& e) {
    stopWatching(watched, e.what());
  } catch (...) {
    stopWatching(watched, "unknown exception");
  }
}

void HangWatchdog::stopWatching(Watched& watched, const char* why) {
  watched.sourceFailed = true;
  RT_WARN(watched.target.log, NCCL_PROFILE, "hang watchdog stops watching this communicator: %s", why);
}

void HangWatchdog::scan(Watched& watched, int64_t nowNs) {
  watched.target.source->housekeep(nowNs);
  if (!settings_.enabled()) return;
  size_t n = watched.target.source->incomplete(nowNs, settings_.timeoutNs, buffer_);
  n = std::min(n, buffer_.size());
  std::vector<Key> stillIncomplete;
  for (size_t i = 0; i < n; ++i) {
    const OperationRecord& hang = buffer_[i];
    const Key key{hang.seq, hang.peer, hang.operation};
    stillIncomplete.push_back(key);
    if (std::find(watched.reported.begin(), watched.reported.end(), key) == watched.reported.end()) {
      report(watched, hang);
    }
  }
  // Forget operations that completed, so that the list stays as short as the hangs in flight.
  watched.reported = std::move(stillIncomplete);
}

void HangWatchdog::report(Watched& watched, const OperationRecord& hang) {
  OperationRecord record = hang;
  record.kind = RecordKind::Hang;
  try {
    const bool queued = watched.target.sink != nullptr && watched.target.sink->push(record);
    if (watched.target.flushNow) watched.target.flushNow();
    // A queue full of a busy job's records would drop the one record that matters most: the flush has
    // just made room (this thread may wait; NCCL's never do), so push once more and flush again.
    if (!queued && watched.target.sink != nullptr && watched.target.flushNow && watched.target.sink->push(record)) {
      watched.target.flushNow();
    }
  } catch (const std::exception& e) {
    RT_WARN(watched.target.log, NCCL_PROFILE, "hang record not flushed: %s", e.what());
  } catch (...) {
    RT_WARN(watched.target.log, NCCL_PROFILE, "hang record not flushed: unknown exception");
  }
  RT_WARN(watched.target.log, NCCL_PROFILE, "hang: %s", describeHang(record).c_str());
  std::lock_guard<std::mutex> lock(mutex_);
  ++hangsReported_;
}

// The scan runs outside mutex_ and takes the source's own locks, and a starting thread allocates: a
// fork in the middle of either would leave those locks held in the child for good (glibc's malloc
// guards itself across fork(), a sanitizer's allocator may not). So the fork waits for the scan in
// progress and for a starting thread, both short; the thread is then parked on mutex_ or its
// condition variable.
void HangWatchdog::beforeFork() {
  lifecycle_.lock();
  std::unique_lock<std::mutex> lock(mutex_);
  if (std::this_thread::get_id() != threadId_.load()) {
    scanDone_.wait(lock, [this] { return scanning_ == 0 && !threadStarting_; });
  }
  static_cast<void>(lock.release());  // held across the fork, released by the handlers after it
}

void HangWatchdog::afterForkInParent() {
  mutex_.unlock();
  lifecycle_.unlock();
}

// The parent's communicators are the parent's: the child neither scans them (their operations would
// be reported as the child's hangs, into the parent's files) nor waits for them at unwatch().
void HangWatchdog::afterForkInChild() {
  watched_.clear();
  mutex_.unlock();
  lifecycle_.unlock();
  std::lock_guard<std::mutex> lifecycle(lifecycle_);
  forgetParentsThread();
}

HangWatchdog& processWatchdog() {
  static HangWatchdog watchdog(readHangSettings());
  static const int forkHandlers = pthread_atfork(
      +[] { watchdog.beforeFork(); }, +[] { watchdog.afterForkInParent(); }, +[] { watchdog.afterForkInChild(); });
  static_cast<void>(forkHandlers);
  return watchdog;
}

}  // namespace railtune::profiler
