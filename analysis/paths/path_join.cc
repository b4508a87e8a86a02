// Records of many files → one JobPaths per job (path_join.h). Pairing lives in path_pair.cc.
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "analysis/paths/path_join.h"
#include "common/natural_order.h"

namespace railtune::analysis::paths::detail {
namespace {

// (host, pid, conn): a connection as its writer names it; the host as its number in the job, so that a
// job of a million records hashes integers, not names.
struct ConnKey {
  uint32_t host = 0;
  int pid = 0;
  uint64_t conn = 0;
  bool operator==(const ConnKey&) const = default;
};

struct ConnKeyHash {
  size_t operator()(const ConnKey& k) const {
    const uint64_t mixed = (static_cast<uint64_t>(k.host) << 32 | static_cast<uint32_t>(k.pid)) * 0x9e3779b97f4a7c15ULL;
    return std::hash<uint64_t>()(mixed ^ (k.conn * 0xc2b2ae3d27d4eb4fULL));
  }
};

std::string at(const FileRecords& file, int line) {
  return file.path + ":" + std::to_string(line) + ":1";
}

// One job being assembled.
class JobJoin {
 public:
  explicit JobJoin(std::string job) { paths_.job = std::move(job); }

  // Registers a host that wrote records of this job; returns its number for addConnect and addTraffic.
  uint32_t addWriter(const std::string& host) {
    const auto [it, inserted] = hostIds_.try_emplace(host, static_cast<uint32_t>(hostIds_.size()));
    if (inserted) writers_.insert(host);
    return it->second;
  }
  void addDiagnostic(InputDiagnostic diagnostic) { paths_.diagnostics.push_back(std::move(diagnostic)); }

  void addConnect(const FileRecords& file, ConnectRecord& record, uint32_t host) {
    const Owner& owner = file.owners[record.owner];
    const ConnKey key{host, owner.pid, record.connection.id};
    const auto [it, inserted] = index_.emplace(key, static_cast<long>(paths_.connections.size()));
    if (!inserted && sameConnect(paths_.connections[static_cast<size_t>(it->second)], record.connection) &&
        fileOf(paths_.connections[static_cast<size_t>(it->second)]) != file.path) {
      noteRepeat(file, paths_.connections[static_cast<size_t>(it->second)]);
      return;
    }
    if (!inserted) {
      addDiagnostic({at(file, record.line),
                     "second connect record of connection " + std::to_string(key.conn) + " (pid " +
                         std::to_string(key.pid) + " on " + owner.host + "; first at " +
                         paths_.connections[static_cast<size_t>(it->second)].source + "); this one is skipped"});
      return;
    }
    record.connection.lastTimeUs = record.connection.connectTimeUs;
    paths_.connections.push_back(std::move(record.connection));
    latest_.push_back(Latest{});
  }

  void addTraffic(const FileRecords& file, const TrafficRecord& record, uint32_t host) {
    const Owner& owner = file.owners[record.owner];
    const char* kind = record.close ? "close" : "snapshot";
    const auto it = index_.find(ConnKey{host, owner.pid, record.conn});
    if (it == index_.end()) {
      addDiagnostic({at(file, record.line), std::string(kind) + " of connection " + std::to_string(record.conn) +
                                                " (pid " + std::to_string(owner.pid) + " on " + owner.host +
                                                ") without a connect record; skipped"});
      return;
    }
    Connection& c = paths_.connections[static_cast<size_t>(it->second)];
    Latest& latest = latest_[static_cast<size_t>(it->second)];
    c.lastTimeUs = std::max(c.lastTimeUs, record.timeUs);  // when its writer was last heard of
    if (record.close && c.closed && record.timeUs == latest.timeUs && record.traffic.bytesSent == c.traffic.bytesSent &&
        record.traffic.bytesReceived == c.traffic.bytesReceived && fileOf(c) != file.path) {
      noteRepeat(file, c);  // the same close read again from a copy of the log
      return;
    }
    if (record.close && c.closed) {
      addDiagnostic({at(file, record.line), "second close record of connection " + std::to_string(record.conn) +
                                                " (pid " + std::to_string(owner.pid) + " on " + owner.host +
                                                "); the first one's counters are kept"});
      return;
    }
    // A close holds the final counters; among snapshots the latest wins (the later line on a tie).
    if (c.closed || (!record.close && record.timeUs < latest.timeUs)) return;
    c.traffic = record.traffic;
    c.closed = record.close;
    latest.timeUs = record.timeUs;
  }

  JobPaths finish() {
    for (const auto& [files, count] : repeats_) {
      addDiagnostic(
          {files.first, std::to_string(count) + (count == 1 ? " record repeats one" : " records repeat those") +
                            " already read from " + files.second +
                            " (the same log found twice: a copy, or a log collected twice); each is read once"});
    }
    paths_.hosts.assign(writers_.begin(), writers_.end());
    pairEnds(paths_);
    nameMissingHosts();
    return std::move(paths_);
  }

 private:
  struct Latest {
    int64_t timeUs = -1;
  };

  // A second connect record with the same content is the same record read again (a copy of the log in another
  // folder, the same log collected twice, an early copy taken mid-run): one connection, counted once, and one
  // remark per pair of files rather than one per record.
  static bool sameConnect(const Connection& a, const Connection& b) {
    return a.connectTimeUs == b.connectTimeUs && a.send == b.send && a.local.device == b.local.device &&
           a.local.hca == b.local.hca && a.remote.host == b.remote.host && a.remote.pid == b.remote.pid &&
           a.remote.device == b.remote.device && a.comm == b.comm;
  }

  // The file of a connection's connect record (its source is FILE:LINE). Within one file a repeated record is not a
  // copy of the log, and is named as such.
  static std::string fileOf(const Connection& c) {
    const size_t colon = c.source.rfind(':');
    return colon == std::string::npos ? c.source : c.source.substr(0, colon);
  }

  void noteRepeat(const FileRecords& file, const Connection& first) { ++repeats_[{file.path, fileOf(first)}]; }

  void nameMissingHosts() {
    std::map<std::string, std::pair<int, std::string>, NaturalLess>
        missing;  // host → connections naming it, first source
    for (const Connection& c : paths_.connections) {
      if (writers_.contains(c.remote.host)) continue;
      if (c.fromNcclLog && c.remote.host.empty()) continue;  // the peer's NCCL log was absent: the loader counts these
      auto& entry = missing[c.remote.host];
      if (entry.first++ == 0) entry.second = c.source;
    }
    for (const auto& [host, entry] : missing) {
      const bool one = entry.first == 1;
      addDiagnostic({"", "host " + host + " wrote no path log for job " + paths_.job + ": " +
                             std::to_string(entry.first) +
                             (one ? " connection names it as its peer" : " connections name it as their peer") +
                             " (first at " + entry.second + ")"});
    }
  }

  JobPaths paths_;
  std::set<std::string, NaturalLess> writers_;  // natural order: r2 before r10
  std::unordered_map<std::string, uint32_t> hostIds_;
  std::unordered_map<ConnKey, long, ConnKeyHash> index_;
  std::vector<Latest> latest_;
  std::map<std::pair<std::string, std::string>, int> repeats_;  // (file, file first read) -> records repeated
};

// The file's job: its first record's. Empty when no line of it could be read.
const std::string* jobOf(const FileRecords& file) {
  return file.owners.empty() ? nullptr : &file.owners.front().job;
}

void addFileDiagnostics(const FileRecords& file, JobJoin* job, std::vector<InputDiagnostic>* folder) {
  for (const InputDiagnostic& d : file.badLines) job ? job->addDiagnostic(d) : folder->push_back(d);
  if (job == nullptr) return;  // no record was read, so nothing was dropped either
  for (const DroppedNotice& d : file.dropped) {
    job->addDiagnostic({at(file, d.line), "the writer lost " + std::to_string(d.dropped) +
                                              " record(s) before this one (its queue was full): connections or "
                                              "traffic may be missing"});
  }
}

}  // namespace

std::vector<JobPaths> joinFiles(std::vector<FileRecords>& files, const std::optional<std::string>& onlyJob,
                                std::vector<InputDiagnostic>* folderDiagnostics) {
  std::map<std::string, JobJoin, NaturalLess> jobs;
  auto jobFor = [&](const std::string& job) -> JobJoin* {
    if (onlyJob && job != *onlyJob) return nullptr;
    return &jobs.try_emplace(job, job).first->second;
  };
  // Each file's writers resolved once: their job (null when not chosen) and their host's number in it.
  std::vector<std::vector<std::pair<JobJoin*, uint32_t>>> writers(files.size());
  for (size_t f = 0; f < files.size(); ++f) {
    FileRecords& file = files[f];
    const std::string* job = jobOf(file);
    if (job == nullptr) {
      addFileDiagnostics(file, nullptr, folderDiagnostics);
    } else if (JobJoin* join = jobFor(*job)) {
      addFileDiagnostics(file, join, folderDiagnostics);
    }
    for (const Owner& owner : file.owners) {
      JobJoin* join = jobFor(owner.job);
      writers[f].emplace_back(join, join != nullptr ? join->addWriter(owner.host) : 0);
    }
    for (ConnectRecord& record : file.connects) {
      const auto [join, host] = writers[f][record.owner];
      if (join != nullptr) join->addConnect(file, record, host);
    }
  }
  // Traffic after every connect: a connection's records may sit in any order in its file.
  for (size_t f = 0; f < files.size(); ++f) {
    for (const TrafficRecord& record : files[f].traffic) {
      const auto [join, host] = writers[f][record.owner];
      if (join != nullptr) join->addTraffic(files[f], record, host);
    }
  }
  std::vector<JobPaths> out;
  for (auto& [name, join] : jobs) out.push_back(join.finish());
  return out;
}

}  // namespace railtune::analysis::paths::detail
