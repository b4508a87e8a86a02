// Routing NCCL INFO lines to the processes that printed them (log_set.h). Settling the set once every line
// is read is log_settle.cc's; reading files and folders, and merging what each file said, log_read.cc's.
#include "analysis/nccl_log/log_set.h"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>

#include "analysis/nccl_log/log_settle.h"

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

  // A "Channel" line: a connection (kept when it goes over the network, else counted), or one that cannot
  // be read.
  void addChannelMessage(Process& process, const LineHeader& header, int number) {
    const std::string_view message = header.message;
    std::string why;
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

  // "NCCL version ..." or a network's device list ("NET/IB : Using ...").
  void addVersionOrDevices(Process& process, std::string_view message, int number) {
    if (const std::optional<std::string_view> version = versionOf(message)) {
      process.version = std::string(*version);
      process.established = true;
      return;
    }
    std::string why;
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

  // "Using network IB".
  void addNetwork(Process& process, std::string_view message) {
    if (const std::optional<std::string_view> network = networkOf(message)) {
      process.established = true;
      std::string name = printable(*network);
      if (std::find(process.networks.begin(), process.networks.end(), name) == process.networks.end())
        process.networks.push_back(std::move(name));
    }
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
    switch (message.front()) {
      case 'C':
        addChannelMessage(process, header, number);
        return;
      case 'N':
        addVersionOrDevices(process, message, number);
        return;
      case 'U':
        addNetwork(process, message);
        return;
      case '[':
      case 'n':
      case 'c':
        break;
      default:
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

LogSet LogSetBuilder::finish(bool settleSet) {
  LogSet set = std::move(state_->set);
  for (Process& process : set.processes)
    for (NetConnection& c : process.connections) c.comm = commOfLine(process, c);
  if (settleSet) settle(set);
  *state_ = State{};
  return set;
}

}  // namespace railtune::analysis::nccl_log
