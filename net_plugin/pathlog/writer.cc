// See writer.h. Everything but record() runs on the writer thread or at construction/shutdown.
#include "net_plugin/pathlog/writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "common/record_files.h"

namespace railtune::net::pathlog {
namespace {

constexpr unsigned long kFlags = NCCL_NET;

int64_t nowUs() noexcept {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);  // vDSO: no system call, no lock
  return static_cast<int64_t>(now.tv_sec) * 1000000 + now.tv_nsec / 1000;
}

}  // namespace

PathLogWriter::PathLogWriter(WriterOptions options, const Log& log)
    : options_(std::move(options)),
      log_(log),
      queue_(options_.capacity),
      lastSnapshot_(std::chrono::steady_clock::now()) {
  // The folder and its missing parents are made; the file is this process's alone (record_files.h).
  const int folder = openRecordFolder(options_.directory);
  try {
    const ClaimedFile file = claimRecordFile(folder, options_.directory, options_.identity, ".jsonl");
    fd_ = file.fd;
    path_ = options_.directory + "/" + formats::path_log::pathLogFileName(options_.identity, file.tag);
  } catch (...) {
    close(folder);
    throw;
  }
  close(folder);
  thread_.start({.interval = options_.flushInterval,
                 .cycle =
                     [this](uint64_t) {
                       cycle(false);
                       return true;  // a cycle takes at most a queue's worth; the rest waits for the next interval
                     },
                 .finalCycle = [this] { cycle(true); }});
}

PathLogWriter::~PathLogWriter() {
  shutdown();
  close(fd_);
}

std::unique_ptr<PathLogWriter> PathLogWriter::fromEnvironment(const Log& log, EnvLookup env) {
  const ParamValue<std::string> directory = readString("RAILTUNE_PATH_LOG_DIR", env);
  if (!directory.ok()) {
    RT_WARN(log, kFlags, "%s; no path log", directory.error.c_str());
    return nullptr;
  }
  if (directory.value.empty()) return nullptr;
  WriterOptions options;
  options.directory = directory.value;
  options.identity = resolveIdentity(env);
  try {
    auto writer = std::make_unique<PathLogWriter>(std::move(options), log);
    RT_INFO(log, kFlags, "path log: %s", writer->path().c_str());
    return writer;
  } catch (const std::exception& e) {
    RT_WARN(log, kFlags, "RAILTUNE_PATH_LOG_DIR=%s: %s; no path log", directory.value.c_str(), e.what());
    return nullptr;
  }
}

bool PathLogWriter::record(PathRecord record, std::shared_ptr<const ConnectionCounters> counters) noexcept {
  if (record.timeUs == 0) record.timeUs = nowUs();
  Entry entry{record, std::move(counters)};
  if (thread_.accepting() && queue_.tryPush(std::move(entry))) return true;
  droppedUnreported_.fetch_add(1, std::memory_order_relaxed);
  droppedTotal_.fetch_add(1, std::memory_order_relaxed);
  return false;
}

void PathLogWriter::shutdown() {
  thread_.stop();
}

void PathLogWriter::cycle(bool final) {
  std::string out;
  Entry entry;
  // At most one queue's worth per cycle (all of it at the final one, when nothing is accepted any
  // more): connections that record as fast as this thread renders must not keep it from writing.
  for (size_t taken = 0; (final || taken < options_.capacity) && queue_.tryPop(entry); ++taken) take(entry, &out);
  const auto now = std::chrono::steady_clock::now();
  if (final || now - lastSnapshot_ >= options_.snapshotInterval) {
    snapshots(&out);
    lastSnapshot_ = now;
  }
  if (droppedUnreported_.load(std::memory_order_relaxed) > 0) {
    PathRecord notice;
    notice.kind = RecordKind::Dropped;
    notice.timeUs = nowUs();
    append(notice, &out);
  }
  if (!out.empty()) writeOut(out);
}

void PathLogWriter::take(Entry& entry, std::string* out) {
  PathRecord& record = entry.record;
  if (record.kind == RecordKind::Connect && entry.counters) {
    open_[record.connection] = OpenConnection{std::move(entry.counters), record.comm, record.rank, Traffic{}};
  } else if (record.kind == RecordKind::Close) {
    const auto it = open_.find(record.connection);
    const ConnectionCounters* counters = entry.counters      ? entry.counters.get()
                                         : it != open_.end() ? it->second.counters.get()
                                                             : nullptr;
    if (counters != nullptr) record.traffic = counters->sample();
    if (it != open_.end()) {
      if (!record.comm) record.comm = it->second.comm;
      if (record.rank < 0) record.rank = it->second.rank;
      open_.erase(it);
    }
    entry.counters.reset();
  }
  append(record, out);
}

void PathLogWriter::snapshots(std::string* out) {
  for (auto& [connection, open] : open_) {
    const Traffic now = open.counters->sample();
    if (now == open.written) continue;  // an idle connection writes nothing
    PathRecord snapshot;
    snapshot.kind = RecordKind::Snapshot;
    snapshot.timeUs = nowUs();
    snapshot.connection = connection;
    snapshot.comm = open.comm;
    snapshot.rank = open.rank;
    snapshot.traffic = now;
    append(snapshot, out);
    open.written = now;
  }
}

void PathLogWriter::append(PathRecord& record, std::string* out) {
  record.dropped += droppedUnreported_.exchange(0, std::memory_order_relaxed);
  if (record.kind == RecordKind::Dropped && record.dropped == 0) return;  // reported by another record
  *out += renderRecord(options_.identity, record);
  *out += '\n';
}

void PathLogWriter::writeOut(const std::string& text) {
  if (!writeAll(fd_, text) && writeFailed_.first()) {
    RT_WARN(log_, kFlags, "path log %s: write failed: %s; records are lost", path_.c_str(), std::strerror(errno));
  }
}

}  // namespace railtune::net::pathlog
