// One file of a log folder: what kind it is, then its records, line by line (path_file.h).
#include "analysis/paths/path_file.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include <nlohmann/json.hpp>

#include "analysis/ingest/line_reader.h"
#include "analysis/ingest/schema_family.h"
#include "analysis/nccl_log/log_line.h"
#include "analysis/paths/path_fast_parse.h"
#include "formats/path_log.h"
#include "formats/schemas.h"

namespace railtune::analysis::paths::detail {
namespace {

namespace pl = formats::path_log;

bool endsWith(std::string_view text, std::string_view tail) {
  return text.size() >= tail.size() && text.substr(text.size() - tail.size()) == tail;
}

// Path logs are always "*.jsonl". Single JSON documents (the profiler's Chrome trace, a rail map or a
// synth truth file kept beside the logs) and Prometheus textfiles are known not to be logs by their name.
bool isKnownOtherOutput(std::string_view path) {
  return endsWith(path, ".json") || endsWith(path, ".prom");
}

// The schema named by a line, or "" when the line is not a JSON object with a string "schema".
std::string schemaOf(std::string_view line) {
  const nlohmann::json document = nlohmann::json::parse(line, nullptr, false);
  if (!document.is_object()) return "";
  const auto it = document.find("schema");
  if (it == document.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

FileKind kindOfSchema(const std::string& schema) {
  switch (ingest::schemaFamily(schema)) {
    case ingest::SchemaFamily::PathLog:
      return schema == formats::kPathLogSchema ? FileKind::PathLog : FileKind::UnknownVersion;
    case ingest::SchemaFamily::Collectives:
    case ingest::SchemaFamily::Net:
    case ingest::SchemaFamily::OtherRailtune:
      return FileKind::OtherRailtune;
    case ingest::SchemaFamily::Foreign:
      break;
  }
  return FileKind::Foreign;
}

// "FILE:LINE:COLUMN: reason" from the strict reader, split where the reason starts.
InputDiagnostic splitError(const std::string& error, size_t prefixLength) {
  const size_t colon = error.find(": ", prefixLength);
  if (colon == std::string::npos) return {error, ""};
  return {error.substr(0, colon), error.substr(colon + 2)};
}

uint32_t ownerOf(FileRecords& file, const Identity& identity) {
  for (size_t i = 0; i < file.owners.size(); ++i) {
    const Owner& o = file.owners[i];
    if (o.pid == identity.pid && o.host == identity.host && o.job == identity.job) return static_cast<uint32_t>(i);
  }
  file.owners.push_back(Owner{identity.job, identity.host, identity.pid});
  return static_cast<uint32_t>(file.owners.size() - 1);
}

ConnectionEnd localEnd(const pl::PathRecord& r, const Identity& identity) {
  ConnectionEnd end;
  end.host = identity.host;
  end.pid = identity.pid;
  end.rank = r.direction == pl::Direction::Send ? r.rank : -1;
  end.device = r.local.device;
  end.hca = std::string(r.local.hca.view());
  end.netdev = std::string(r.local.netdev.view());
  end.rail = r.local.rail;
  end.plane = r.local.plane;
  end.gpu = r.local.gpu;
  return end;
}

ConnectionEnd remoteEnd(const pl::PathRecord& r) {
  ConnectionEnd end;
  end.host = std::string(r.remote.host.view());
  end.pid = r.remote.pid;
  end.rank = r.remote.rank;
  end.device = r.remote.device;
  end.hca = std::string(r.remote.hca.view());
  end.rail = r.remote.rail;
  end.plane = r.remote.plane;
  return end;
}

Connection toConnection(const pl::ParsedRecord& parsed, const std::string& source) {
  const pl::PathRecord& r = parsed.record;
  Connection c;
  c.comm = r.comm;
  c.id = r.connection;
  c.send = r.direction == pl::Direction::Send;
  c.transport = std::string(r.transport.view());
  c.streams = r.streams;
  c.local = localEnd(r, parsed.identity);
  c.remote = remoteEnd(r);
  // A receive record's top-level rank is its writer's when the writer knew it (the tag names the peer).
  if (!c.send && r.rank >= 0) c.local.rank = r.rank;
  c.expectedRail = r.expectedRail;
  c.localDigest = r.localDigest;
  c.remoteDigest = r.remoteDigest;
  c.verbs = r.verbs;
  c.connectTimeUs = r.timeUs;
  c.source = source;
  if (r.source == pl::Source::NcclLog) {
    c.fromNcclLog = true;
    c.ncclNet = std::string(r.nccl.net.view());
    c.channel = r.nccl.channel;
    c.proxyRank = r.nccl.proxyRank;
  }
  return c;
}

void addRecord(FileRecords& file, const pl::ParsedRecord& parsed, int line, const std::string& where = "") {
  const uint32_t owner = ownerOf(file, parsed.identity);
  const pl::PathRecord& r = parsed.record;
  if (r.dropped > 0) file.dropped.push_back(DroppedNotice{owner, line, r.dropped});
  if (r.kind == pl::RecordKind::Connect) {
    file.connects.push_back(ConnectRecord{
        owner, line, toConnection(parsed, where.empty() ? file.path + ":" + std::to_string(line) : where)});
  } else if (r.kind == pl::RecordKind::Snapshot || r.kind == pl::RecordKind::Close) {
    const pl::Traffic& t = r.traffic;
    ConnectionTraffic traffic{t.bytesSent, t.bytesReceived, t.messagesSent, t.messagesReceived, t.busyUs, {}};
    traffic.bytesPerQp.assign(t.bytesPerQp, t.bytesPerQp + std::min(t.qpCount, pl::kMaxQpsRecorded));
    file.traffic.push_back(
        TrafficRecord{owner, r.connection, r.timeUs, r.kind == pl::RecordKind::Close, line, std::move(traffic)});
  }
}

// Parses one line: the fast reader when it is sure, else the strict one (whose messages users see).
void parseLine(FileRecords& file, const char* line, size_t size, size_t capacity, int lineNumber,
               pl::ParsedRecord& scratch) {
  if (fastParseRecord(line, size, capacity, &scratch)) {
    addRecord(file, scratch, lineNumber);
    return;
  }
  const pl::ParseResult result = pl::parseRecord(std::string_view(line, size), file.path, lineNumber);
  if (result.parsed) {
    addRecord(file, *result.parsed, lineNumber);
    return;
  }
  const size_t prefix = file.path.size() + 1 + std::to_string(lineNumber).size() + 1;
  file.badLines.push_back(splitError(result.error, prefix));
}

bool blank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

// A file's lines in order, from memory or streamed: the kind from the first line with a schema, then
// every record. Lines before the first readable one are reported only once the file turns out to be a
// path log.
class PathLogLines {
 public:
  explicit PathLogLines(const std::string& path) { file_.path = path; }

  // False once the file is known not to be a path log (nothing more to read).
  bool take(std::string_view line, int number, size_t readable) {
    if (blank(line)) return true;
    content_ = true;
    if (!known_ && nccl_log::splitHeader(line)) {  // NCCL's own INFO log: imported by the loader, not read here
      known_ = true;
      file_.kind = FileKind::NcclLog;
      file_.badLines.clear();
      return false;
    }
    if (!known_) {
      const std::string schema = schemaOf(line);
      if (!schema.empty()) {
        known_ = true;
        file_.kind = kindOfSchema(schema);
        if (file_.kind != FileKind::PathLog) {
          file_.detail = schema;
          file_.badLines.clear();
          return false;
        }
      }
    }
    const size_t bad = file_.badLines.size();
    parseLine(file_, line.data(), line.size(), readable, number, scratch_);
    // A JSON object cut short (a writer killed mid-line, a full disk) before any line said what the file is.
    if (!known_ && file_.badLines.size() > bad && line.starts_with("{\"") && !line.ends_with('}')) cutJson_ = true;
    return true;
  }

  // A line over the cap (ingest::kMaxLineBytes) was skipped unread.
  void tooLong(int number, size_t bytes) {
    content_ = true;
    file_.badLines.push_back({file_.path + ":" + std::to_string(number) + ":1", ingest::tooLongMessage(bytes)});
  }

  FileRecords finish() {
    // No line says what the file is. A .jsonl file whose lines are JSON records cut short is a log whose every
    // record was damaged (the only line of a path log killed while writing its first record): its lines are named
    // where they are, rather than the whole file called "not a path log". Anything else is another file.
    if (!known_ && cutJson_ && file_.path.ends_with(".jsonl")) {
      file_.kind = FileKind::PathLog;
    } else if (!known_) {
      file_.badLines.clear();
    }
    if (!content_) file_.kind = FileKind::Empty;
    return std::move(file_);
  }

 private:
  FileRecords file_;
  bool known_ = false, content_ = false, cutJson_ = false;
  pl::ParsedRecord scratch_;
};

}  // namespace

FileRecords recordsOfImport(const std::string& path, const Identity& identity,
                            const std::vector<std::pair<pl::PathRecord, std::string>>& records) {
  FileRecords file;
  file.path = path;
  file.kind = FileKind::PathLog;
  int line = 0;
  for (const auto& [record, where] : records) addRecord(file, pl::ParsedRecord{identity, record}, ++line, where);
  return file;
}

FileRecords parsePathLogText(const std::string& path, const char* text, size_t size) {
  PathLogLines lines(path);
  if (isKnownOtherOutput(path)) {
    FileRecords file = lines.finish();
    file.kind = FileKind::OtherRailtune;
    return file;
  }
  int lineNumber = 0;
  for (size_t start = 0; start < size;) {
    const char* end = static_cast<const char*>(std::memchr(text + start, '\n', size - start));
    const size_t stop = end == nullptr ? size : static_cast<size_t>(end - text);
    const std::string_view line(text + start, stop - start);
    ++lineNumber;
    if (line.size() > ingest::kMaxLineBytes) {
      lines.tooLong(lineNumber, line.size());
    } else if (!lines.take(line, lineNumber, size - start + kLinePadding)) {
      break;
    }
    start = stop + 1;
  }
  return lines.finish();
}

// Streamed (ingest::forEachLine): a file costs one block of memory, whatever its size.
FileRecords readPathLogFile(const std::string& path) {
  if (isKnownOtherOutput(path)) return parsePathLogText(path, "", 0);
  PathLogLines lines(path);
  ingest::LineHandlers handlers;
  handlers.line = [&lines](std::string_view line, int number, size_t readable) {
    return lines.take(line, number, readable);
  };
  handlers.tooLong = [&lines](int number, size_t bytes) { lines.tooLong(number, bytes); };
  const ingest::ReadOutcome outcome = ingest::forEachLine(path, kLinePadding, handlers);
  FileRecords file = lines.finish();
  if (!outcome.error.empty()) {  // what was read is dropped: a file that cannot be read is named whole
    FileRecords unreadable;
    unreadable.path = path;
    unreadable.kind = FileKind::Unreadable;
    const std::string prefix = path + ": ";
    unreadable.detail = outcome.error.starts_with(prefix) ? outcome.error.substr(prefix.size()) : outcome.error;
    return unreadable;
  }
  return file;
}

}  // namespace railtune::analysis::paths::detail
