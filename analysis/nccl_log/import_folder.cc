// Importing NCCL's INFO logs into a folder of path logs (import_folder.h).
#include "analysis/nccl_log/import_folder.h"

#include <atomic>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "common/atomic_file.h"
#include "common/work_pool.h"

namespace railtune::analysis::nccl_log {
namespace {

namespace fs = std::filesystem;

void prepareFolder(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw std::runtime_error("-o " + dir + " exists and is not a folder");
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create -o " + dir + ": " + ec.message());
}

// Each file written whole beside its name and renamed over it, so that a full disk or a killed import leaves
// the earlier file, never half a file.
void writeFile(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = (fs::path(dir) / name).string();
  try {
    writeFileAtomically(path, text);
  } catch (const AtomicFileError& e) {
    if (e.stage == AtomicFileError::Stage::kCreate || e.stage == AtomicFileError::Stage::kWrite)
      throw std::runtime_error("cannot write " + path + " (disk full, or no permission?)");
    throw;
  }
}

// Each process's path log rendered and written on the pool while the import goes on: JSON rendering is most of
// an import's time. The pool's first error drops the processes still waiting and is thrown by its finish().
void writeOnPool(WorkPool& pool, const std::string& dir, ImportedProcess&& process, std::atomic<size_t>& written) {
  pool.submit([&dir, &written, process = std::move(process)] {
    const auto [name, text] = renderPathLog(process);
    writeFile(dir, name, text);
    ++written;
  });
}

std::string refusalOf(const LogSet& logs) {
  if (logs.counts.files == 0 && !logs.unreadable.empty()) return "none of the logs given could be read (listed above)";
  return "no NCCL log line (\"HOST:PID:TID [DEV] NCCL INFO ...\") in what was given: run the job "
         "with NCCL_DEBUG=INFO (railtune exec --capture DIR does)";
}

}  // namespace

FolderImport importLogsToFolder(const FolderImportRequest& request) {
  FolderImport result;
  const LogSet logs = readLogs(request.logs);
  if (logs.processes.empty()) {
    result.import.diagnostics = logs.diagnostics;
    result.import.unreadable = logs.unreadable;
    result.refusal = refusalOf(logs);
    return result;
  }
  prepareFolder(request.output);
  const unsigned workers = WorkPool::defaultWorkers();
  WorkPool pool(workers, 2 * size_t{workers});  // at most 2 processes per worker wait: memory stays bounded
  std::atomic<size_t> written{0};
  const auto write = [&](ImportedProcess&& process) {
    ++result.processes;
    result.hosts.insert(process.identity.host);
    if (!process.version.empty()) result.versions.insert(process.version);
    if (!process.connections.empty()) writeOnPool(pool, request.output, std::move(process), written);
  };
  // Without a profile join each process is written as it is imported: a large job's records are never all held.
  const bool joining = !request.profileDirs.empty();
  result.import = joining ? importLogs(logs, request.options) : importLogs(logs, request.options, write);
  if (joining) {
    result.join = joinProfileFlows(request.profileDirs, &result.import);
    for (ImportedProcess& process : result.import.processes) write(std::move(process));
    result.import.processes.clear();
  }
  pool.finish();
  result.written = written;
  return result;
}

}  // namespace railtune::analysis::nccl_log
