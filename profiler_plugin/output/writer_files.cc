// See writer.h: the files' lifecycle on the writer thread. The ledger of the collective log's lines
// (which records each holds, which losses it states), the check that the files still have a name,
// opening them again when they were removed, and the count of what is lost at exit.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "common/record_files.h"
#include "profiler_plugin/output/writer.h"

namespace railtune::profiler::output {
namespace {

constexpr unsigned long kFileFlags = NCCL_PROFILE;
constexpr ProfileFile kFiles[] = {ProfileFile::Collectives, ProfileFile::Net, ProfileFile::Trace};
constexpr char kRemovedReason[] = "the file was removed while the job ran";

// A file whose last name is gone (unlink, rm -rf of its folder): what is written to it is lost.
bool removed(int fd) {
  struct stat info {};
  return fd >= 0 && fstat(fd, &info) == 0 && info.st_nlink == 0;
}

int64_t nowRealtimeNs() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

void addLoss(DroppedNotice* sum, uint64_t records, uint64_t operations, uint64_t events) {
  sum->records += records;
  sum->operations += operations;
  sum->events += events;
}

size_t fileIndex(ProfileFile file) {
  return static_cast<size_t>(file);
}

}  // namespace

int& ProfileWriter::fdOf(ProfileFile file) {
  return file == ProfileFile::Collectives ? collectivesFd_ : file == ProfileFile::Net ? netFd_ : traceFd_;
}

std::string& ProfileWriter::textOf(ProfileFile file) {
  return file == ProfileFile::Collectives ? collectives_ : file == ProfileFile::Net ? net_ : trace_;
}

// The line appended to collectives_ from `start` on (with its newline).
void ProfileWriter::noteLine(size_t start, uint32_t records, const DroppedNotice& loss) {
  lines_.push_back(BufferedLine{static_cast<uint32_t>(collectives_.size() - start), records, loss.records,
                                loss.operations, loss.events});
}

// `bytes` of collectives_ reached the current file: the lines they complete are in it now.
void ProfileWriter::settleWritten(size_t bytes) {
  while (bytes > 0 && linesHead_ < lines_.size()) {
    const BufferedLine& line = lines_[linesHead_];
    const size_t rest = line.length - frontWritten_;
    if (bytes < rest) {
      frontWritten_ += bytes;
      return;
    }
    bytes -= rest;
    frontWritten_ = 0;
    inFileRecords_ += line.records;
    addLoss(&inFileLoss_, line.lostRecords, line.lostOperations, line.lostEvents);
    ++linesHead_;
  }
  if (linesHead_ == lines_.size()) {
    lines_.clear();  // keeps its capacity: no allocation in the steady state
    linesHead_ = 0;
  } else if (linesHead_ >= 1024 && linesHead_ * 2 >= lines_.size()) {
    lines_.erase(lines_.begin(), lines_.begin() + static_cast<std::ptrdiff_t>(linesHead_));
    linesHead_ = 0;
  }
}

// What the lines not yet written say and are, with what no line says yet.
DroppedNotice ProfileWriter::unwrittenLoss() const {
  DroppedNotice sum = pendingLoss_;
  addLoss(&sum, carried_.records, carried_.operations, carried_.events);
  for (size_t i = linesHead_; i < lines_.size(); ++i)
    addLoss(&sum, lines_[i].records + lines_[i].lostRecords, lines_[i].lostOperations, lines_[i].lostEvents);
  return sum;
}

void ProfileWriter::countLost(uint64_t records) {
  if (records == 0) return;
  lostTotal_.fetch_add(records, std::memory_order_relaxed);
  if (!options_.prometheusPath.empty()) {
    metrics_.addRecordsDropped(records);
    metricsChanged_ = true;
  }
}

// Whether every file is open under its name, after opening again those that were removed. false: one
// could not be (the text waits, as for a failing disk, and is counted once past its bound).
bool ProfileWriter::filesPresent() {
  bool anyGone = false;
  std::string firstRemoved;  // "" : none removed since the last check
  const uint64_t lostBefore = carried_.records;
  for (ProfileFile file : kFiles) {
    if (!gone_[fileIndex(file)] && removed(fdOf(file))) {
      if (firstRemoved.empty()) firstRemoved = path(file);
      fileRemoved(file);
    }
    anyGone = anyGone || gone_[fileIndex(file)];
  }
  if (!anyGone) return true;
  if (!firstRemoved.empty() && removedWarned_.first()) {
    RT_WARN(log_, kFileFlags,
            "profile output: %s was removed while the job ran: %llu records written to the collective log are "
            "lost; writing the removed files again (the folder made again if missing), the collective log's first "
            "line counting them",
            firstRemoved.c_str(), static_cast<unsigned long long>(carried_.records - lostBefore));
  }
  return reopenFiles();
}

// The file has no name any more: close it; what it holds is lost.
void ProfileWriter::fileRemoved(ProfileFile file) {
  int& fd = fdOf(file);
  close(fd);
  fd = -1;
  gone_[fileIndex(file)] = true;
  std::string& text = textOf(file);
  if (file != ProfileFile::Collectives) {
    // The rest of a line (an event) begun in the removed file: the new file starts at the next one.
    if (torn_[fileIndex(file)]) text.erase(0, std::min(text.size(), text.find('\n') + 1));
    torn_[fileIndex(file)] = false;
    return;
  }
  if (frontWritten_ > 0) {  // a line begun in the removed file is lost with it
    settleWritten(lines_[linesHead_].length - frontWritten_);
    text.erase(0, std::min(text.size(), text.find('\n') + 1));
  }
  torn_[fileIndex(file)] = false;
  countLost(inFileRecords_);
  addLoss(&carried_, inFileRecords_ + inFileLoss_.records, inFileLoss_.operations, inFileLoss_.events);
  inFileRecords_ = 0;
  inFileLoss_ = DroppedNotice{};
}

bool ProfileWriter::reopenFiles() {
  int folderFd = -1;
  try {
    folderFd = openRecordFolder(options_.directory);  // made again, with its parents, when missing
    for (ProfileFile file : kFiles) {
      if (!gone_[fileIndex(file)]) continue;
      fdOf(file) = openForAppendAt(folderFd, options_.directory, profileFileName(options_.identity, file, tag_),
                                   file == ProfileFile::Trace);
      gone_[fileIndex(file)] = false;
      startFile(file);
    }
  } catch (const std::exception& e) {
    if (folderFd >= 0) close(folderFd);
    reopenFailed(e.what());
    return false;
  }
  close(folderFd);
  return true;
}

// A file opened again starts as a new one: the collective log with a header that counts what the removed
// one held, the trace with its opening bracket.
void ProfileWriter::startFile(ProfileFile file) {
  if (file == ProfileFile::Collectives) {
    std::string header;
    appendHeaderLine(&header, options_.identity, nowRealtimeNs(), options_.bootId, carried_, kRemovedReason,
                     options_.profilerVersion);
    header += '\n';
    collectives_.insert(0, header);
    lines_.insert(
        lines_.begin() + static_cast<std::ptrdiff_t>(linesHead_),
        BufferedLine{static_cast<uint32_t>(header.size()), 0, carried_.records, carried_.operations, carried_.events});
    carried_ = DroppedNotice{};
  } else if (file == ProfileFile::Trace) {
    if (trace_.empty()) traceRenderer_.restart();  // the next event opens the array and names its lanes again
    trace_.insert(0, "[\n");
  }
}

void ProfileWriter::reopenFailed(const std::string& reason) {
  if (startOrBackOff())
    RT_WARN(log_, kFileFlags,
            "profile output: cannot open its files again: %s; retrying after %lld ms, then at doubling intervals "
            "(records past 4 MiB of text meanwhile are counted lost)",
            reason.c_str(), static_cast<long long>(backoff_.count()));
}

// After the final flush: what is still not written never will be. It is counted in one last dropped line
// when the collective log takes it, and always in a WARN.
void ProfileWriter::accountAtExit() {
  if (options_.directory.empty()) return;
  DroppedNotice lost = unwrittenLoss();
  if (!lost.any()) return;
  uint64_t unwrittenRecords = 0;
  for (size_t i = linesHead_; i < lines_.size(); ++i) unwrittenRecords += lines_[i].records;
  countLost(unwrittenRecords);
  const bool torn = frontWritten_ > 0 || torn_[0];
  for (ProfileFile file : kFiles) textOf(file).clear();
  lines_.clear();
  linesHead_ = frontWritten_ = 0;
  pendingLoss_ = carried_ = DroppedNotice{};
  bool counted = false;
  if (collectivesFd_ >= 0 && !removed(collectivesFd_)) {
    lost.realtimeNs = nowRealtimeNs();
    if (torn) collectives_ += '\n';  // ends the line the disk cut short, so that the count is a line of its own
    appendDroppedLine(&collectives_, options_.identity, lost);
    collectives_ += '\n';
    counted = writeOut(collectivesFd_, &collectives_);
    collectives_.clear();
  }
  RT_WARN(log_, kFileFlags,
          "profile output: at exit %llu records could not be written to %s and are lost (with %llu operations and "
          "%llu events the captures lost)%s",
          static_cast<unsigned long long>(lost.records), options_.directory.c_str(),
          static_cast<unsigned long long>(lost.operations), static_cast<unsigned long long>(lost.events),
          counted ? "; the collective log's last line counts them" : "");
  if (!options_.prometheusPath.empty()) {
    const std::string error = writeFileAtomically(options_.prometheusPath, metrics_.render());
    if (!error.empty() && prometheusFailed_.first()) RT_WARN(log_, kFileFlags, "profile metrics: %s", error.c_str());
  }
}

}  // namespace railtune::profiler::output
