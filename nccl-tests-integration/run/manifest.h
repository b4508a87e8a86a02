// The sweep manifest (railtune.sweep-manifest/1, docs/formats.md#sweep-manifest): one JSON line per run that
// `railtune sweep run` started or skipped, appended as each ends, so a sweep cut short resumes where it
// stopped and `railtune sweep parse` knows what forced each output file. The last line for an id wins.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nccl-tests-integration/dataset/choice.h"
#include "nccl-tests-integration/dataset/dataset.h"

namespace railtune::sweep {

// The manifest's name in a sweep folder.
inline constexpr std::string_view kManifestFileName = "manifest.jsonl";
inline constexpr std::string_view kManifestSchema = "railtune.sweep-manifest/1";

enum class RunStatus {
  Ok,        // exited 0 with a table
  Rejected,  // NCCL refused the forced choice ("no algorithm/protocol available", invalid usage): skipped, reason kept
  Failed,    // any other failure (exit status, signal, no table)
};
const char* runStatusName(RunStatus s);  // "ok", "rejected", "failed"
std::optional<RunStatus> runStatusFromName(std::string_view name);

// The rail map or fabric `sweep run --rail-map|--fabric` was given: the file (absolute), which `sweep parse`
// reads again for each host's NVLink domain, and what it says of the network (transport unknown: NCCL says it).
struct ManifestFabric {
  ShapeSource from = ShapeSource::RailMap;  // RailMap or Fabric
  std::string file;
  FabricId fabric;
};

struct ManifestEntry {
  std::string id;    // "allreduce.ring-ll128.r0": collective, choice, repeat; unique within a sweep
  std::string test;  // "all_reduce_perf"
  Choice choice;
  int repeat = 0;
  std::vector<std::string> command;        // argv as run (launcher words first)
  std::map<std::string, std::string> env;  // what the sweep set for this run (NCCL_ALGO, NCCL_PROTO, ...)
  // The --env matrix's combination the run had (also in env); part of the run's identity when a sweep resumes.
  // Empty without a matrix, and in lines of sweeps before it was recorded.
  std::map<std::string, std::string> netEnv;
  std::string output;  // the captured stdout+stderr, relative to the manifest's folder
  std::string json;    // the -J file, relative to the manifest's folder ("" when text only)
  // The output's length when the run ended: what `sweep parse` reads of it (a process that escaped the run's
  // group may write on). Absent in lines of earlier sweeps and for a choice not run.
  std::optional<uint64_t> outputBytes;
  RunStatus status = RunStatus::Failed;
  int exitCode = 0;        // the exit status; 128+N for signal N
  std::string reason;      // rejected / failed: the line that says why
  std::string start, end;  // UTC, ISO 8601 with milliseconds
  // What `sweep run` was told of the communicator (0: not told; `sweep parse` then counts from the output).
  int nvlDomains = 0;                    // --nvl-domains
  std::string mnnvl;                     // --mnnvl on|off ("" = not told)
  std::optional<ManifestFabric> fabric;  // --rail-map / --fabric
  // nccl-tests' -R/-D/-x in the command (dataset/call_mode.h), "call": "-R 2"; absent when none was given, and in
  // lines of earlier sweeps (`sweep parse` then reads the command).
  std::optional<CallMode> call;
};

std::string manifestLine(const ManifestEntry& entry);  // one JSON line with its newline

struct ManifestDiagnostic {
  size_t line = 0;
  std::string message;
};

struct Manifest {
  std::vector<ManifestEntry> entries;  // in file order, the last line for each id only
  std::vector<ManifestDiagnostic> diagnostics;
};

// Reads a manifest's text; a bad line is a diagnostic and skipped (a line cut by a crash included).
Manifest readManifestText(std::string_view text);

}  // namespace railtune::sweep
