// Reading a folder of path logs (path_load.h): walk it, read the files in parallel, join per job.
#include "analysis/paths/path_load.h"

#include <algorithm>
#include <atomic>
#include <string_view>
#include <thread>

#include "analysis/ingest/folder_walk.h"
#include "analysis/paths/path_file.h"
#include "analysis/paths/path_join.h"

namespace railtune::analysis::paths {
namespace {

using detail::FileKind;
using detail::FileRecords;

// Every regular file below `dir` (symbolic links followed once, analysis/ingest/folder_walk.h), sorted, so that
// messages and connection order do not depend on the order the file system lists them in. What the walk passed over
// (FIFOs, devices, link loops, folders it could not read) is named in the folder's diagnostics.
std::vector<std::string> listFiles(const std::string& dir, std::vector<InputDiagnostic>* diagnostics) {
  const ingest::FolderWalk walk = ingest::walkLogFolders({dir}, [](std::string_view) { return true; });
  for (const ingest::WalkNote& note : walk.notes) diagnostics->push_back({note.path, note.message});
  std::vector<std::string> files;
  files.reserve(walk.files.size());
  for (const ingest::WalkedFile& file : walk.files) files.push_back(file.path);
  return files;
}

// Reads every file on hardware_concurrency() threads; results keep the files' order.
std::vector<FileRecords> readAll(const std::vector<std::string>& paths) {
  std::vector<FileRecords> files(paths.size());
  std::atomic<size_t> next{0};
  auto work = [&]() {
    for (size_t i = next++; i < paths.size(); i = next++) files[i] = detail::readPathLogFile(paths[i]);
  };
  const size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, std::max<size_t>(paths.size(), 1));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
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
      case FileKind::Empty:  // a process that never logged a connection (an NVLink-only rank): nothing to say
        break;
      case FileKind::Unreadable:
        diagnostics->push_back({file.path, file.detail});  // "cannot open: Permission denied"
        break;
    }
  }
}

}  // namespace

LoadedPaths loadPathLogs(const std::string& dir, const LoadOptions& options) {
  LoadedPaths loaded;
  std::vector<FileRecords> files = readAll(listFiles(dir, &loaded.diagnostics));
  describeOthers(files, &loaded.diagnostics);
  std::erase_if(files, [](const FileRecords& f) { return f.kind != FileKind::PathLog; });
  loaded.jobs = detail::joinFiles(files, options.job, &loaded.diagnostics);
  return loaded;
}

}  // namespace railtune::analysis::paths
