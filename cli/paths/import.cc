// `railtune paths import LOG... -o DIR [--job ID] [--rail-map F] [--profile-dir D]`: NCCL's own INFO logs
// rebuilt into path logs (analysis/nccl_log/import.h; docs/paths.md, "Paths of any NCCL job"), so that
// `paths check` and `paths render` show the rails of jobs whose traffic NCCL's IB transport (or another
// plugin) carried. Exit status: 0 written, 2 bad usage, no NCCL log line found, or a log given (or found in a
// folder given) that could not be read (the others are still imported and written).
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/nccl_log/import_folder.h"
#include "cli/paths/paths.h"
#include "formats/rail_map.h"
#include "formats/rail_map_choice.h"

namespace railtune::cli {
namespace {

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

int runImport(const ImportArgs& args) {
  const std::optional<formats::RailMap> railMap = formats::readChosenRailMap(args.railMap);
  nl::FolderImportRequest request{args.logs, args.output, {args.job, railMap ? &*railMap : nullptr}, args.profileDirs};
  const nl::FolderImport result = nl::importLogsToFolder(request);
  printDiagnostics(result.import.diagnostics, args.warnings);
  if (!result.refusal.empty()) {
    printUnreadable(result.import.unreadable, args.warnings);
    throw std::runtime_error(result.refusal);
  }
  std::fputs(nl::importSummary(result, request).c_str(), stdout);
  printUnreadable(result.import.unreadable, args.warnings);
  std::fputs(nl::importOutcome(result, request).c_str(), stdout);
  return result.import.unreadable.empty() ? 0 : 2;
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
  return {app, [args]() { return runImport(*args); }};
}

}  // namespace railtune::cli
