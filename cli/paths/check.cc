// `railtune paths check LOGDIR [--rail-map F] [--job ID] [--json]`: joins every host's path logs (and NCCL INFO
// logs found in LOGDIR, imported on the fly as the job "nccl" or --job) and checks them against the rail plan
// (analysis/paths/path_check.h; docs/paths.md). Exit status: 0 every connection checked and none violated, 1 violations
// (the gate), 2 bad usage or nothing readable, 3 no violation but some connections' rails unknown, so not checked (no
// rail map and logs that name no rails): never a clean pass.
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <string>

#include "analysis/paths/path_check.h"
#include "analysis/paths/path_load.h"
#include "analysis/paths/path_report.h"
#include "cli/paths/paths.h"
#include "formats/rail_map.h"
#include "formats/rail_map_choice.h"

namespace railtune::cli {
namespace {

namespace rp = analysis::paths;

constexpr int kClean = 0, kViolations = 1, kRailsUnknown = 3;  // 2: what main makes of a throw

struct CheckArgs {
  std::string logDir;
  std::string railMap;
  std::string job;
  bool json = false;
};

std::string nothingFound(const CheckArgs& args, const rp::LoadedPaths& loaded) {
  std::string text =
      args.job.empty() ? "no path log in " + args.logDir : "no path log of job " + args.job + " in " + args.logDir;
  text +=
      " (expected files named <job>-<host>-<pid>.<start>.jsonl with schema railtune.path_log.v1, as the net plugin "
      "writes under RAILTUNE_PATH_LOG_DIR, or NCCL INFO logs with Channel lines, as NCCL_DEBUG=INFO writes)";
  if (!loaded.diagnostics.empty()) text += "; see the warnings above";
  return text;
}

int runCheck(const CheckArgs& args) {
  if (args.logDir.empty())
    throw std::runtime_error("LOGDIR is required: the folder the job's path logs were written to");
  const std::optional<formats::RailMap> railMap = formats::readChosenRailMap(args.railMap);
  rp::LoadOptions options;
  if (!args.job.empty()) options.job = options.ncclJob = args.job;  // NCCL logs in the folder are that job's
  options.railMap = railMap ? &*railMap : nullptr;
  const rp::LoadedPaths loaded = rp::loadPathLogs(args.logDir, options);
  std::vector<rp::CheckedJob> jobs;
  for (const rp::JobPaths& job : loaded.jobs)
    jobs.push_back(rp::CheckedJob{&job, rp::checkPaths(job, railMap ? &*railMap : nullptr)});
  std::fputs(rp::renderDiagnostics(jobs, loaded.diagnostics).c_str(), stderr);
  if (jobs.empty()) throw std::runtime_error(nothingFound(args, loaded));
  std::fputs(args.json ? rp::renderCheckJson(jobs, loaded.diagnostics).c_str() : rp::renderCheckTable(jobs).c_str(),
             stdout);
  int unchecked = 0;
  for (const rp::CheckedJob& job : jobs) {
    if (job.report.violations() > 0) return kViolations;
    unchecked += job.report.railsUnchecked;
  }
  return unchecked > 0 ? kRailsUnknown : kClean;
}

}  // namespace

Command addPathsCheckCommand(CLI::App& parent) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* app = parent.add_subcommand(
      "check",
      "join a job's path logs and check them against the rail plan (exit 1 on cross-rail or digest mismatch, 3 when "
      "rails are unknown)");
  app->add_option("LOGDIR", args->logDir,
                  "folder of path logs (the job's RAILTUNE_PATH_LOG_DIR) and/or NCCL INFO logs, read recursively");
  app->add_option("--rail-map", args->railMap,
                  "rail map to check against: recomputes each NIC's and GPU's rail (default: RAILTUNE_RAIL_MAP)");
  app->add_option("--job", args->job, "only this job's logs (default: every job found, each checked on its own)");
  app->add_flag("--json", args->json, "one JSON document (schema railtune.paths_check.v1) instead of the table");
  // What stops the check (an unreadable folder or rail map, no path log) reaches main's handler: status 2.
  return {app, [args]() { return runCheck(*args); }};
}

}  // namespace railtune::cli
