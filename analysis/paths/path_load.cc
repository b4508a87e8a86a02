// Reading a folder of path logs (path_load.h): walk it, read the files in parallel, join per job.
#include "analysis/paths/path_load.h"

#include <algorithm>
#include <string_view>

#include "analysis/ingest/folder_walk.h"
#include "analysis/nccl_log/import.h"
#include "analysis/nccl_log/profile_join.h"
#include "analysis/paths/path_file.h"
#include "analysis/paths/path_join.h"
#include "common/natural_order.h"
#include "common/work_pool.h"

namespace railtune::analysis::paths {
namespace {

using detail::FileKind;
using detail::FileRecords;

// Every regular file below `dir` (symbolic links followed once, analysis/ingest/folder_walk.h), in natural order, so
// that messages and connection order do not depend on the order the file system lists them in. What the walk passed
// over (FIFOs, devices, link loops, folders it could not read) is named in the folder's diagnostics.
std::vector<std::string> listFiles(const std::string& dir, std::vector<InputDiagnostic>* diagnostics) {
  const ingest::FolderWalk walk = ingest::walkLogFolders({dir}, [](std::string_view) { return true; });
  for (const ingest::WalkNote& note : walk.notes) diagnostics->push_back({note.path, note.message});
  std::vector<std::string> files;
  files.reserve(walk.files.size());
  for (const ingest::WalkedFile& file : walk.files) files.push_back(file.path);
  std::sort(files.begin(), files.end(), NaturalLess{});  // host r2's log before r10's, so its records come first
  return files;
}

// Reads every file on hardware_concurrency() threads; results keep the files' order.
std::vector<FileRecords> readAll(const std::vector<std::string>& paths) {
  std::vector<FileRecords> files(paths.size());
  parallelFor(paths.size(), [&](size_t i) { files[i] = detail::readPathLogFile(paths[i]); });
  return files;
}

// Files that are not path logs of this version: named once each (other railtune outputs silently).
void describeOthers(const std::vector<FileRecords>& files, std::vector<InputDiagnostic>* diagnostics) {
  for (const FileRecords& file : files) {
    switch (file.kind) {
      case FileKind::PathLog:
      case FileKind::OtherRailtune:
        break;
      case FileKind::UnknownVersion:
        diagnostics->push_back({file.path, "schema " + file.detail +
                                               " is not a path log version this railtune reads (" +
                                               "it reads railtune.path_log.v1); the file is skipped"});
        break;
      case FileKind::Foreign:
        diagnostics->push_back({file.path, file.detail.empty()
                                               ? "not a path log (no line is a JSON record with a schema); skipped"
                                               : "not a path log (schema " + file.detail + "); skipped"});
        break;
      case FileKind::NcclLog:  // imported (importNcclLogs)
      case FileKind::Empty:    // a process that never logged a connection (an NVLink-only rank): nothing to say
        break;
      case FileKind::Unreadable:
        diagnostics->push_back({file.path, file.detail});  // "cannot open: Permission denied"
        break;
    }
  }
}

// NCCL's INFO logs among the files, imported as one job: one FileRecords per process, named after the log
// file its first line came from. The profiler's network summaries in the same folder (railtune exec --capture
// writes both there) give the imported connections their bytes.
void importNcclLogs(const std::string& dir, const std::vector<FileRecords>& files, const LoadOptions& options,
                    std::vector<FileRecords>* out, std::vector<InputDiagnostic>* diagnostics) {
  std::vector<std::string> logs;
  for (const FileRecords& file : files)
    if (file.kind == FileKind::NcclLog) logs.push_back(file.path);
  if (logs.empty()) return;
  const nccl_log::LogSet set = nccl_log::readLogs(logs);
  nccl_log::ImportOptions importOptions;
  importOptions.job = options.ncclJob;
  importOptions.railMap = options.railMap;
  nccl_log::Import imported = nccl_log::importLogs(set, importOptions);
  if (std::any_of(files.begin(), files.end(), [](const FileRecords& f) { return nccl_log::isNetSummary(f.path); })) {
    const nccl_log::ProfileJoinCounts join = nccl_log::joinProfileFlows({dir}, &imported);
    if (join.flowsUnmatched > 0) {
      diagnostics->push_back({"", std::to_string(join.flowsUnmatched) + " of " + std::to_string(join.flows) +
                                      " profiler flows in the folder match no connection of NCCL's logs"});
    }
  }
  for (const nccl_log::Diagnostic& d : imported.unreadable) diagnostics->push_back({d.where, d.message});
  for (const nccl_log::Diagnostic& d : imported.diagnostics) diagnostics->push_back({d.where, d.message});
  uint64_t peerless = 0;
  for (const nccl_log::ImportedProcess& process : imported.processes) {
    if (process.connections.empty()) continue;
    std::vector<std::pair<formats::path_log::PathRecord, std::string>> records;
    for (const nccl_log::ImportedConnection& c : process.connections) {
      records.emplace_back(c.record, imported.where(c.at));
      peerless += c.record.remote.host.view().empty() ? 1 : 0;
    }
    for (const formats::path_log::PathRecord& r : process.traffic) records.emplace_back(r, "");
    const std::string& file = imported.files.at(process.connections.front().at.file);
    out->push_back(detail::recordsOfImport(file, process.identity, records));
  }
  if (peerless > 0) {
    diagnostics->push_back({"", std::to_string(peerless) + " of " + std::to_string(imported.counts.connections) +
                                    " connections imported from NCCL's logs have a peer whose log is not in the "
                                    "folder: their far end is unknown"});
  }
}

}  // namespace

LoadedPaths loadPathLogs(const std::string& dir, const LoadOptions& options) {
  LoadedPaths loaded;
  std::vector<FileRecords> files = readAll(listFiles(dir, &loaded.diagnostics));
  describeOthers(files, &loaded.diagnostics);
  std::vector<FileRecords> imported;
  importNcclLogs(dir, files, options, &imported, &loaded.diagnostics);
  std::erase_if(files, [](const FileRecords& f) { return f.kind != FileKind::PathLog; });
  for (FileRecords& file : imported) files.push_back(std::move(file));
  loaded.jobs = detail::joinFiles(files, options.job, &loaded.diagnostics);
  return loaded;
}

}  // namespace railtune::analysis::paths
