// One log file, line by line (file_reader.h): the fast reader first, the strict readers for what it
// leaves, every rejected line reported and skipped.
#include "analysis/profile/file_reader.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "analysis/ingest/line_reader.h"
#include "analysis/ingest/schema_family.h"
#include "analysis/profile/fast_collective.h"
#include "formats/path_log.h"
#include "formats/schemas.h"

namespace railtune::analysis::profile {
namespace {

namespace out = formats::profile;

// The schema of a line, or "" when it is not a JSON object with a string "schema".
std::string schemaOf(std::string_view line) {
  const nlohmann::json document = nlohmann::json::parse(line, nullptr, false);
  if (!document.is_object()) return "";
  const auto it = document.find("schema");
  return it != document.end() && it->is_string() ? it->get<std::string>() : "";
}

class FileReader {
 public:
  FileReader(const std::string& path, bool pathLogs, size_t maxProblems)
      : path_(path), pathLogs_(pathLogs), maxProblems_(maxProblems) {}

  FileResult run() {
    ingest::LineHandlers handlers;
    handlers.line = [this](std::string_view line, int number, size_t) { return onLine(line, number); };
    handlers.tooLong = [this](int number, size_t bytes) { tooLong(number, bytes); };
    const ingest::ReadOutcome outcome = ingest::forEachLine(path_, FastCollectiveReader::paddingBytes(), handlers);
    // A file that cannot be opened or read is a file lost, not a bad line.
    result_.unreadable = outcome.error;
    return std::move(result_);
  }

 private:
  bool onLine(std::string_view line, int number) {
    if (result_.kind == LogKind::Unknown && !classify(line, number)) return unknownLines_ < 100;
    switch (result_.kind) {
      case LogKind::Collectives:
        collectiveLine(line, number);
        return true;
      // Counted, not read: neither analysis needs the flows (hang records carry their own), and strictly
      // parsing a large job's network lines would cost more than the whole straggler analysis.
      case LogKind::Net:
        return false;
      case LogKind::PathLog:  // read only when asked (hangs); stragglers stop at the first line
        if (!pathLogs_) return false;
        pathLine(line, number);
        return true;
      case LogKind::Unknown:
        return false;
    }
    return false;
  }

  // Counted as a bad line like any other the readers refuse; the line is never held whole.
  void tooLong(int number, size_t bytes) {
    if (result_.kind == LogKind::Unknown) ++unknownLines_;
    problem(path_ + ":" + std::to_string(number) + ":1: " + ingest::tooLongMessage(bytes));
  }

  // The first line with a schema decides; lines before it that are not JSON are bad lines. A file
  // whose schema railtune does not read (another tool's JSONL) is passed over.
  bool classify(std::string_view line, int number) {
    const std::string schema = schemaOf(line);
    if (schema.empty()) {
      ++unknownLines_;
      problem(path_ + ":" + std::to_string(number) + ":1: not a JSON object with a \"schema\"; line skipped");
      return false;
    }
    result_.kind = classifySchema(schema);
    return true;
  }

  void problem(std::string message) {
    if (result_.problems.size() < maxProblems_) result_.problems.push_back(std::move(message));
    ++result_.problemCount;
  }

  uint32_t streamOf(const CollectiveFields& f) {
    if (lastStream_ < result_.streams.size() && matches(result_.streams[lastStream_], f)) return lastStream_;
    for (uint32_t i = 0; i < result_.streams.size(); ++i)
      if (matches(result_.streams[i], f)) return lastStream_ = i;
    result_.streams.push_back(FileStream{std::string(f.job), std::string(f.host), f.pid, f.comm.has_value(),
                                         f.comm.value_or(0), f.rank, f.nRanks});
    return lastStream_ = static_cast<uint32_t>(result_.streams.size() - 1);
  }

  static bool matches(const FileStream& s, const CollectiveFields& f) {
    return s.pid == f.pid && s.rank == f.rank && s.hasComm == f.comm.has_value() && s.comm == f.comm.value_or(0) &&
           s.host == f.host && s.job == f.job;
  }

  uint32_t opOf(std::string_view op) {
    if (lastOp_ < result_.ops.size() && result_.ops[lastOp_] == op) return lastOp_;
    for (uint32_t i = 0; i < result_.ops.size(); ++i)
      if (result_.ops[i] == op) return lastOp_ = i;
    result_.ops.emplace_back(op);
    return lastOp_ = static_cast<uint32_t>(result_.ops.size() - 1);
  }

  // Losses are few (a notice every few seconds at worst), so a linear search finds their entry.
  void addLoss(const CollectiveFields& f, bool perRank, uint64_t records, uint64_t operations, uint64_t events,
               int64_t timeNs) {
    const bool hasComm = perRank && f.comm.has_value();
    const int rank = perRank ? f.rank : -1;
    FileLoss* entry = nullptr;
    for (FileLoss& l : result_.losses)
      if (l.loss.pid == f.pid && l.loss.rank == rank && l.loss.hasComm == hasComm &&
          l.loss.comm == (hasComm ? *f.comm : 0) && l.host == f.host && l.job == f.job)
        entry = &l;
    if (entry == nullptr) {
      Loss loss;
      loss.pid = f.pid, loss.hasComm = hasComm, loss.comm = hasComm ? *f.comm : 0, loss.rank = rank;
      loss.firstNs = loss.lastNs = timeNs;
      entry = &result_.losses.emplace_back(FileLoss{std::string(f.job), std::string(f.host), loss});
    }
    Loss& l = entry->loss;
    l.recordsDropped += records, l.operationsDropped += operations, l.eventsDropped += events;
    l.firstNs = std::min(l.firstNs, timeNs), l.lastNs = std::max(l.lastNs, timeNs);
  }

  void addCompleted(const CollectiveFields& f) {
    result_.recordsDropped += f.recordsDropped;
    if (f.recordsDropped > 0) addLoss(f, false, f.recordsDropped, 0, 0, f.endRealtimeNs);
    if (f.eventsDropped > 0) addLoss(f, true, 0, 0, f.eventsDropped, f.endRealtimeNs);
    if (f.p2p) {
      ++result_.p2pRecords;
      result_.p2p.push_back(P2pSample{f.startRealtimeNs, f.endRealtimeNs, f.seq, streamOf(f), f.peer, f.op == "Send",
                                      f.closedBy, f.enqueueTimed});
      return;
    }
    if (f.closedBy != formats::profile::CloseReason::Events)
      result_.unusualCloses.push_back(UnusualClose{static_cast<uint32_t>(result_.samples.size()), f.closedBy});
    if (f.enqueueTimed) result_.enqueueTimed.push_back(static_cast<uint32_t>(result_.samples.size()));
    const bool tagged = f.userTag.value_or(0) != 0;
    if (tagged || f.path != formats::profile::OperationPath::Tuned || f.phases.present())
      result_.traits.push_back(traitsOf(f, static_cast<uint32_t>(result_.samples.size()), tagged));
    result_.samples.push_back(
        Sample{f.endRealtimeNs, f.endMonotonicNs - f.startMonotonicNs, f.seq, streamOf(f), opOf(f.op)});
  }

  static SampleTraits traitsOf(const CollectiveFields& f, uint32_t sample, bool tagged) {
    using formats::profile::KernelPhase;
    const formats::profile::KernelPhases& p = f.phases;
    const auto initial = static_cast<size_t>(KernelPhase::InitialSync),
               compute = static_cast<size_t>(KernelPhase::Compute);
    // A GPU timer's durations are far below 2^62 ns; a record that says otherwise is capped, not wrapped.
    auto ns = [&](size_t k) { return static_cast<int64_t>(std::min<uint64_t>(p.longestNs[k], uint64_t{1} << 62)); };
    return SampleTraits{sample,      f.path,     tagged, p.timed[initial] && p.timed[compute], f.userTag.value_or(0),
                        ns(initial), ns(compute)};
  }

  void collectiveLine(std::string_view line, int number) {
    if (const auto fields = fast_.read(line)) return addCompleted(*fields);
    out::CollectiveLineResult strict = out::parseCollectiveLine(line, path_, number);
    if (!strict.parsed) return problem(strict.error + "; line skipped");
    ++result_.strictLines;
    addStrict(std::move(*strict.parsed));
  }

  static CollectiveFields fieldsOf(const out::ParsedCollective& parsed) {
    const formats::profile::OperationRecord& r = parsed.record;
    CollectiveFields f;
    f.job = parsed.identity.job, f.host = parsed.identity.host, f.op = r.operation.view();
    f.pid = parsed.identity.pid, f.p2p = r.kind == formats::profile::RecordKind::P2p;
    f.comm = r.comm, f.rank = r.rank, f.nRanks = r.nRanks, f.seq = r.seq, f.peer = r.peer;
    f.startRealtimeNs = r.start.realtimeNs, f.endRealtimeNs = r.end.realtimeNs;
    f.startMonotonicNs = r.start.monotonicNs, f.endMonotonicNs = r.end.monotonicNs;
    f.eventsDropped = r.eventsDropped, f.recordsDropped = parsed.recordsDropped, f.closedBy = r.closedBy;
    f.enqueueTimed = r.timing == formats::profile::TimingSource::Enqueue;
    f.userTag = r.userTag, f.path = r.path, f.phases = r.phases;
    return f;
  }

  void addStrict(out::ParsedCollective parsed) {
    const formats::profile::OperationRecord& r = parsed.record;
    if (parsed.header) {  // no operation: which NCCL paths the profiler cannot see, its writer's process and
                          // the host's boot id
      result_.writers.push_back(WriterProcess{parsed.identity.job, parsed.identity.host, parsed.identity.pid});
      // A header after a removed file counts what that file held (docs/profiler.md).
      if (parsed.recordsDropped > 0) {
        result_.recordsDropped += parsed.recordsDropped;
        addLoss(fieldsOf(parsed), false, parsed.recordsDropped, 0, 0, r.start.realtimeNs);
      }
      if (parsed.operationsDropped > 0 || parsed.eventsDropped > 0)
        addLoss(fieldsOf(parsed), false, 0, parsed.operationsDropped, parsed.eventsDropped, r.start.realtimeNs);
      if (!parsed.bootId.empty())
        result_.boots.push_back(
            FileBoot{parsed.identity.job, parsed.identity.host, parsed.identity.pid, std::move(parsed.bootId)});
      return;
    }
    const CollectiveFields f = fieldsOf(parsed);
    if (parsed.droppedNotice) {
      ++result_.droppedNotices;
      result_.recordsDropped += parsed.recordsDropped;
      const int64_t at = r.start.realtimeNs;
      if (parsed.recordsDropped > 0) addLoss(f, false, parsed.recordsDropped, 0, 0, at);
      if (parsed.operationsDropped > 0 || parsed.eventsDropped > 0)
        addLoss(f, true, 0, parsed.operationsDropped, parsed.eventsDropped, at);
    } else if (r.kind == formats::profile::RecordKind::Hang) {
      result_.recordsDropped += parsed.recordsDropped;
      if (parsed.recordsDropped > 0) addLoss(f, false, parsed.recordsDropped, 0, 0, r.start.realtimeNs);
      result_.hangs.push_back(HangRecord{path_, std::move(parsed)});
    } else {
      addCompleted(f);
    }
  }

  void pathLine(std::string_view line, int number) {
    const formats::path_log::ParseResult strict = formats::path_log::parseRecord(line, path_, number);
    if (!strict.parsed) return problem(strict.error + "; line skipped");
    const formats::path_log::PathRecord& r = strict.parsed->record;
    if (r.kind != formats::path_log::RecordKind::Connect) return;
    const Identity& id = strict.parsed->identity;
    result_.pathEnds.push_back(PathEnd{id.job, id.host, id.pid, r.comm.has_value(), r.comm.value_or(0), r.rank,
                                       r.local.gpu, r.local.device, r.local.rail, std::string(r.local.hca.view()),
                                       std::string(r.remote.host.view()), r.remote.rank,
                                       r.direction == formats::path_log::Direction::Send});
  }

  std::string path_;
  bool pathLogs_;
  size_t maxProblems_;
  FileResult result_;
  FastCollectiveReader fast_;
  uint32_t lastStream_ = 0, lastOp_ = 0;
  int unknownLines_ = 0;
};

}  // namespace

LogKind classifySchema(const std::string& schema) {
  // By family (analysis/ingest/schema_family.h), so that a line of an unknown version (…v2) is read and
  // rejected by name.
  switch (ingest::schemaFamily(schema)) {
    case ingest::SchemaFamily::Collectives:
      return LogKind::Collectives;
    case ingest::SchemaFamily::Net:
      return LogKind::Net;
    case ingest::SchemaFamily::PathLog:
      return LogKind::PathLog;
    case ingest::SchemaFamily::OtherRailtune:
    case ingest::SchemaFamily::Foreign:
      break;
  }
  return LogKind::Unknown;
}

FileResult readLogFile(const std::string& path, bool pathLogs, size_t maxProblems) {
  return FileReader(path, pathLogs, maxProblems).run();
}

}  // namespace railtune::analysis::profile
