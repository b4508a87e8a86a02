// Reading NCCL logs from files and folders (log_set.h, readLogs): the paths given expanded, each file read on
// its own (in parallel), and what the files said of one process merged into one, before the set is settled.
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>

#include "analysis/ingest/folder_walk.h"
#include "analysis/ingest/line_reader.h"
#include "analysis/nccl_log/log_set.h"
#include "analysis/nccl_log/log_settle.h"
#include "common/work_pool.h"

namespace railtune::analysis::nccl_log {

namespace {

// Why stat() failed, in the user's words: "no such file or folder", "too many levels of symbolic links" (a link
// loop given by name: ELOOP), "permission denied" (a folder on the way that cannot be searched).
std::string whyNoFile(int error) {
  if (error == ENOENT) return "no such file or folder";
  std::string why = std::strerror(error);
  if (!why.empty()) why.front() = static_cast<char>(std::tolower(static_cast<unsigned char>(why.front())));
  return why;
}

// Files and the files below folders, in the order given (each folder's sorted); the paths given that are
// neither go to `unreadable`.
std::vector<std::string> expand(const std::vector<std::string>& paths, std::vector<Diagnostic>* diagnostics,
                                std::vector<Diagnostic>* unreadable) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) {
      unreadable->push_back({path, "cannot read: " + whyNoFile(errno)});
      continue;
    }
    if (S_ISDIR(info.st_mode)) {
      // railtune's own outputs beside the logs (`exec --capture` puts the profiler's there) are not NCCL logs.
      const auto notRailtunes = [](std::string_view name) {
        return !name.ends_with(".jsonl") && !name.ends_with(".json") && !name.ends_with(".prom");
      };
      const ingest::FolderWalk walk = ingest::walkLogFolders({path}, notRailtunes);
      for (const ingest::WalkNote& note : walk.notes) diagnostics->push_back({note.path, note.message});
      for (const ingest::WalkedFile& file : walk.files) files.push_back(file.path);
    } else if (S_ISREG(info.st_mode)) {
      files.push_back(path);
    } else {
      unreadable->push_back({path, "not a regular file or a folder (a FIFO, socket or device); skipped"});
    }
  }
  return files;
}

// Whether a non-empty file's last byte is not a newline: NCCL ends every line with one, so its last line
// was cut (a log copied while written, a killed job's buffer).
bool endsInsideALine(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return false;
  bool cut = false;
  if (std::fseek(file, -1, SEEK_END) == 0) cut = std::fgetc(file) != '\n';
  std::fclose(file);
  return cut;
}

LogSet readOne(const std::string& path) {
  LogSetBuilder builder;
  builder.startFile(path);
  // A file cut inside its last line: each line is read one line late, so that the last is never read.
  const bool cut = endsInsideALine(path);
  std::string pending;
  int pendingNumber = 0;
  ingest::LineHandlers handlers;
  handlers.line = [&](std::string_view line, int number, size_t) {
    if (!cut) {
      builder.addLine(line, number);
      return true;
    }
    if (pendingNumber > 0) builder.addLine(pending, pendingNumber);
    pending.assign(line);
    pendingNumber = number;
    return true;
  };
  handlers.tooLong = [&builder, &path](int number, size_t bytes) {
    builder.addDiagnostic({path + ":" + std::to_string(number), ingest::tooLongMessage(bytes)});
  };
  const ingest::ReadOutcome outcome = ingest::forEachLine(path, 0, handlers);
  if (!outcome.error.empty()) {  // named whole, nothing of it imported: what a failed read left may mislead
    LogSet unread;
    unread.unreadable.push_back({path, outcome.reason});
    return unread;
  }
  if (pendingNumber > 0) builder.addCutLine(pending, pendingNumber);
  LogSet set = builder.finish(false);
  if (set.counts.ncclLines == 0 && set.version.empty())
    set.diagnostics.push_back({path, "no NCCL log line in this file (NCCL_DEBUG=INFO not set?)"});
  return set;
}

// The communicator of `known` that `comm` (from another file) is: same pointer and rank, commIds not
// different; -1 when it is new.
int sameComm(const Process& known, const Comm& comm) {
  for (size_t i = 0; i < known.comms.size(); ++i) {
    const Comm& k = known.comms[i];
    if (k.pointer == comm.pointer && k.rank == comm.rank && (!k.commId || !comm.commId || *k.commId == *comm.commId))
      return static_cast<int>(i);
  }
  return -1;
}

void mergeComm(Comm& into, const Comm& from) {
  if (!into.commId) into.commId = from.commId;
  if (into.nRanks == 0) into.nRanks = from.nRanks;
  if (into.cudaDev < 0) into.cudaDev = from.cudaDev;
  if (into.nvmlDev < 0) into.nvmlDev = from.nvmlDev;
  if (!into.busId) into.busId = from.busId;
}

// `from`'s process (a later file's) into `known`: one communicator per communicator, its Channel lines pointed
// at the merged ones (a line whose file had no Init line for it is tied to one now, as if read in one file).
void mergeProcess(Process& known, Process&& from) {
  std::vector<int> commIndex(from.comms.size());
  for (size_t i = 0; i < from.comms.size(); ++i) {
    const int same = sameComm(known, from.comms[i]);
    if (same >= 0) {
      mergeComm(known.comms[static_cast<size_t>(same)], from.comms[i]);
      commIndex[i] = same;
    } else {
      commIndex[i] = static_cast<int>(known.comms.size());
      known.comms.push_back(std::move(from.comms[i]));
    }
  }
  for (NetConnection& c : from.connections) {
    c.comm = c.comm >= 0 ? commIndex[static_cast<size_t>(c.comm)] : commOf(known, c.tid, c.localRank());
    known.connections.push_back(std::move(c));
  }
  for (DeviceList& list : from.deviceLists) {
    const auto same = std::find_if(known.deviceLists.begin(), known.deviceLists.end(),
                                   [&list](const DeviceList& k) { return k.net == list.net; });
    if (same == known.deviceLists.end()) {
      known.deviceLists.push_back(std::move(list));
    } else if (!list.cut || same->cut) {
      *same = std::move(list);
    }
  }
  for (std::string& network : from.networks) {
    if (std::find(known.networks.begin(), known.networks.end(), network) == known.networks.end())
      known.networks.push_back(std::move(network));
  }
  if (known.version.empty()) known.version = from.version;
  known.established = known.established || from.established;
  known.ncclLines += from.ncclLines;
  for (const LineRef& at : from.unconfirmed)
    if (known.unconfirmed.size() < kUnconfirmedKept) known.unconfirmed.push_back(at);
  known.local.p2p += from.local.p2p;
  known.local.shm += from.local.shm;
  known.local.nvls += from.local.nvls;
  known.local.collnet += from.local.collnet;
  known.local.other += from.local.other;
}

// Appends `from` (a later file) to `into`: a process seen in both keeps one entry, its lines in file order.
void merge(LogSet& into, LogSet&& from) {
  const auto fileOffset = static_cast<uint32_t>(into.files.size());
  for (std::string& file : from.files) into.files.push_back(std::move(file));
  for (Process& process : from.processes) {
    for (NetConnection& c : process.connections) c.at.file += fileOffset;
    for (LineRef& at : process.unconfirmed) at.file += fileOffset;
  }
  std::map<std::pair<std::string, int>, size_t> index;
  for (size_t i = 0; i < into.processes.size(); ++i) index[{into.processes[i].host, into.processes[i].pid}] = i;
  for (Process& process : from.processes) {
    const auto it = index.find({process.host, process.pid});
    if (it == index.end()) {
      index[{process.host, process.pid}] = into.processes.size();
      into.processes.push_back(std::move(process));
    } else {
      mergeProcess(into.processes[it->second], std::move(process));
    }
  }
  if (into.version.empty()) into.version = from.version;
  for (Diagnostic& d : from.diagnostics) into.diagnostics.push_back(std::move(d));
  for (Diagnostic& d : from.unreadable) into.unreadable.push_back(std::move(d));
  ReadCounts& c = into.counts;
  c.files += from.counts.files;
  c.lines += from.counts.lines;
  c.ncclLines += from.counts.ncclLines;
  c.otherLines += from.counts.otherLines;
  c.badLines += from.counts.badLines;
  c.duplicateLines += from.counts.duplicateLines;
}

}  // namespace

LogSet readLogs(const std::vector<std::string>& paths) {
  LogSet all;
  const std::vector<std::string> files = expand(paths, &all.diagnostics, &all.unreadable);
  std::vector<LogSet> sets(files.size());
  parallelFor(files.size(), [&](size_t i) { sets[i] = readOne(files[i]); });
  for (LogSet& set : sets) merge(all, std::move(set));
  settle(all);
  return all;
}

bool looksLikeNcclLog(std::string_view text) {
  for (size_t start = 0; start < text.size();) {
    const size_t end = text.find('\n', start);
    const std::string_view line = text.substr(start, end == std::string_view::npos ? text.size() - start : end - start);
    if (splitHeader(line)) return true;
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return false;
}

}  // namespace railtune::analysis::nccl_log
