// `railtune paths import LOG... -o DIR [--job ID] [--rail-map F] [--profile-dir D]`: NCCL's own INFO logs
// rebuilt into path logs (analysis/nccl_log/import.h; docs/paths.md, "Paths of any NCCL job"), so that
// `paths check` and `paths render` show the rails of jobs whose traffic NCCL's IB transport (or another
// plugin) carried. Exit status: 0 written, 2 bad usage, no NCCL log line found, or a log given (or found in a
// folder given) that could not be read (the others are still imported and written).
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/nccl_log/import.h"
#include "analysis/nccl_log/log_set.h"
#include "analysis/nccl_log/profile_join.h"
#include "cli/paths/paths.h"
#include "cli/rail_map_option.h"
#include "common/atomic_file.h"
#include "common/work_pool.h"
#include "formats/rail_map.h"

namespace railtune::cli {
namespace {

namespace fs = std::filesystem;
namespace nl = analysis::nccl_log;

struct ImportArgs {
  std::vector<std::string> logs;
  std::string output;
  std::string job = "nccl";
  std::string railMap;
  std::vector<std::string> profileDirs;
  size_t warnings = 20;
};

void printDiagnostics(const std::vector<nl::Diagnostic>& diagnostics, size_t limit) {
  for (size_t i = 0; i < diagnostics.size() && i < limit; ++i) {
    const nl::Diagnostic& d = diagnostics[i];
    std::fprintf(stderr, "warning: %s%s%s\n", d.where.c_str(), d.where.empty() ? "" : ": ", d.message.c_str());
  }
  if (diagnostics.size() > limit)
    std::fprintf(stderr, "warning: ... and %zu more (--warnings N shows more)\n", diagnostics.size() - limit);
}

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

// The logs that could not be read, each named once with its reason: they are not in "from N files", and make
// the exit status 2 whatever else was written.
void printUnreadable(const std::vector<nl::Diagnostic>& unreadable, size_t limit) {
  if (unreadable.empty()) return;
  std::fprintf(stderr, "error: %zu log%s could not be read (not imported):\n", unreadable.size(),
               unreadable.size() == 1 ? "" : "s");
  for (size_t i = 0; i < unreadable.size() && i < limit; ++i)
    std::fprintf(stderr, "  %s: %s\n", unreadable[i].where.c_str(), unreadable[i].message.c_str());
  if (unreadable.size() > limit)
    std::fprintf(stderr, "  ... and %zu more (--warnings N shows more)\n", unreadable.size() - limit);
}

std::string percent(uint64_t part, uint64_t whole) {
  return std::to_string(part) + " of " + std::to_string(whole);
}

// Each process's path log rendered and written on the pool while the import goes on: JSON rendering is most of
// an import's time. The pool's first error drops the processes still waiting and is thrown by its finish().
void writeOnPool(WorkPool& pool, const std::string& dir, nl::ImportedProcess&& process, std::atomic<size_t>& written) {
  pool.submit([&dir, &written, process = std::move(process)] {
    const auto [name, text] = nl::renderPathLog(process);
    writeFile(dir, name, text);
    ++written;
  });
}

// What the imported processes were (they may have been written and let go one by one).
struct Seen {
  size_t processes = 0;
  std::set<std::string> hosts, versions;
};

void printSummary(const nl::Import& import, const Seen& seen, const std::optional<nl::ProfileJoinCounts>& join,
                  bool railMap) {
  const std::set<std::string>& hosts = seen.hosts;
  const std::set<std::string>& versions = seen.versions;
  std::string version;
  for (const std::string& v : versions) version += (version.empty() ? "" : ", ") + v;
  const nl::ImportCounts& c = import.counts;
  // "from N files" counts the files read; those that could not be read are listed on stderr (printUnreadable).
  const std::string unread =
      import.unreadable.empty() ? "" : " (" + std::to_string(import.unreadable.size()) + " could not be read)";
  std::printf("read %llu lines (%llu of NCCL) from %llu files%s: %zu processes on %zu hosts, NCCL %s\n",
              static_cast<unsigned long long>(import.read.lines),
              static_cast<unsigned long long>(import.read.ncclLines),
              static_cast<unsigned long long>(import.read.files), unread.c_str(), seen.processes, hosts.size(),
              version.empty() ? "version unknown" : version.c_str());
  // Counted as `paths check` and `paths render` count (import.h): connections, then their logged ends.
  std::printf(
      "network connections: %llu (%llu connection ends: a connection's [send] and [receive] lines; "
      "%llu Channel lines inside the node: P2P, SHM, NVLS, CollNet)\n",
      static_cast<unsigned long long>(c.connections), static_cast<unsigned long long>(c.connectionEnds),
      static_cast<unsigned long long>(c.localChannels));
  const uint64_t ends = c.connectionEnds;
  std::printf(
      "  connection ends with: peer's own line found: %s; HCA known: %s; GPU known: %s; communicator known: %s\n",
      percent(c.peerKnown, ends).c_str(), percent(ends - c.hcaUnknown, ends).c_str(),
      percent(ends - c.gpuUnknown, ends).c_str(), percent(ends - c.commUnknown, ends).c_str());
  std::printf("  rail known: %s (%s); expected rail known: %s; cross-rail: %llu\n", percent(c.railKnown, ends).c_str(),
              railMap ? "rail map" : "NCCL's device list", percent(c.expectedKnown, ends).c_str(),
              static_cast<unsigned long long>(c.crossRail));
  if (import.read.badLines > 0 || import.read.duplicateLines > 0) {
    std::printf("  skipped: %llu unreadable lines (on stderr), %llu Channel lines read twice (counted once)\n",
                static_cast<unsigned long long>(import.read.badLines),
                static_cast<unsigned long long>(import.read.duplicateLines));
  }
  if (join) {
    std::printf(
        "profile join: %llu flows from %llu files, %llu joined to %llu connections, %llu unmatched, %llu "
        "dropped by the profiler, %llu bad lines\n",
        static_cast<unsigned long long>(join->flows), static_cast<unsigned long long>(join->files),
        static_cast<unsigned long long>(join->flowsJoined), static_cast<unsigned long long>(join->connectionsWithBytes),
        static_cast<unsigned long long>(join->flowsUnmatched), static_cast<unsigned long long>(join->flowsDropped),
        static_cast<unsigned long long>(join->badLines));
  }
}

int runImport(const ImportArgs& args) {
  const std::optional<formats::RailMap> railMap = railMapFromOptionOrEnv(args.railMap);
  const nl::LogSet logs = nl::readLogs(args.logs);
  if (logs.processes.empty()) {
    printDiagnostics(logs.diagnostics, args.warnings);
    printUnreadable(logs.unreadable, args.warnings);
    if (logs.counts.files == 0 && !logs.unreadable.empty())
      throw std::runtime_error("none of the logs given could be read (listed above)");
    throw std::runtime_error(
        "no NCCL log line (\"HOST:PID:TID [DEV] NCCL INFO ...\") in what was given: run the job "
        "with NCCL_DEBUG=INFO (railtune exec --capture DIR does)");
  }
  nl::ImportOptions options;
  options.job = args.job;
  options.railMap = railMap ? &*railMap : nullptr;
  prepareFolder(args.output);
  size_t processes = 0;
  std::set<std::string> hosts, versions;
  const unsigned workers = WorkPool::defaultWorkers();
  WorkPool pool(workers, 2 * size_t{workers});  // at most 2 processes per worker wait: memory stays bounded
  std::atomic<size_t> writtenOnPool{0};
  const auto write = [&](nl::ImportedProcess&& process) {
    ++processes;
    hosts.insert(process.identity.host);
    if (!process.version.empty()) versions.insert(process.version);
    if (!process.connections.empty()) writeOnPool(pool, args.output, std::move(process), writtenOnPool);
  };
  // Without a profile join each process is written as it is imported: a large job's records are never all held.
  nl::Import import = args.profileDirs.empty() ? nl::importLogs(logs, options, write) : nl::importLogs(logs, options);
  std::optional<nl::ProfileJoinCounts> join;
  if (!args.profileDirs.empty()) {
    join = nl::joinProfileFlows(args.profileDirs, &import);
    for (nl::ImportedProcess& process : import.processes) write(std::move(process));
  }
  pool.finish();
  const size_t written = writtenOnPool;
  printDiagnostics(import.diagnostics, args.warnings);
  printSummary(import, Seen{processes, hosts, versions}, join, railMap.has_value());
  printUnreadable(import.unreadable, args.warnings);
  const int status = import.unreadable.empty() ? 0 : 2;
  if (written == 0) {
    std::printf(
        "no network connection in these logs (every rank's traffic stayed inside its node, or "
        "NCCL_DEBUG_SUBSYS left out INIT and NET): nothing written\n");
    return status;
  }
  std::printf("wrote %zu path logs (job %s) to %s: railtune paths check %s\n", written, args.job.c_str(),
              args.output.c_str(), args.output.c_str());
  return status;
}

}  // namespace

Command addPathsImportCommand(CLI::App& paths) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* app = paths.add_subcommand(
      "import", "rebuild path logs from NCCL's INFO logs (any NCCL 2.7-2.31 job, whatever carried its traffic)");
  app->add_option("LOG", args->logs,
                  "NCCL INFO logs: one per process (NCCL_DEBUG_FILE=%h.%p) or a job's interleaved output; folders "
                  "are read recursively")
      ->required();
  app->add_option("-o,--output", args->output, "folder to write the path logs to (created)")->required();
  app->add_option("--job", args->job, "the job id the path logs carry")->capture_default_str();
  app->add_option("--rail-map", args->railMap,
                  "rail map giving each HCA's rail and each GPU's expected rail (default: RAILTUNE_RAIL_MAP)");
  app->add_option("--profile-dir", args->profileDirs,
                  "folder of railtune profiler logs of the same job: their network flows give each connection's bytes");
  app->add_option("--warnings", args->warnings, "how many input problems to print")->capture_default_str();
  return {app, [args]() {
            try {
              return runImport(*args);
            } catch (const std::exception& e) {
              std::fprintf(stderr, "railtune paths import: %s\n", e.what());
              return 2;
            }
          }};
}

}  // namespace railtune::cli
