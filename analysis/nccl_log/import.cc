// From what each process's NCCL log said (log_set.h) to path-log connect records (import.h).
#include "analysis/nccl_log/import.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

namespace railtune::analysis::nccl_log {
namespace {

namespace pl = formats::path_log;

// A communicator as the whole job knows it: its commId, or, where the log printed none (NCCL before
// 2.16), "unknown" — one such group per import, which is right for the single-communicator logs of
// those versions and is said when it is not.
using CommKey = std::optional<uint64_t>;

struct Version {
  int major = 0, minor = 0, patch = 0;
  bool known = false;
  bool atLeast(int a, int b, int c) const { return std::tie(major, minor, patch) >= std::tie(a, b, c); }
};

Version versionOf(const std::string& text) {
  Version v;
  std::string_view rest(text);
  const auto number = [&rest](int* out) {
    const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), *out);
    if (error != std::errc()) return false;
    rest.remove_prefix(static_cast<size_t>(end - rest.data()));
    return true;
  };
  if (!number(&v.major) || !rest.starts_with('.')) return v;
  rest.remove_prefix(1);
  if (!number(&v.minor)) return v;
  if (rest.starts_with('.')) {
    rest.remove_prefix(1);
    number(&v.patch);
  }
  v.known = true;
  return v;
}

// What a Channel line's bracket holds: NCCL up to 2.18.1 prints the GPU's bus id (hex), later the NVML
// device index (net.cc). Without a version line, a bracket with a hex letter or four or more digits is a bus
// id (bus 0 would need a device number above 0xff to print fewer).
bool tagIsBusId(const Version& version, const std::string& tag) {
  if (version.known) return !version.atLeast(2, 18, 3);
  return tag.size() >= 4 || tag.find_first_of("abcdefABCDEF") != std::string::npos;
}

std::optional<int64_t> hexValue(const std::string& tag) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(tag.data(), tag.data() + tag.size(), value, 16);
  if (error != std::errc() || end != tag.data() + tag.size()) return std::nullopt;
  return static_cast<int64_t>(value);
}

// A GPU index as NCCL prints it; -1 for anything else (the path log takes indices up to 2^16).
int decimalValue(const std::string& tag) {
  int value = -1;
  const auto [end, error] = std::from_chars(tag.data(), tag.data() + tag.size(), value);
  if (error != std::errc() || end != tag.data() + tag.size() || value < 0 || value > (1 << 16)) return -1;
  return value;
}

struct Located {
  size_t process = 0;
  size_t connection = 0;
};

// Everything the import looks up across processes.
class Index {
 public:
  explicit Index(const LogSet& logs) {
    for (size_t p = 0; p < logs.processes.size(); ++p) {
      const Process& process = logs.processes[p];
      for (size_t c = 0; c < process.connections.size(); ++c) {
        const NetConnection& conn = process.connections[c];
        const CommKey comm = commKey(process, conn.comm);
        lines_[LineKey{comm, conn.channel, conn.connIndex, conn.fromRank, conn.toRank, conn.send}] = {p, c};
        ranks_[{comm, conn.localRank()}].insert(p);
      }
      for (size_t i = 0; i < process.comms.size(); ++i) {
        const Comm& comm = process.comms[i];
        if (comm.commId) ranks_[{comm.commId, comm.rank}].insert(p);
      }
    }
  }

  static CommKey commKey(const Process& process, int comm) {
    if (comm < 0) return std::nullopt;
    return process.comms[static_cast<size_t>(comm)].commId;
  }

  // The peer's own line for this connection: same channel, connIndex and ranks, the other side.
  std::optional<Located> peerLine(const CommKey& comm, const NetConnection& c) const {
    const auto it = lines_.find(LineKey{comm, c.channel, c.connIndex, c.fromRank, c.toRank, !c.send});
    if (it == lines_.end()) return std::nullopt;
    return it->second;
  }

  // The one process that is `rank` in the communicator; none when no log or several claim it.
  std::optional<size_t> processOfRank(const CommKey& comm, int rank) const {
    const auto it = ranks_.find({comm, rank});
    if (it == ranks_.end() || it->second.size() != 1) return std::nullopt;
    return *it->second.begin();
  }

 private:
  struct LineKey {
    CommKey comm;
    int channel, connIndex, fromRank, toRank;
    bool send;
    bool operator<(const LineKey& o) const {
      return std::tie(comm, channel, connIndex, fromRank, toRank, send) <
             std::tie(o.comm, o.channel, o.connIndex, o.fromRank, o.toRank, o.send);
    }
  };
  std::map<LineKey, Located> lines_;
  std::map<std::pair<CommKey, int>, std::set<size_t>> ranks_;
};

// The net plugins built on NCCL's IB code print NCCL's own "NET/IB : Using [0]mlx5_0:1/IB ..." list under
// their own network's name, and number their devices as that list does: nccl-rdma-sharp-plugins' IBext
// ("IBext", "IBext_v6" ... "IBext_v11") and its UCX transports ("UCX", "UCX-RMA", "UCX-UCT", "UCX-UCT-RD")
// all call nccl_p2p_ib_init, which prints it (p2p_plugin.c:704 at 2f5ac02; names in ib_plugin.c:2202-2318,
// ucx_plugin.c:1197, ucx_rma_plugin.c:1342, ucx_uct_plugin.c:514, ucx_uct_rd_plugin.c:473).
bool listsAsIb(const std::string& net) {
  return net == "IBext" || net.starts_with("IBext_v") || net == "UCX" || net == "UCX-RMA" || net == "UCX-UCT" ||
         net == "UCX-UCT-RD";
}

const DeviceList* deviceListOf(const Process& process, const std::string& net) {
  for (const DeviceList& list : process.deviceLists)
    if (list.net == net) return &list;
  if (!listsAsIb(net)) return nullptr;
  for (const DeviceList& list : process.deviceLists)
    if (list.net == "IB") return &list;
  return nullptr;
}

const NetDevice* deviceOf(const Process& process, const NetConnection& c) {
  const DeviceList* list = deviceListOf(process, c.net);
  if (list == nullptr) return nullptr;
  for (const NetDevice& device : list->devices)
    if (device.index == c.netDevice) return &device;
  return nullptr;
}

// "IB" -> "ib", "Socket" -> "socket" (the names railtune's own transports write); any other network is a
// plugin's, named in nccl.net.
std::string transportOf(const std::string& net) {
  if (net == "IB" || net == "IBext" || net.starts_with("IBext_v")) return "ib";
  if (net == "Socket") return "socket";
  return "plugin";
}

// File names unique within one import and never hidden (renderPathLogs' rule), in the order asked. Unique
// also where case does not count (the folder copied to a case-insensitive file system: "NODE-1", "node-1").
class UniqueFileNames {
 public:
  std::string nameFor(const Identity& identity) {
    std::string name = pl::pathLogFileName(identity, "nccl");
    for (size_t i = 0; i < name.size() && name[i] == '.'; ++i) name[i] = '_';
    if (take(name)) return name;
    // A suffix from the process's own name, so that it does not depend on what else was imported.
    const std::string own = identity.host + ":" + std::to_string(identity.pid);
    uint32_t hash = 2166136261u;  // FNV-1a
    for (const char c : own) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
    const size_t dot = name.find(".nccl.jsonl");
    for (uint32_t attempt = 0;; ++attempt) {
      char suffix[24];
      std::snprintf(suffix, sizeof suffix, "-h%08x", hash + attempt);
      std::string candidate = name.substr(0, dot) + suffix + name.substr(dot);
      if (take(candidate)) return candidate;
    }
  }

 private:
  bool take(const std::string& name) {
    std::string folded = name;
    for (char& c : folded) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return taken_.insert(folded).second;
  }
  std::set<std::string> taken_;  // case folded
};

class Importer {
 public:
  Importer(const LogSet& logs, const ImportOptions& options) : logs_(logs), options_(options), index_(logs) {}

  Import run(const ProcessSink& sink) {
    // Copy-constructed, not assigned: gcc 12 at -O3 on aarch64 sees a null dereference in a vector's
    // copy-assignment here (-Wnull-dereference, a false positive).
    Import out{
        .files = logs_.files, .diagnostics = logs_.diagnostics, .unreadable = logs_.unreadable, .read = logs_.counts};
    for (size_t p = 0; p < logs_.processes.size(); ++p) {
      ImportedProcess process = importProcess(p, &out);
      if (sink) {
        sink(std::move(process));
      } else {
        out.processes.push_back(std::move(process));
      }
    }
    // One line per network: aws-ofi-nccl and other plugins print no device list at all.
    for (const auto& [net, missing] : missingLists_) {
      out.diagnostics.push_back(
          {missing.first, std::to_string(missing.processes) + " process" + (missing.processes == 1 ? "" : "es") +
                              " printed no 'NET/" + net +
                              " : Using [0]...' device list (a plugin that prints none, "
                              "or NCCL_DEBUG_SUBSYS without INIT and NET): the HCAs of their connections are unknown"});
    }
    if (unknownCommGroups() > 1) {
      out.diagnostics.push_back(
          {"",
           "Channel lines of several communicators carry no commId (NCCL before 2.16): their peers are "
           "matched by rank alone and may be wrong"});
    }
    return out;
  }

 private:
  const formats::RailMapHost* hostInMap(const std::string& host) const {
    return options_.railMap == nullptr ? nullptr : options_.railMap->findHost(host);
  }

  // How many communicators the lines without a commId come from, as far as can be told: more than one when
  // two processes print the same rank.
  size_t unknownCommGroups() const {
    std::map<int, size_t> processOfRank;
    bool any = false;
    for (size_t p = 0; p < logs_.processes.size(); ++p) {
      const Process& process = logs_.processes[p];
      for (const NetConnection& c : process.connections) {
        if (Index::commKey(process, c.comm)) continue;
        any = true;
        const auto [it, added] = processOfRank.try_emplace(c.localRank(), p);
        if (!added && it->second != p) return 2;
      }
    }
    return any ? 1 : 0;
  }

  // The GPU (the rail map's index: NVML's order) a process's rank drives: the Init line's nvmlDev, else its
  // bus id in the rail map, else the Channel line's bracket where NCCL prints the NVML index; -1 when none.
  int gpuOf(const Process& process, int comm, const std::string& tag) const {
    const formats::RailMapHost* host = hostInMap(process.host);
    std::optional<int64_t> busId;
    if (comm >= 0) {
      const Comm& c = process.comms[static_cast<size_t>(comm)];
      if (c.nvmlDev >= 0) return c.nvmlDev;
      busId = c.busId;
    }
    const Version version = versionOf(process.version.empty() ? logs_.version : process.version);
    if (!tag.empty() && tagIsBusId(version, tag)) {
      if (!busId) busId = hexValue(tag);
    } else if (!tag.empty()) {
      return decimalValue(tag);
    }
    if (busId && host != nullptr) {
      if (const formats::RailMapGpu* gpu = host->findGpuByBusId(busIdText(*busId))) return gpu->index;
    }
    return -1;
  }

  // Rail and plane of a device: the rail map's for its HCA (a merged device's when its parts agree), else
  // what NCCL 2.30 printed.
  std::pair<int, int> railOf(const std::string& host, const NetDevice& device) const {
    if (const formats::RailMapHost* mapped = hostInMap(host)) {
      const std::vector<std::string> parts =
          device.merged.empty() ? std::vector<std::string>{device.name} : device.merged;
      int rail = -2, plane = -2;
      for (const std::string& part : parts) {
        const formats::RailMapNic* nic = mapped->findNic(part);
        if (nic == nullptr) return {-1, -1};
        rail = rail == -2 || rail == nic->rail ? nic->rail : -1;
        plane = plane == -2 || plane == nic->plane ? nic->plane : -1;
      }
      return {rail, plane};
    }
    return {device.rail, device.plane};
  }

  // PXN sends leave through the proxy rank's NIC, so the rail expected is the proxy GPU's.
  int expectedRailOf(const Process& process, const NetConnection& c, int gpu) const {
    const formats::RailMapHost* host = hostInMap(process.host);
    if (host == nullptr) return -1;
    if (c.proxyRank < 0) return host->expectedRail(gpu);
    const CommKey comm = Index::commKey(process, c.comm);
    const std::optional<size_t> proxy = index_.processOfRank(comm, c.proxyRank);
    if (!proxy) return -1;
    const Process& proxyProcess = logs_.processes[*proxy];
    if (proxyProcess.host != process.host) return -1;
    for (size_t i = 0; i < proxyProcess.comms.size(); ++i) {
      const Comm& pc = proxyProcess.comms[i];
      if (pc.rank == c.proxyRank && pc.commId == comm) return host->expectedRail(gpuOf(proxyProcess, int(i), ""));
    }
    for (const NetConnection& other : proxyProcess.connections) {  // no Init line: its own Channel lines
      if (Index::commKey(proxyProcess, other.comm) != comm || other.localRank() != c.proxyRank) continue;
      return host->expectedRail(gpuOf(proxyProcess, other.comm, other.send ? other.fromTag : other.toTag));
    }
    return -1;
  }

  void fillRemote(const CommKey& comm, const NetConnection& c, pl::PathRecord* r, ImportCounts* counts) const {
    r->remote.rank = c.peerRank();
    const std::optional<Located> peer = index_.peerLine(comm, c);
    if (!peer) return;
    ++counts->peerKnown;
    const Process& process = logs_.processes[peer->process];
    const NetConnection& line = process.connections[peer->connection];
    r->remote.host.assign(process.host);
    r->remote.pid = process.pid;
    r->remote.device = line.netDevice;
    if (const NetDevice* device = deviceOf(process, line)) {
      r->remote.hca.assign(device->name);
      const auto [rail, plane] = railOf(process.host, *device);
      r->remote.rail = rail;
      r->remote.plane = plane;
    }
  }

  pl::PathRecord connectRecord(const Process& process, const NetConnection& c, uint64_t id, ImportCounts* counts) {
    pl::PathRecord r;
    r.kind = pl::RecordKind::Connect;
    r.source = pl::Source::NcclLog;
    r.connection = id;
    const CommKey comm = Index::commKey(process, c.comm);
    r.comm = comm;
    if (c.comm < 0) ++counts->commUnknown;
    r.rank = c.localRank();
    r.direction = c.send ? pl::Direction::Send : pl::Direction::Recv;
    r.transport.assign(transportOf(c.net));
    r.streams = 0;  // QPs per connection are not in the log
    r.nccl.net.assign(c.net);
    r.nccl.channel = c.channel;
    r.nccl.connIndex = c.connIndex;
    r.nccl.gdr = c.gdr;
    r.nccl.shared = c.shared;
    r.nccl.proxyRank = c.proxyRank;
    r.local.device = c.netDevice;
    if (const NetDevice* device = deviceOf(process, c)) {
      r.local.hca.assign(device->name);
      r.nccl.port = device->port;
      r.nccl.link.assign(device->link);
      const auto [rail, plane] = railOf(process.host, *device);
      r.local.rail = rail;
      r.local.plane = plane;
    } else {
      ++counts->hcaUnknown;
    }
    r.local.gpu = gpuOf(process, c.comm, c.send ? c.fromTag : c.toTag);
    if (r.local.gpu < 0) ++counts->gpuUnknown;
    r.expectedRail = expectedRailOf(process, c, r.local.gpu);
    fillRemote(comm, c, &r, counts);
    if (r.local.rail >= 0) ++counts->railKnown;
    if (r.expectedRail >= 0) ++counts->expectedKnown;
    if (pl::railMatch(r.expectedRail, r.local.rail) == false) ++counts->crossRail;
    return r;
  }

  ImportedProcess importProcess(size_t p, Import* out) {
    const Process& process = logs_.processes[p];
    ImportedProcess imported;
    imported.identity = Identity{process.host, options_.job, process.pid};
    imported.version = process.version.empty() ? logs_.version : process.version;
    imported.local = process.local;
    out->counts.localChannels +=
        process.local.p2p + process.local.shm + process.local.nvls + process.local.collnet + process.local.other;
    if (options_.railMap != nullptr && hostInMap(process.host) == nullptr) {
      ++out->counts.hostsNotInMap;
      out->diagnostics.push_back(
          {process.firstSeen, "host '" + process.host + "' is not in the rail map: its connections have no rails"});
    }
    uint64_t id = 0;
    std::set<std::string> listless;
    for (const NetConnection& c : process.connections) {
      if (deviceListOf(process, c.net) == nullptr && listless.insert(c.net).second) {
        MissingList& missing = missingLists_[c.net];
        if (missing.processes++ == 0) missing.first = logs_.where(c.at);
      }
      imported.connections.push_back({connectRecord(process, c, ++id, &out->counts), c.at});
      ++out->counts.connectionEnds;
      // A connection counts at its sender's line, or at its receiver's when the sender's was not logged.
      if (c.send || !index_.peerLine(Index::commKey(process, c.comm), c)) ++out->counts.connections;
    }
    if (!imported.connections.empty()) imported.fileName = fileNames_.nameFor(imported.identity);
    return imported;
  }

  const LogSet& logs_;
  const ImportOptions& options_;
  Index index_;
  UniqueFileNames fileNames_;
  struct MissingList {
    size_t processes = 0;
    std::string first;  // FILE:LINE of the first Channel line without a list
  };
  std::map<std::string, MissingList> missingLists_;
};

}  // namespace

Import importLogs(const LogSet& logs, const ImportOptions& options, const ProcessSink& sink) {
  return Importer(logs, options).run(sink);
}

std::pair<std::string, std::string> renderPathLog(const ImportedProcess& process) {
  std::string text;
  for (const ImportedConnection& c : process.connections) {
    text += pl::renderRecord(process.identity, c.record);
    text += '\n';
  }
  for (const pl::PathRecord& r : process.traffic) {
    text += pl::renderRecord(process.identity, r);
    text += '\n';
  }
  return {process.fileName.empty() ? pl::pathLogFileName(process.identity, "nccl") : process.fileName, std::move(text)};
}

std::vector<std::pair<std::string, std::string>> renderPathLogs(const Import& import) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const ImportedProcess& process : import.processes)
    if (!process.connections.empty()) files.push_back(renderPathLog(process));
  return files;
}

}  // namespace railtune::analysis::nccl_log
