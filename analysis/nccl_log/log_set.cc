// Routing NCCL INFO lines to the processes that printed them (log_set.h).
#include "analysis/nccl_log/log_set.h"

#include <sys/stat.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "analysis/ingest/folder_walk.h"
#include "analysis/ingest/line_reader.h"
#include "common/work_pool.h"

namespace railtune::analysis::nccl_log {

namespace {

// NCCL's header host is gethostname()'s name cut at its first '.' (misc/utils.cc:73-81), '%' and '/' made '-'
// (debug.cc:113-125, v2.30.7; v2.7.8 debug.cc:135): letters, digits, '-' and '_'. A header whose host holds
// anything else ("[0host2" where one writer's "[0" ran into another's line, "0.25host2" where a loss value
// did) is not NCCL's.
bool isHostName(std::string_view host) {
  return std::all_of(host.begin(), host.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

// The lines of a process kept while it is not established: enough to name a splice's lines one by one.
constexpr size_t kUnconfirmedKept = 256;

// The communicator a Channel line of `rank` on thread `tid` belongs to: the latest announced on the same
// thread with that rank, else the only one in the process with that rank; -1 when the log cannot say.
int commOf(const Process& process, int tid, int rank) {
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

// The communicator a Channel line belongs to, once its file is read. From 2.18.3 a communicator's "Init START"
// precedes its Channel lines; before, its only line ("Init COMPLETE") follows them (init.cc: v2.16.5
// init.cc:1109, v2.18.6 init.cc:1356): a line is tied to the next such line of its thread and rank, else to
// the latest before it, else to the process's only communicator of its rank.
int commOfLine(const Process& process, const NetConnection& c) {
  const int rank = c.localRank();
  for (size_t i = static_cast<size_t>(c.commsBefore); i < process.comms.size(); ++i) {
    const Comm& k = process.comms[i];
    if (k.tid == c.tid && k.rank == rank && !k.started) return static_cast<int>(i);
  }
  for (size_t i = std::min(static_cast<size_t>(c.commsBefore), process.comms.size()); i-- > 0;) {
    if (process.comms[i].tid == c.tid && process.comms[i].rank == rank) return static_cast<int>(i);
  }
  return commOf(process, c.tid, rank);
}

}  // namespace

struct LogSetBuilder::State {
  LogSet set;
  std::string file;
  std::unordered_map<std::string, size_t> processIndex;  // "host:pid"
  std::string key;                                       // reused, so that a line allocates nothing

  Process& processOf(const LineHeader& header, int number) {
    key = header.host;
    key += ':';
    key += std::to_string(header.pid);
    const auto [it, added] = processIndex.try_emplace(key, set.processes.size());
    if (added) {
      Process process;
      process.host = std::string(header.host);
      process.pid = header.pid;
      process.firstSeen = file + ":" + std::to_string(number);
      set.processes.push_back(std::move(process));
    }
    Process& process = set.processes[it->second];
    ++process.ncclLines;
    if (!process.established && process.unconfirmed.size() < kUnconfirmedKept)
      process.unconfirmed.push_back(LineRef{static_cast<uint32_t>(set.files.size() - 1), number});
    return process;
  }

  void bad(int number, std::string message) {
    ++set.counts.badLines;
    set.diagnostics.push_back({file + ":" + std::to_string(number), std::move(message) + "; skipped"});
  }

  void addComm(Process& process, const CommLine& line, int tid) {
    process.established = true;
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
    comm->started = comm->started || line.start;
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
    c.commsBefore = static_cast<int>(process.comms.size());
    c.at = LineRef{static_cast<uint32_t>(set.files.size() - 1), number};
    process.connections.push_back(std::move(c));
  }

  void addDeviceList(Process& process, DeviceList&& list) {
    process.established = true;
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
    // One writer's line cut by another's: "h1:12:34 [0] NCCL INFO Chanh2:56:78 [1] NCCL INFO Channel 00/0 ...".
    // Neither half can be trusted.
    if (message.find("] NCCL ") != std::string_view::npos) {
      bad(number, "two writers' lines spliced into one (a second NCCL header inside the message)");
      return;
    }
    if (!isHostName(header.host)) {
      bad(number, "the header's host '" + printable(header.host) +
                      "' is not a host name (two writers' lines spliced into one?)");
      return;
    }
    Process& process = processOf(header, number);
    if (message.empty()) return;
    const char first = message.front();
    if (first != 'C' && first != 'N' && first != 'U' && first != '[' && first != 'n' && first != 'c') return;
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
        process.established = true;
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
        process.established = true;
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
  // The rest of a Channel line whose start another writer's output cut off ("nel 00/0 : 1[1] -> 8[0] [send]
  // via NET/IB/0"): a connection whose header is lost, counted, never taken for another program's line.
  if (line.find(" -> ") != std::string_view::npos && (line.find("] [send] via ") != std::string_view::npos ||
                                                      line.find("] [receive] via ") != std::string_view::npos)) {
    s.bad(number, "the rest of a Channel line without its header (its start was cut off by another writer)");
    return;
  }
  ++s.set.counts.otherLines;
}

void LogSetBuilder::addDiagnostic(Diagnostic diagnostic) {
  state_->set.diagnostics.push_back(std::move(diagnostic));
}

void LogSetBuilder::addCutLine(std::string_view line, int number) {
  State& s = *state_;
  ++s.set.counts.lines;
  if (!splitHeader(line) && line.find("NCCL") == std::string_view::npos) {
    ++s.set.counts.otherLines;
    return;
  }
  s.bad(number, "the file ends inside this line (no newline): cut short, not read");
}

namespace {

// What tells one communicator of a process from another: its commId when printed, else its pointer.
std::string commIdentity(const Process& process, int comm) {
  if (comm < 0) return "?";
  const Comm& c = process.comms[static_cast<size_t>(comm)];
  return c.commId ? "id" + std::to_string(*c.commId) : "at" + c.pointer;
}

// A connection end is one however many files carry its line (a job's stdout and its NCCL_DEBUG_FILE, the same
// path given twice): keyed on what identifies it in its process, the first line read kept.
void dropRepeatedLines(Process& process, ReadCounts* counts) {
  std::set<std::tuple<std::string, int, int, int, int, bool>> seen;
  const size_t before = process.connections.size();
  std::erase_if(process.connections, [&](const NetConnection& c) {
    return !seen.emplace(commIdentity(process, c.comm), c.channel, c.connIndex, c.fromRank, c.toRank, c.send).second;
  });
  counts->duplicateLines += before - process.connections.size();
}

// Whether `process` is a spliced header: a few lines whose host is that of another process with the same pid,
// established, with text glued before it ("3host2" or "losshost2" where "host1:12:3" or "loss" ran into
// "host2:56:78 [1] NCCL INFO ..."). A real process prints dozens of lines; two hosts whose names end alike may
// well share a pid (containers), so a process with more lines than a few splices make is never taken for one.
constexpr uint64_t kMostSplicedLines = 3;
const Process* gluedOnto(const Process& process, const std::vector<Process>& all) {
  if (process.ncclLines > kMostSplicedLines) return nullptr;
  for (const Process& other : all) {
    if (!other.established || other.pid != process.pid || other.host.size() == process.host.size()) continue;
    // Text glued before the host, or the host's front cut off by the other writer ("-1-33" of "ip-10-0-1-33").
    if (process.host.ends_with(other.host) || other.host.ends_with(process.host)) return &other;
  }
  return nullptr;
}

// Processes that are not processes: each of their lines is a bad line, named.
void dropSplicedProcesses(LogSet& set) {
  const bool anyEstablished =
      std::any_of(set.processes.begin(), set.processes.end(), [](const Process& p) { return p.established; });
  if (!anyEstablished) {
    if (!set.processes.empty())
      set.diagnostics.push_back({set.processes.front().firstSeen,
                                 "no process printed an Init, device-list, version or network line (NCCL_DEBUG_SUBSYS "
                                 "without INIT?): hosts are taken from the Channel lines' headers alone"});
    return;
  }
  std::vector<bool> spliced(set.processes.size());
  std::vector<std::string> why(set.processes.size());
  for (size_t i = 0; i < set.processes.size(); ++i) {
    const Process& p = set.processes[i];
    const std::string name = p.host + ":" + std::to_string(p.pid);
    if (const Process* real = gluedOnto(p, set.processes)) {
      spliced[i] = true;
      why[i] = "the header names " + name + ": process " + real->host + ":" + std::to_string(real->pid) +
               " with its host cut or another writer's text glued before it (two writers' output spliced into one "
               "line); skipped";
    } else if (!p.established) {
      spliced[i] = true;
      why[i] = "the header names " + name +
               ", a process that printed no Init, device-list, version or network line in the logs given (two "
               "writers' output spliced into one line, or its INIT lines missing); skipped";
    }
  }
  for (size_t i = 0; i < set.processes.size(); ++i) {
    if (!spliced[i]) continue;
    const Process& p = set.processes[i];
    for (const LineRef& at : p.unconfirmed) set.diagnostics.push_back({set.where(at), why[i]});
    if (p.ncclLines > p.unconfirmed.size())
      set.diagnostics.push_back({p.firstSeen, "... and " + std::to_string(p.ncclLines - p.unconfirmed.size()) +
                                                  " more lines naming " + p.host + ":" + std::to_string(p.pid)});
    set.counts.badLines += p.ncclLines;
  }
  size_t kept = 0;
  for (size_t i = 0; i < set.processes.size(); ++i) {
    if (spliced[i]) continue;
    if (kept != i) set.processes[kept] = std::move(set.processes[i]);
    ++kept;
  }
  set.processes.resize(kept);
}

void settle(LogSet& set) {
  dropSplicedProcesses(set);
  for (Process& process : set.processes) {
    // Before 2.18.3 a communicator's only line (Init COMPLETE) follows its Channel lines (init.cc): they are
    // tied to it once every line is read.
    for (NetConnection& c : process.connections)
      if (c.comm < 0) c.comm = commOf(process, c.tid, c.localRank());
    dropRepeatedLines(process, &set.counts);
    process.unconfirmed.clear();
    process.unconfirmed.shrink_to_fit();
  }
  std::sort(set.processes.begin(), set.processes.end(),
            [](const Process& a, const Process& b) { return std::tie(a.host, a.pid) < std::tie(b.host, b.pid); });
}

}  // namespace

LogSet LogSetBuilder::finish(bool settleSet) {
  LogSet set = std::move(state_->set);
  for (Process& process : set.processes)
    for (NetConnection& c : process.connections) c.comm = commOfLine(process, c);
  if (settleSet) settle(set);
  *state_ = State{};
  return set;
}

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
