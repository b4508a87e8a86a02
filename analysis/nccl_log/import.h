// NCCL's INFO logs turned into path-log connect records (railtune.path_log.v1, source "nccl-log"): one per
// Channel line that goes over the network, with the HCA from that process's device list, the peer's host,
// pid, device and HCA from the peer's own line when its log was imported, and rails from the rail map (or
// from NCCL 2.30's ":rail:plane" device list). What the logs do not say stays unknown.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/nccl_log/log_set.h"
#include "common/identity.h"
#include "formats/path_log.h"
#include "formats/rail_map.h"

namespace railtune::analysis::nccl_log {

struct ImportOptions {
  std::string job = "nccl";                   // the path log's job id
  const formats::RailMap* railMap = nullptr;  // rails, planes and expected rails; null: none
};

struct ImportedConnection {
  formats::path_log::PathRecord record;  // a connect record
  LineRef at;                            // the Channel line (Import::where names it)
};

struct ImportedProcess {
  Identity identity;
  std::string fileName;  // its path log's name: unique within the import, never hidden (renderPathLog)
  std::string version;   // NCCL's, "" unknown
  std::vector<ImportedConnection> connections;
  std::vector<formats::path_log::PathRecord> traffic;  // close records from the profiler join (profile_join.h)
  LocalChannelCounts local;
};

// What the import could and could not tell; `railtune paths import` prints it.
// Counts (docs/paths.md, "What is counted"): a connection is one logical network connection, one per
// (communicator, channel, connIndex, sender rank -> receiver rank); each of its two logged lines (the sender's
// [send], the receiver's [receive]) is a connection end, and becomes one connect record. The other counts
// are of connection ends.
struct ImportCounts {
  uint64_t connections = 0;     // logical network connections (what `paths check` and `paths render` count)
  uint64_t connectionEnds = 0;  // connect records written: each logged end of a connection
  uint64_t peerKnown = 0;       // whose peer's own line was found (host, pid, device, HCA known)
  uint64_t hcaUnknown = 0;      // no device list for their network in the log
  uint64_t gpuUnknown = 0;      // the served GPU could not be told
  uint64_t commUnknown = 0;     // the log does not tie the line to a communicator (no commId before 2.1x)
  uint64_t railKnown = 0;       // with the HCA's rail (rail map or 2.30's list)
  uint64_t expectedKnown = 0;   // with the GPU's expected rail (rail map)
  uint64_t crossRail = 0;       // rail and expected rail both known and different
  uint64_t hostsNotInMap = 0;   // processes whose host the rail map does not have
  uint64_t localChannels = 0;   // P2P, SHM, NVLS, CollNet lines: counted, not paths
};

struct Import {
  std::vector<std::string> files = {};          // the logs read (LineRef::file)
  std::vector<ImportedProcess> processes = {};  // sorted by host, then pid; empty when a sink took them
  std::vector<Diagnostic> diagnostics = {};     // the reading's, then the import's
  std::vector<Diagnostic> unreadable = {};      // the logs that could not be read (LogSet::unreadable)
  ReadCounts read = {};
  ImportCounts counts = {};
  std::string where(const LineRef& at) const { return files.at(at.file) + ":" + std::to_string(at.line); }
};

// Each process is handed to `sink` as soon as it is imported, so that a large job's records need not all be
// held (`paths import` writes each file then); without a sink they are kept in Import::processes. The
// diagnostics and counts are complete when importLogs returns.
using ProcessSink = std::function<void(ImportedProcess&& process)>;
Import importLogs(const LogSet& logs, const ImportOptions& options, const ProcessSink& sink = {});

// One process's path log: its file name and JSONL text.
std::pair<std::string, std::string> renderPathLog(const ImportedProcess& process);

// The path log files of an import: (file name, JSONL text), one per process, named as the net plugin names
// its own with the tag "nccl" ("<job>-<host>-<pid>.nccl.jsonl"). Names are unique, also where case does
// not count: two processes whose names clean to one file name ("NODE-1" and "node-1") give the later one
// (host, then pid order) a suffix made from its own host and pid ("-h1a2b3c4d"); a name never starts with '.'
// (`--job ../x`).
std::vector<std::pair<std::string, std::string>> renderPathLogs(const Import& import);

}  // namespace railtune::analysis::nccl_log
