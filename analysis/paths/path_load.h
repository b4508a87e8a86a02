// Reading a folder of path logs into joined jobs (path_model.h). Every file under the folder
// (recursively) whose lines carry schema railtune.path_log.v1 is read; other railtune files (profiler
// logs, traces) are passed over silently, anything else is named once. A bad line (truncated, two
// writers interleaved, an unknown schema version, a field the strict reader rejects) is reported as
// "FILE:LINE:COLUMN: reason" and skipped; the rest of the file is still read. Records are grouped by
// job; within a job the two ends of each connection are paired (Connection::peerIndex). Files that are NCCL's
// own INFO logs are imported together, as one job (LoadOptions::ncclJob), and joined like path logs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/paths/path_model.h"
#include "formats/rail_map.h"

namespace railtune::analysis::paths {

struct LoadOptions {
  std::optional<std::string> job;  // only this job; unset: every job found
  // NCCL INFO logs found in the folder are imported on the fly (analysis/nccl_log/import.h) as this job,
  // with rails from this rail map (null: from the logs alone).
  std::string ncclJob = "nccl";
  const formats::RailMap* railMap = nullptr;
};

struct LoadedPaths {
  std::vector<JobPaths> jobs;                // sorted by job id
  std::vector<InputDiagnostic> diagnostics;  // folder-level: unreadable files, files of no known kind
};

// Throws std::runtime_error only when `dir` itself cannot be read.
LoadedPaths loadPathLogs(const std::string& dir, const LoadOptions& options);

}  // namespace railtune::analysis::paths
