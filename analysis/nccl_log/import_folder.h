// `railtune paths import`'s whole job but its printing: NCCL's INFO logs read, rebuilt into path logs
// (import.h) and written into a folder, each file whole or not at all, while the import goes on.
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/nccl_log/import.h"
#include "analysis/nccl_log/profile_join.h"

namespace railtune::analysis::nccl_log {

struct FolderImportRequest {
  std::vector<std::string> logs;         // files or folders (read recursively)
  std::string output;                    // the folder written (created)
  ImportOptions options;                 // the job id and the rail map
  std::vector<std::string> profileDirs;  // profiler logs whose network flows give each connection's bytes
};

struct FolderImport {
  Import import;  // counts, diagnostics and the logs that could not be read; processes let go once written
  // Nothing importable: no NCCL log line, or no log could be read (Import::unreadable lists them). Nothing is
  // written then and the folder is not made.
  std::string refusal;
  size_t processes = 0;  // processes imported
  std::set<std::string> hosts, versions;
  std::optional<ProfileJoinCounts> join;  // with profileDirs
  size_t written = 0;                     // path logs written: processes with a network connection
};

// Throws std::runtime_error naming the folder or file when the output cannot be made or written (disk full,
// no permission); a file already written stays whole.
FolderImport importLogsToFolder(const FolderImportRequest& request);

// The summary `paths import` prints on stdout: what was read, the connections and what is known of their ends,
// the profile join. Each line ends in '\n'.
std::string importSummary(const FolderImport& result, const FolderImportRequest& request);

// Its last line: the files written and where, or why nothing was.
std::string importOutcome(const FolderImport& result, const FolderImportRequest& request);

}  // namespace railtune::analysis::nccl_log
