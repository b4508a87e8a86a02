// Reading one file of a log folder into what the join needs (path_load.cc runs this on many threads).
// Internal to railtune_paths: the public interface is path_load.h.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/paths/path_model.h"
#include "common/identity.h"
#include "formats/path_log.h"

namespace railtune::analysis::paths::detail {

// What a file is, by its name and the schema of its first line that parses.
enum class FileKind {
  PathLog,         // railtune.path_log.v1: read
  OtherRailtune,   // another railtune output (profiler logs, traces): passed over silently
  UnknownVersion,  // railtune.path_log.vN of another version: named once, skipped
  Foreign,         // no line with a schema: named once
  Empty,           // nothing but blank lines: named once (a writer that died before its first record)
  NcclLog,         // NCCL's own INFO log: imported on the fly (analysis/nccl_log), with the other such files
  Unreadable,      // could not be opened or read: named once
};

// A snapshot or close record, kept small: a job of 8,192 ranks has half a million of them.
struct TrafficRecord {
  uint32_t owner = 0;  // index into FileRecords::owners
  uint64_t conn = 0;
  int64_t timeUs = 0;
  bool close = false;
  int line = 0;
  ConnectionTraffic traffic;
};

// A connect record, already in the joined model's shape (its source is FILE:LINE).
struct ConnectRecord {
  uint32_t owner = 0;
  int line = 0;
  Connection connection;
};

// The distinct (job, host, pid) identities of a file's records; a file normally has one.
struct Owner {
  std::string job, host;
  int pid = 0;
};

// A record that says earlier records were lost (the writer's queue was full).
struct DroppedNotice {
  uint32_t owner = 0;
  int line = 0;
  uint64_t dropped = 0;
};

struct FileRecords {
  std::string path;  // as messages show it: the folder as given, then the path below it
  FileKind kind = FileKind::Foreign;
  std::string detail;  // UnknownVersion: the schema found; Unreadable: the reason
  std::vector<Owner> owners;
  std::vector<ConnectRecord> connects;
  std::vector<TrafficRecord> traffic;
  std::vector<DroppedNotice> dropped;
  std::vector<InputDiagnostic> badLines;  // "FILE:LINE:COLUMN", reason
};

// The records of one imported process (analysis/nccl_log), each with the FILE:LINE of NCCL's line, as a file
// of the folder.
FileRecords recordsOfImport(const std::string& path, const Identity& identity,
                            const std::vector<std::pair<formats::path_log::PathRecord, std::string>>& records);

// Reads and parses one file. Never throws for bad content; a file it cannot read is Unreadable.
FileRecords readPathLogFile(const std::string& path);

// Reads the records of a text already in memory (the file's bytes). `text` must be followed by at least
// kLinePadding readable bytes (the fast parser reads ahead); readPathLogFile allocates them.
inline constexpr size_t kLinePadding = 64;
FileRecords parsePathLogText(const std::string& path, const char* text, size_t size);

}  // namespace railtune::analysis::paths::detail
