// `railtune profile stragglers LOGDIR [--rail-map F] [--job ID] [--json] [--top N]`: the ranks, trays
// and racks that arrive late at a job's collectives (analysis/profile/stragglers.h, docs/profile-analysis.md).
// Exit 0 when analysed (late ranks are findings, not errors), 2 when nothing readable was found.
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/profile/stragglers.h"
#include "analysis/profile/stragglers_render.h"
#include "analysis/profile/tag_groups.h"
#include "cli/profile/command_support.h"
#include "cli/profile/profile.h"
#include "formats/rail_map_choice.h"

namespace railtune::cli {
namespace {

namespace pa = analysis::profile;

struct StragglerArgs {
  std::vector<std::string> logDirs;
  std::string railMap;
  std::string job;
  bool json = false;
  size_t top = 10;
  std::string tagNames;
  pa::StragglerOptions options;
};

int runStragglers(const StragglerArgs& args) {
  const std::optional<formats::RailMap> railMap = formats::readChosenRailMap(args.railMap);
  pa::ReadOptions read;
  read.folders = args.logDirs;
  pa::StragglerOptions options = args.options;
  if (!args.job.empty()) options.job = args.job;
  options.tagNames = pa::parseTagNames(args.tagNames);
  const pa::ProfileLogs logs = readLogsToAnalyse(read, options.job, /*hangRecordsCount=*/false, std::cerr);
  const pa::StragglerReport report = pa::analyseStragglers(logs, railMap ? &*railMap : nullptr, options);
  std::cout << (args.json ? pa::renderStragglersJson(report) : pa::renderStragglersTable(report, options, args.top));
  return 0;
}

}  // namespace

Command addProfileStragglersCommand(CLI::App& profile) {
  auto args = std::make_shared<StragglerArgs>();
  CLI::App* app = profile.add_subcommand(
      "stragglers", "ranks, trays and racks that arrive late at collectives, from the profiler's collective logs");
  app->add_option("LOGDIR", args->logDirs, "folders of profiler logs (searched recursively)")->required();
  app->add_option("--rail-map", args->railMap, "rail map placing trays in racks (default: RAILTUNE_RAIL_MAP)");
  app->add_option("--job", args->job, "analyse only this job (default: every job found, one after another)");
  app->add_flag("--json", args->json, "JSON (railtune.profile_stragglers.v1) instead of the table");
  app->add_option("--tag-names", args->tagNames,
                  "names of the user tags (profiler v7), e.g. 1=forward,2=backward,3=optimizer");
  app->add_option("--top", args->top, "late collectives the table lists per job")->capture_default_str();
  app->add_option("--min-share", args->options.minShare,
                  "an offender is late in at least this share of its collectives")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  return {app, [args]() { return runStragglers(*args); }};
}

}  // namespace railtune::cli
