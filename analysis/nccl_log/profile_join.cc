// Joining the profiler's network flows to imported connections (profile_join.h).
#include "analysis/nccl_log/profile_join.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/ingest/folder_walk.h"
#include "analysis/ingest/line_reader.h"
#include "formats/profile_logs.h"

namespace railtune::analysis::nccl_log {
namespace {

namespace pl = formats::path_log;
namespace pf = formats::profile;

// NCCL's logger prints the host name cut at its first '.' (src/debug.cc); the profiler's identity may be
// the full name.
std::string_view shortHost(std::string_view host) {
  return host.substr(0, host.find('.'));
}

struct FlowKey {
  std::string host;
  int pid = 0, rank = -1, channel = -1, peer = -1;
  bool send = false;
  bool operator<(const FlowKey& o) const {
    return std::tie(host, pid, rank, channel, peer, send) < std::tie(o.host, o.pid, o.rank, o.channel, o.peer, o.send);
  }
};

struct Totals {
  uint64_t bytes = 0, steps = 0;
};

// One imported connection, found by what a flow knows.
struct Target {
  size_t process = 0, connection = 0;
  int connIndex = -1;
  std::optional<uint64_t> comm;
};

class Joiner {
 public:
  explicit Joiner(Import* import) : import_(import) {
    for (size_t p = 0; p < import->processes.size(); ++p) {
      const ImportedProcess& process = import->processes[p];
      for (size_t c = 0; c < process.connections.size(); ++c) {
        const pl::PathRecord& r = process.connections[c].record;
        const FlowKey key{std::string(shortHost(process.identity.host)),
                          process.identity.pid,
                          r.rank,
                          r.nccl.channel,
                          r.remote.rank,
                          r.direction == pl::Direction::Send};
        targets_[key].push_back(Target{p, c, r.nccl.connIndex, r.comm});
      }
    }
  }

  void add(const pf::ParsedNet& net, ProfileJoinCounts* counts) {
    const pf::OperationRecord& r = net.record;
    counts->flowsDropped += r.flowsDropped;
    const bool p2p = r.kind == pf::RecordKind::P2p;
    for (uint32_t i = 0; i < r.nFlows; ++i) {
      const pf::NetFlow& flow = r.flows[i];
      ++counts->flows;
      const FlowKey key{
          std::string(shortHost(net.identity.host)), net.identity.pid, r.rank, flow.channel, flow.peer, flow.send};
      const std::optional<Target> target = find(key, r.comm, p2p);
      if (!target) {
        ++counts->flowsUnmatched;
        continue;
      }
      ++counts->flowsJoined;
      Totals& totals = totals_[{target->process, target->connection}];
      totals.bytes += flow.bytes;
      totals.steps += flow.steps;
    }
  }

  void finish(ProfileJoinCounts* counts) {
    for (const auto& [at, totals] : totals_) {
      ImportedProcess& process = import_->processes[at.first];
      const pl::PathRecord& connect = process.connections[at.second].record;
      pl::PathRecord close;
      close.kind = pl::RecordKind::Close;
      close.timeUs = 0;  // the network summary has no times: the record is a total, not a moment
      close.connection = connect.connection;
      close.comm = connect.comm;
      close.rank = connect.rank;
      if (connect.direction == pl::Direction::Send) {
        close.traffic.bytesSent = totals.bytes;
        close.traffic.messagesSent = totals.steps;
      } else {
        close.traffic.bytesReceived = totals.bytes;
        close.traffic.messagesReceived = totals.steps;
      }
      process.traffic.push_back(close);
      ++counts->connectionsWithBytes;
    }
  }

 private:
  // connIndex 1 carries NCCL's p2p operations, 0 its collectives; a log without connIndex has one of each.
  std::optional<Target> find(const FlowKey& key, const std::optional<uint64_t>& comm, bool p2p) const {
    const auto it = targets_.find(key);
    if (it == targets_.end()) return std::nullopt;
    const int wanted = p2p ? 1 : 0;
    const Target* fallback = nullptr;
    for (const Target& t : it->second) {
      if (t.comm && comm && *t.comm != *comm) continue;
      if (t.connIndex == wanted) return t;
      if (t.connIndex < 0 && fallback == nullptr) fallback = &t;
    }
    if (fallback != nullptr) return *fallback;
    return std::nullopt;
  }

  Import* import_;
  std::map<FlowKey, std::vector<Target>> targets_;
  std::map<std::pair<size_t, size_t>, Totals> totals_;
};

}  // namespace

bool isNetSummary(const std::string& path) {
  return path.ends_with(pf::profileSuffix(pf::ProfileFile::Net));
}

ProfileJoinCounts joinProfileFlows(const std::vector<std::string>& folders, Import* import) {
  ProfileJoinCounts counts;
  const ingest::JsonlFiles files = ingest::listJsonlFiles(folders);
  for (const std::string& note : files.notes) import->diagnostics.push_back({"", note});
  Joiner joiner(import);
  for (const std::string& path : files.files) {
    if (!isNetSummary(path)) continue;
    ++counts.files;
    ingest::LineHandlers handlers;
    handlers.line = [&](std::string_view line, int number, size_t) {
      if (line.find_first_not_of(" \t\r") == std::string_view::npos) return true;
      const pf::NetLineResult result = pf::parseNetLine(line, path, number);
      if (!result.parsed) {
        ++counts.badLines;
        import->diagnostics.push_back({"", result.error + "; skipped"});  // the error names FILE:LINE:COLUMN
        return true;
      }
      ++counts.records;
      joiner.add(*result.parsed, &counts);
      return true;
    };
    handlers.tooLong = [&](int number, size_t bytes) {
      ++counts.badLines;
      import->diagnostics.push_back({path + ":" + std::to_string(number), ingest::tooLongMessage(bytes)});
    };
    const ingest::ReadOutcome outcome = ingest::forEachLine(path, 0, handlers);
    if (!outcome.error.empty()) import->diagnostics.push_back({path, outcome.reason});
  }
  joiner.finish(&counts);
  return counts;
}

}  // namespace railtune::analysis::nccl_log
