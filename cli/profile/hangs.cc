// `railtune profile hangs LOGDIR [--path-logs DIR] [--rail-map F] [--job ID] [--json]`: collectives
// that never completed, the root cause first (the sink of the waits-for graph: a stopped rank, a NIC or
// a link), then the ranks stuck in them (analysis/profile/hangs.h, docs/profile-analysis.md). Exit 0 when no hang is
// found, 1 when one is (so it can gate), 2 when nothing readable was found.
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "analysis/profile/hangs.h"
#include "analysis/profile/hangs_render.h"
#include "cli/profile/command_support.h"
#include "cli/profile/profile.h"
#include "formats/rail_map_choice.h"

namespace railtune::cli {
namespace {

namespace pa = analysis::profile;

struct HangArgs {
  std::vector<std::string> logDirs;
  std::vector<std::string> pathLogDirs;
  std::string railMap;
  std::string job;
  bool json = false;
  std::string tagNames;
};

int runHangs(const HangArgs& args) {
  const pa::TagNames tagNames = pa::parseTagNames(args.tagNames);  // a bad option before reading any log
  const std::optional<formats::RailMap> railMap = formats::readChosenRailMap(args.railMap);
  pa::ReadOptions read;
  read.folders = args.logDirs;
  read.folders.insert(read.folders.end(), args.pathLogDirs.begin(), args.pathLogDirs.end());
  read.pathLogs = true;
  const std::optional<std::string> job = args.job.empty() ? std::nullopt : std::optional<std::string>(args.job);
  const pa::ProfileLogs logs = readLogsToAnalyse(read, job, /*hangRecordsCount=*/true, std::cerr);
  const pa::HangReport report = pa::analyseHangs(logs, railMap ? &*railMap : nullptr, job);
  std::cout << (args.json ? pa::renderHangsJson(report, tagNames) : pa::renderHangsTable(report, tagNames));
  for (const pa::JobHangs& j : report.jobs)
    if (!j.hung.empty()) return 1;
  return 0;
}

}  // namespace

Command addProfileHangsCommand(CLI::App& profile) {
  auto args = std::make_shared<HangArgs>();
  CLI::App* app = profile.add_subcommand(
      "hangs",
      "collectives that never completed: the root cause first (a stopped rank, a NIC or a link), then the stuck "
      "ranks and their outstanding flows");
  app->add_option("LOGDIR", args->logDirs,
                  "folders of profiler logs (searched recursively; path logs there are read too)")
      ->required();
  app->add_option("--path-logs", args->pathLogDirs, "folders of the net plugin's path logs (rank -> GPU, NIC, rail)");
  app->add_option("--rail-map", args->railMap, "rail map giving the GPU behind a NIC (default: RAILTUNE_RAIL_MAP)");
  app->add_option("--job", args->job, "analyse only this job (default: every job found)");
  app->add_flag("--json", args->json, "JSON (railtune.profile_hangs.v1) instead of the table");
  app->add_option("--tag-names", args->tagNames,
                  "names of the user tags (profiler v7), e.g. 1=forward,2=backward,3=optimizer");
  return {app, [args]() { return runHangs(*args); }};
}

}  // namespace railtune::cli
