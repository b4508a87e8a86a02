// See writer.h. Everything but push() runs on the writer thread or at construction/shutdown.
#include "profiler_plugin/output/writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "common/record_files.h"
#include "profiler_plugin/profile_format.h"

namespace railtune::profiler::output {
namespace {

constexpr unsigned long kFlags = NCCL_PROFILE;
// Rendered text kept between flushes is bounded: past this it is written at once, and while writing
// fails, records past it are counted instead of rendered.
constexpr size_t kMaxBufferedBytes = 4 << 20;
constexpr size_t kReservedBytes = 256 << 10;  // each buffer's size from the start: few reallocations
// Under a flood, text is handed to the kernel once this much is rendered, while it is still in the CPU's
// cache: with 4 MiB writes the kernel's copy into the page cache read it back from memory, 6 to 45 % of
// the writer's time under perf (docs/performance.md, "Issue 28: profiler writer"). Three write(2) calls
// per 50 records or so cost far less.
constexpr size_t kWriteBytes = 192 << 10;
constexpr char kTraceOpen[] = "[\n";
constexpr char kTraceClose[] = "\n]\n";

int64_t realtimeNs() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

// A trace file this process wrote before (the plugin was unloaded and loaded again) ends with the
// array's closing bracket: remove it so that the array goes on. Returns whether events are there.
bool reopenTrace(int fd, const std::string& path) {
  struct stat info {};
  if (fstat(fd, &info) != 0) throw std::runtime_error("cannot stat " + path + ": " + std::strerror(errno));
  off_t size = info.st_size;
  if (size == 0) {
    if (write(fd, kTraceOpen, 2) != 2) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
    return false;
  }
  char tail[3] = {};
  if (size >= 3 && pread(fd, tail, 3, size - 3) == 3 && std::memcmp(tail, kTraceClose, 3) == 0) {
    size -= 3;
    if (ftruncate(fd, size) != 0) throw std::runtime_error("cannot truncate " + path + ": " + std::strerror(errno));
  }
  return size > 2;
}

}  // namespace

std::string readBootId(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char text[64];
  const ssize_t n = ::read(fd, text, sizeof text);
  ::close(fd);
  if (n <= 0) return "";
  std::string id(text, static_cast<size_t>(n));
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  return isBootId(id) ? id : "";
}

std::string expandPid(const std::string& pattern, int pid) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern.compare(i, 2, "%p") == 0) {
      out += std::to_string(pid);
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

ProfileWriter::ProfileWriter(ProfileOptions options, const Log& log)
    : options_(std::move(options)),
      log_(log),
      queue_(options_.capacity),
      traceRenderer_(options_.identity),
      metrics_(options_.identity),
      lastFlush_(std::chrono::steady_clock::now()) {
  for (std::string* text : {&collectives_, &net_, &trace_}) text->reserve(kReservedBytes);
  try {
    openFiles();
    if (collectivesFd_ >= 0) {
      appendHeaderLine(&collectives_, options_.identity, realtimeNs(), options_.bootId, options_.profilerVersion);
      collectives_ += '\n';
      noteLine(0, 0, DroppedNotice{});
    }
  } catch (...) {
    for (int fd : {collectivesFd_, netFd_, traceFd_}) {
      if (fd >= 0) close(fd);
    }
    throw;
  }
  // Wakes before the interval for a flush request, or once a push found the queue backlogged.
  thread_.start({.interval = options_.drainInterval,
                 .wakeEarly = [this] { return flushRequested_ > flushDone_ || backlogged(); },
                 .beforeCycle =
                     [this] {
                       cycleTarget_ = flushTarget_;  // every push before the request is below it
                       return flushRequested_;
                     },
                 .cycle = [this](uint64_t request) { return cycle(request); },
                 .afterCycle =
                     [this](uint64_t request) {
                       if (!requestMet_) return;
                       flushDone_ = request;
                       flushOk_ = !failing_;
                       flushed_.notify_all();
                     },
                 .finalCycle = [this] { finalCycle(); },
                 .stopped =
                     [this] {
                       stopped_ = true;
                       flushDone_ = flushRequested_;
                       flushed_.notify_all();
                     }});
}

ProfileWriter::~ProfileWriter() {
  shutdown();
  for (int fd : {collectivesFd_, netFd_, traceFd_}) {
    if (fd >= 0) close(fd);
  }
}

// The folder and its missing parents are made (record_files.h). The collective log is claimed as this
// process's own (a name no other live writer uses); the other two files take the same tag.
void ProfileWriter::openFiles() {
  if (options_.directory.empty()) return;
  const std::string& folder = options_.directory;
  const int folderFd = openRecordFolder(folder);
  try {
    const ClaimedFile claimed =
        claimRecordFile(folderFd, folder, options_.identity, profileSuffix(ProfileFile::Collectives));
    collectivesFd_ = claimed.fd;
    tag_ = claimed.tag;
    netFd_ = openForAppendAt(folderFd, folder, profileFileName(options_.identity, ProfileFile::Net, tag_));
    // Readable: reopenTrace reads its tail.
    traceFd_ = openForAppendAt(folderFd, folder, profileFileName(options_.identity, ProfileFile::Trace, tag_), true);
  } catch (...) {
    close(folderFd);
    throw;
  }
  close(folderFd);
  if (reopenTrace(traceFd_, path(ProfileFile::Trace))) traceRenderer_.continueExisting();
}

std::string ProfileWriter::path(ProfileFile file) const {
  if (options_.directory.empty()) return "";
  return options_.directory + "/" + profileFileName(options_.identity, file, tag_);
}

std::unique_ptr<ProfileWriter> ProfileWriter::fromEnvironment(const Log& log, EnvLookup env, int profilerVersion) {
  ParamValue<std::string> directory = readString("RAILTUNE_PROFILE_DIR", env);
  ParamValue<std::string> prometheus = readString("RAILTUNE_PROFILE_PROMETHEUS", env);
  for (ParamValue<std::string>* value : {&directory, &prometheus}) {
    if (value->ok()) continue;
    RT_WARN(log, kFlags, "%s; ignored", value->error.c_str());
    value->value.clear();
  }
  if (directory.value.empty() && prometheus.value.empty()) return nullptr;
  ProfileOptions options;
  options.directory = directory.value;
  options.identity = resolveIdentity(env);
  options.bootId = readBootId();
  options.profilerVersion = profilerVersion;
  options.prometheusPath = expandPid(prometheus.value, options.identity.pid);
  try {
    auto writer = std::make_unique<ProfileWriter>(std::move(options), log);
    if (!directory.value.empty()) RT_INFO(log, kFlags, "profile: %s", writer->path(ProfileFile::Collectives).c_str());
    if (!prometheus.value.empty()) RT_INFO(log, kFlags, "profile metrics: %s", writer->prometheusPath().c_str());
    return writer;
  } catch (const std::exception& e) {
    RT_WARN(log, kFlags, "RAILTUNE_PROFILE_DIR=%s: %s; no profile output", directory.value.c_str(), e.what());
    return nullptr;
  }
}

bool ProfileWriter::push(const OperationRecord& record) noexcept {
  if (thread_.accepting() && queue_.tryPush(record)) {
    // A push that finds a quarter of the queue waiting wakes the thread, once until it has drained: at
    // 100,000 records a second its 10 ms nap would fill the whole queue. No lock: a wake-up lost to the
    // race costs at most the nap. Looked at every 64th push only: the read position is the writer
    // thread's cache line, and reading it at every push would cost the pushing thread a cache miss each time.
    if (queue_.pushed() % 64 == 0 && backlogged() && !wakeRequested_.exchange(true, std::memory_order_relaxed)) {
      thread_.wake();
    }
    return true;
  }
  if (record.kind == RecordKind::Lost) return false;  // its counts stay with the capture, pushed again later
  droppedUnreported_.fetch_add(1, std::memory_order_relaxed);
  droppedTotal_.fetch_add(1, std::memory_order_relaxed);
  lostTotal_.fetch_add(1, std::memory_order_relaxed);
  return false;
}

bool ProfileWriter::flushNow(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(thread_.mutex());
  if (thread_.stoppingLocked()) return false;
  const uint64_t ticket = ++flushRequested_;
  flushTarget_ = std::max(flushTarget_, queue_.pushed());  // what this request must see written
  thread_.wake();
  flushed_.wait_for(lock, timeout, [&] { return flushDone_ >= ticket || stopped_; });
  return flushDone_ >= ticket && flushOk_;
}

void ProfileWriter::shutdown() {
  thread_.stop();
}

// One round on the writer thread, without the lock: returns whether the queue was found empty.
bool ProfileWriter::cycle(uint64_t request) {
  wakeRequested_.store(false, std::memory_order_relaxed);
  const bool emptied = drain();
  // A request is met once everything pushed before it has been taken (drain() takes a bounded batch:
  // under a flood of records that may need more than one round) and then written.
  requestMet_ = request > flushDone_ && queue_.popped() >= cycleTarget_;
  // Also while idle: a loss counted by push() is written at the next interval.
  const bool due = requestMet_ || std::chrono::steady_clock::now() - lastFlush_ >= options_.flushInterval ||
                   (!failing_ && buffered() > kMaxBufferedBytes);
  if (due) flush(requestMet_, false);
  return emptied;
}

// After stop: nothing is accepted any more, so this ends.
void ProfileWriter::finalCycle() {
  while (!drain()) flush(true, false);
  flush(true, true);
  accountAtExit();  // the last act: what could not be written is counted
}

bool ProfileWriter::drain() {
  for (size_t taken = 0; taken < options_.capacity; ++taken) {
    if (!failing_ && buffered() >= kWriteBytes) writeFiles();  // failing: take() counts past its bound
    // Rendered where it lies in the queue: a record is 5.7 KiB, and copying it out cost as much as a tenth
    // of its rendering.
    const bool popped = queue_.tryConsume([this](const OperationRecord& record) {
      try {
        take(record);
      } catch (const std::exception& e) {
        if (renderFailed_.first()) RT_WARN(log_, kFlags, "profile output: a record was lost: %s", e.what());
      }
    });
    if (!popped) return true;
  }
  return false;
}

void ProfileWriter::take(const OperationRecord& record) {
  if (record.kind == RecordKind::Lost && !lostNotice(record).any()) return;  // nothing was lost
  if (!options_.prometheusPath.empty()) {
    metrics_.add(record);
    metricsChanged_ = true;
  }
  if (options_.directory.empty()) return;
  if (collectives_.size() >= kMaxBufferedBytes) {  // only while writing fails (run() flushes before)
    countLoss(record);
    return;
  }
  const size_t start = collectives_.size();
  appendCollectiveLine(&collectives_, options_.identity, record);
  collectives_ += '\n';
  if (record.kind == RecordKind::Lost) {
    noteLine(start, 0, lostNotice(record));
    return;
  }
  noteLine(start, 1, DroppedNotice{});
  if (record.kind != RecordKind::Hang && record.nFlows > 0 && net_.size() < kMaxBufferedBytes) {
    appendNetLine(&net_, options_.identity, record);
    net_ += '\n';
  }
  if (trace_.size() < kMaxBufferedBytes) traceRenderer_.append(record, &trace_);
}

// A record the full buffer has no room for: its loss goes into the next "dropped" line.
void ProfileWriter::countLoss(const OperationRecord& record) {
  if (record.kind == RecordKind::Lost) {
    pendingLoss_.operations += record.operationsDropped;
    pendingLoss_.events += record.eventsDropped;
    return;
  }
  ++pendingLoss_.records;
  ++lostWhileFailing_;
  countLost(1);
}

// force: write now even while waiting to retry a failed write (flushNow, shutdown).
void ProfileWriter::flush(bool force, bool final) {
  try {
    flushOrThrow(force, final);
  } catch (const std::exception& e) {
    if (renderFailed_.first()) RT_WARN(log_, kFlags, "profile output: a flush failed: %s", e.what());
  }
}

void ProfileWriter::flushOrThrow(bool force, bool final) {
  const auto now = std::chrono::steady_clock::now();
  lastFlush_ = now;
  const uint64_t dropped = droppedUnreported_.exchange(0, std::memory_order_relaxed);
  if (dropped > 0 && !options_.prometheusPath.empty()) {
    metrics_.addRecordsDropped(dropped);
    metricsChanged_ = true;
  }
  pendingLoss_.records += dropped;
  if (failing_) lostWhileFailing_ += dropped;
  if (!options_.directory.empty()) {
    appendLossLine();
    if (final) trace_ += kTraceClose;
    // A loss counted while the buffer was full is written as soon as the buffer has room. Each try
    // first makes sure the files still have a name (a few fstat calls per flush, not per record).
    if ((force || !failing_ || now >= retryAt_) && filesPresent() && writeFiles() && pendingLoss_.any()) {
      appendLossLine();
      writeFiles();
    }
  } else {
    pendingLoss_ = DroppedNotice{};  // no collective log to say it in: the textfile alone counts
  }
  if (!options_.prometheusPath.empty() && metricsChanged_) {
    metricsChanged_ = false;
    const std::string error = writeFileAtomically(options_.prometheusPath, metrics_.render());
    if (!error.empty() && prometheusFailed_.first()) RT_WARN(log_, kFlags, "profile metrics: %s", error.c_str());
  }
}

// The pending loss as one "dropped" line, when the buffer has room for it.
void ProfileWriter::appendLossLine() {
  if (!pendingLoss_.any() || collectives_.size() >= kMaxBufferedBytes) return;
  pendingLoss_.realtimeNs = realtimeNs();
  const size_t start = collectives_.size();
  appendDroppedLine(&collectives_, options_.identity, pendingLoss_);
  collectives_ += '\n';
  noteLine(start, 0, pendingLoss_);
  pendingLoss_ = DroppedNotice{};
}

bool ProfileWriter::writeFiles() {
  const std::pair<int, std::string*> files[] = {{collectivesFd_, &collectives_}, {netFd_, &net_}, {traceFd_, &trace_}};
  constexpr ProfileFile kNames[] = {ProfileFile::Collectives, ProfileFile::Net, ProfileFile::Trace};
  bool ok = true;
  for (size_t i = 0; i < 3; ++i) {
    size_t written = 0;
    const bool done = writeOut(files[i].first, files[i].second, &written);
    if (i == 0) settleWritten(written);
    if (done || !ok) continue;
    ok = false;
    writeFailed(path(kNames[i]), errno);
  }
  if (ok) writeResumed();
  return ok;
}

// Writes as much of `text` as the kernel takes and keeps the rest from the exact byte it stopped
// at. false: it stopped (errno says why).
bool ProfileWriter::writeOut(int fd, std::string* text, size_t* written) {
  size_t done = 0;
  while (done < text->size()) {
    const ssize_t n = options_.write ? options_.write(fd, text->data() + done, text->size() - done)
                                     : ::write(fd, text->data() + done, text->size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;  // no progress: treated as a full disk
      break;
    }
    done += static_cast<size_t>(n);
  }
  const int error = errno;
  if (done > 0) torn_[fd == collectivesFd_ ? 0 : fd == netFd_ ? 1 : 2] = (*text)[done - 1] != '\n';
  if (written != nullptr) *written = done;
  text->erase(0, done);
  errno = error;
  return text->empty();
}

// A write or a reopen failed: the first failure starts the retry schedule (true: the caller WARNs once),
// every later one doubles the wait up to retryMax.
bool ProfileWriter::startOrBackOff() {
  const auto now = std::chrono::steady_clock::now();
  const bool first = !failing_;
  if (first) {
    failing_ = true;
    failingSince_ = now;
    backoff_ = options_.retryInitial;
    lostWhileFailing_ = 0;
  } else {
    backoff_ = std::min(backoff_ * 2, options_.retryMax);
  }
  retryAt_ = now + backoff_;
  return first;
}

void ProfileWriter::writeFailed(const std::string& file, int error) {
  if (startOrBackOff())
    RT_WARN(log_, kFlags, "profile output: cannot write %s: %s; retrying after %lld ms, then at doubling intervals",
            file.c_str(), std::strerror(error), static_cast<long long>(backoff_.count()));
}

void ProfileWriter::writeResumed() {
  if (!failing_) return;
  failing_ = false;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - failingSince_).count();
  RT_WARN(log_, kFlags, "profile output resumed after %.0f s; %llu records lost", seconds,
          static_cast<unsigned long long>(lostWhileFailing_));
}

}  // namespace railtune::profiler::output
