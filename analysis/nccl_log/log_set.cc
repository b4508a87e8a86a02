// Routing NCCL INFO lines to the processes that printed them (log_set.h).
#include "analysis/nccl_log/log_set.h"

#include <sys/stat.h>
#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "analysis/ingest/folder_walk.h"
#include "analysis/ingest/line_reader.h"
#include "analysis/ingest/parallel_for.h"

namespace railtune::analysis::nccl_log {

struct LogSetBuilder::State {
  LogSet set;
  std::string file;
  std::unordered_map<std::string, size_t> processIndex;  // "host:pid"
  std::string key;                                       // reused, so that a line allocates nothing

  Process& processOf(const LineHeader& header, int number) {
    key = printable(header.host);  // the name the records carry: two spellings of it are one process
    key += ':';
    key += std::to_string(header.pid);
    const auto [it, added] = processIndex.try_emplace(key, set.processes.size());
    if (added) {
      Process process;
      process.host = key.substr(0, key.rfind(':'));
      process.pid = header.pid;
      process.firstSeen = file + ":" + std::to_string(number);
      set.processes.push_back(std::move(process));
    }
    return set.processes[it->second];
  }

  void bad(int number, std::string message) {
    ++set.counts.badLines;
    set.diagnostics.push_back({file + ":" + std::to_string(number), std::move(message) + "; skipped"});
  }

  // The communicator a Channel line of `rank` on thread `tid` belongs to: the latest announced on the same
  // thread with that rank, else the only one in the process with that rank; -1 when the log cannot say.
  static int commOf(const Process& process, int tid, int rank) {
    for (size_t i = process.comms.size(); i-- > 0;) {
      if (process.comms[i].tid == tid && process.comms[i].rank == rank) return static_cast<int>(i);
    }
    int found = -1;
    for (size_t i = 0; i < process.comms.size(); ++i) {
      if (process.comms[i].rank != rank) continue;
      if (found >= 0 && process.comms[static_cast<size_t>(found)].pointer != process.comms[i].pointer) return -1;
      found = static_cast<int>(i);
    }
    return found;
  }

  void addComm(Process& process, const CommLine& line, int tid) {
    // "Init START", then "comm 0x.. rank .. nRanks .. nNodes", then "Init COMPLETE": one communicator, whose
    // facts accumulate. The same pointer after a destroy is a new one only when a START line says so.
    Comm* comm = nullptr;
    for (size_t i = process.comms.size(); i-- > 0;) {
      if (process.comms[i].pointer == line.pointer && process.comms[i].rank == line.rank) {
        comm = &process.comms[i];
        break;
      }
    }
    if (comm == nullptr || (line.commId && comm->commId && *comm->commId != *line.commId)) {
      process.comms.push_back(Comm{});
      comm = &process.comms.back();
      comm->pointer = std::string(line.pointer);
      comm->tid = tid;
    }
    comm->rank = line.rank;
    if (line.nRanks > 0) comm->nRanks = line.nRanks;
    if (line.commId) comm->commId = line.commId;
    if (line.cudaDev >= 0) comm->cudaDev = line.cudaDev;
    if (line.nvmlDev >= 0) comm->nvmlDev = line.nvmlDev;
    if (line.busId) comm->busId = line.busId;
  }

  void addChannel(Process& process, const LineHeader& header, const ChannelLine& line, int number) {
    switch (line.via) {
      case ChannelVia::Net:
        break;
      case ChannelVia::P2p:
        ++process.local.p2p;
        return;
      case ChannelVia::Shm:
        ++process.local.shm;
        return;
      case ChannelVia::Nvls:
        ++process.local.nvls;
        return;
      case ChannelVia::CollNet:
        ++process.local.collnet;
        return;
      case ChannelVia::Other:
        ++process.local.other;
        return;
    }
    NetConnection c;
    c.tid = header.tid;
    c.headerDevice = header.device;
    c.channel = line.channel;
    c.connIndex = line.connIndex;
    c.fromRank = line.fromRank;
    c.toRank = line.toRank;
    c.fromTag = std::string(line.fromTag);
    c.toTag = std::string(line.toTag);
    c.send = line.side == ChannelLine::Side::Send;
    c.net = printable(line.net);
    c.netDevice = line.netDevice;
    c.proxyRank = line.proxyRank;
    c.gdr = line.gdr;
    c.shared = line.shared;
    c.comm = commOf(process, header.tid, c.localRank());
    c.at = LineRef{static_cast<uint32_t>(set.files.size() - 1), number};
    process.connections.push_back(std::move(c));
  }

  void addDeviceList(Process& process, DeviceList&& list) {
    for (DeviceList& known : process.deviceLists) {
      if (known.net == list.net) {
        known = std::move(list);
        return;
      }
    }
    process.deviceLists.push_back(std::move(list));
  }

  void addMessage(const LineHeader& header, int number) {
    const std::string_view message = header.message;
    if (message.empty()) return;
    const char first = message.front();
    if (first != 'C' && first != 'N' && first != 'U' && first != '[' && first != 'n' && first != 'c') return;
    Process& process = processOf(header, number);
    std::string why;
    if (first == 'C') {
      ChannelLine line;
      switch (parseChannel(message, &line, &why)) {
        case ChannelParse::Ok:
          addChannel(process, header, line, number);
          return;
        case ChannelParse::Bad:
          bad(number, "unreadable Channel line: " + why);
          return;
        case ChannelParse::NotChannel:
          // "CollNet 00/0 : 3 [send] via COLLNET/IB/0" (coll_net.cc): the peer is the switch, not a rank.
          if (message.starts_with("Coll") && message.find("via COLLNET/") != std::string_view::npos)
            ++process.local.collnet;
          return;
      }
    }
    if (first == 'N') {
      if (const std::optional<std::string_view> version = versionOf(message)) {
        process.version = std::string(*version);
        return;
      }
      DeviceList list;
      switch (parseDeviceList(message, &list, &why)) {
        case DeviceListParse::Ok:
          if (list.cut) {
            set.diagnostics.push_back(
                {file + ":" + std::to_string(number), "the NET/" + list.net + " device list is cut short after " +
                                                          std::to_string(list.devices.size()) +
                                                          " devices (NCCL before 2.29 cuts lines at 1023 characters): "
                                                          "connections on later devices have no HCA name"});
          }
          addDeviceList(process, std::move(list));
          return;
        case DeviceListParse::Bad:
          bad(number, "unreadable device list: " + why);
          return;
        case DeviceListParse::NotDeviceList:
          return;
      }
    }
    if (first == 'U') {
      if (const std::optional<std::string_view> network = networkOf(message)) {
        std::string name = printable(*network);
        if (std::find(process.networks.begin(), process.networks.end(), name) == process.networks.end())
          process.networks.push_back(std::move(name));
      }
      return;
    }
    if (const std::optional<CommLine> comm = parseCommLine(message)) addComm(process, *comm, header.tid);
  }
};

LogSetBuilder::LogSetBuilder() : state_(new State) {}
LogSetBuilder::~LogSetBuilder() {
  delete state_;
}

void LogSetBuilder::startFile(const std::string& name) {
  state_->file = name;
  state_->set.files.push_back(name);
  ++state_->set.counts.files;
}

void LogSetBuilder::addLine(std::string_view line, int number) {
  State& s = *state_;
  ++s.set.counts.lines;
  if (const std::optional<LineHeader> header = splitHeader(line)) {
    ++s.set.counts.ncclLines;
    s.addMessage(*header, number);
    return;
  }
  if (const std::optional<std::string_view> version = versionOf(line)) {
    if (s.set.version.empty()) s.set.version = std::string(*version);
    return;
  }
  ++s.set.counts.otherLines;
}

void LogSetBuilder::addDiagnostic(Diagnostic diagnostic) {
  state_->set.diagnostics.push_back(std::move(diagnostic));
}

namespace {

// The same Channel line read twice (a job's stdout and its NCCL_DEBUG_FILE both given) is one connection.
void dropRepeatedLines(Process& process, ReadCounts* counts) {
  std::set<std::tuple<int, int, int, int, int, bool>> seen;
  const size_t before = process.connections.size();
  std::erase_if(process.connections, [&](const NetConnection& c) {
    return !seen.emplace(c.comm, c.channel, c.connIndex, c.fromRank, c.toRank, c.send).second;
  });
  counts->duplicateLines += before - process.connections.size();
}

}  // namespace

LogSet LogSetBuilder::finish() {
  LogSet set = std::move(state_->set);
  for (Process& process : set.processes) dropRepeatedLines(process, &set.counts);
  std::sort(set.processes.begin(), set.processes.end(),
            [](const Process& a, const Process& b) { return std::tie(a.host, a.pid) < std::tie(b.host, b.pid); });
  *state_ = State{};
  return set;
}

namespace {

// Files and the files below folders, in the order given (each folder's sorted).
std::vector<std::string> expand(const std::vector<std::string>& paths, std::vector<Diagnostic>* diagnostics) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) {
      diagnostics->push_back({path, "cannot read: no such file or folder"});
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
      diagnostics->push_back({path, "not a regular file or a folder (a FIFO, socket or device); skipped"});
    }
  }
  return files;
}

LogSet readOne(const std::string& path) {
  LogSetBuilder builder;
  builder.startFile(path);
  ingest::LineHandlers handlers;
  handlers.line = [&builder](std::string_view line, int number, size_t) {
    builder.addLine(line, number);
    return true;
  };
  handlers.tooLong = [&builder, &path](int number, size_t bytes) {
    builder.addDiagnostic({path + ":" + std::to_string(number), ingest::tooLongMessage(bytes)});
  };
  const ingest::ReadOutcome outcome = ingest::forEachLine(path, 0, handlers);
  if (!outcome.error.empty()) builder.addDiagnostic({path, outcome.error});
  LogSet set = builder.finish();
  if (outcome.error.empty() && set.counts.ncclLines == 0 && set.version.empty())
    set.diagnostics.push_back({path, "no NCCL log line in this file (NCCL_DEBUG=INFO not set?)"});
  return set;
}

// Appends `from` (a later file) to `into`: a process seen in both keeps one entry, its lines in file order.
void merge(LogSet& into, LogSet&& from) {
  const auto fileOffset = static_cast<uint32_t>(into.files.size());
  for (std::string& file : from.files) into.files.push_back(std::move(file));
  for (Process& process : from.processes)
    for (NetConnection& c : process.connections) c.at.file += fileOffset;
  std::map<std::pair<std::string, int>, size_t> index;
  for (size_t i = 0; i < into.processes.size(); ++i) index[{into.processes[i].host, into.processes[i].pid}] = i;
  for (Process& process : from.processes) {
    const auto it = index.find({process.host, process.pid});
    if (it == index.end()) {
      into.processes.push_back(std::move(process));
      continue;
    }
    Process& known = into.processes[it->second];
    const int offset = static_cast<int>(known.comms.size());
    for (NetConnection& c : process.connections) {
      if (c.comm >= 0) c.comm += offset;
      known.connections.push_back(std::move(c));
    }
    for (Comm& comm : process.comms) known.comms.push_back(std::move(comm));
    for (DeviceList& list : process.deviceLists) {
      const auto same = std::find_if(known.deviceLists.begin(), known.deviceLists.end(),
                                     [&list](const DeviceList& k) { return k.net == list.net; });
      if (same == known.deviceLists.end()) {
        known.deviceLists.push_back(std::move(list));
      } else {
        *same = std::move(list);
      }
    }
    for (std::string& network : process.networks) {
      if (std::find(known.networks.begin(), known.networks.end(), network) == known.networks.end())
        known.networks.push_back(std::move(network));
    }
    if (known.version.empty()) known.version = process.version;
    known.local.p2p += process.local.p2p;
    known.local.shm += process.local.shm;
    known.local.nvls += process.local.nvls;
    known.local.collnet += process.local.collnet;
    known.local.other += process.local.other;
  }
  if (into.version.empty()) into.version = from.version;
  for (Diagnostic& d : from.diagnostics) into.diagnostics.push_back(std::move(d));
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
  const std::vector<std::string> files = expand(paths, &all.diagnostics);
  std::vector<LogSet> sets(files.size());
  ingest::parallelFor(files.size(), [&](size_t i) { sets[i] = readOne(files[i]); });
  for (LogSet& set : sets) merge(all, std::move(set));
  for (Process& process : all.processes) dropRepeatedLines(process, &all.counts);
  std::sort(all.processes.begin(), all.processes.end(),
            [](const Process& a, const Process& b) { return std::tie(a.host, a.pid) < std::tie(b.host, b.pid); });
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
