// `railtune eval [SUITE...] [--set ci|full] [--kind K --seed N [--ranks R]] [--json] [--keep] [--list]`: runs
// the truth-scored evaluations (eval/, docs/accuracy.md) and prints per suite the scenarios, the targets
// and every miss with the command that replays it. Exit status: 0 every target met, 1 a target missed,
// 2 bad usage.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/plugin_files.h"
#include "eval/common/runner.h"
#include "eval/registry.h"

namespace railtune::cli {
namespace {

struct EvalArgs {
  std::vector<std::string> suites;
  std::string set = "ci";
  std::string kind;
  std::vector<uint64_t> seeds;
  int ranks = 0;
  bool json = false, keep = false, list = false, progress = false;
};

int runEval(const EvalArgs& args) {
  std::vector<std::unique_ptr<eval::Suite>> all = eval::allSuites();
  if (args.list) {
    for (const auto& suite : all) {
      std::printf("%s: %s\n  kinds:", suite->name().c_str(), suite->describe().c_str());
      for (const std::string& kind : suite->kinds()) std::printf(" %s", kind.c_str());
      std::printf("\n");
    }
    return 0;
  }
  std::set<std::string> known;
  for (const auto& suite : all) known.insert(suite->name());
  for (const std::string& name : args.suites)
    if (!known.contains(name)) {
      std::fprintf(stderr, "railtune eval: no suite '%s' (railtune eval --list names them)\n", name.c_str());
      return 2;
    }
  if (!args.seeds.empty() && args.kind.empty()) {
    std::fprintf(stderr, "railtune eval: --seed replays one kind: give --kind too\n");
    return 2;
  }
  eval::RunOptions options;
  options.set = args.set == "full" ? eval::SetSize::Full : eval::SetSize::Ci;
  options.context.libDir = defaultPluginDir().string();
  options.context.binDir = (defaultPluginDir().parent_path() / "bin").string();
  options.context.keep = args.keep;
  options.progress = args.progress;
  std::vector<eval::SuiteReport> reports;
  for (const auto& suite : all) {
    if (!args.suites.empty() && !std::set<std::string>(args.suites.begin(), args.suites.end()).contains(suite->name()))
      continue;
    options.only.clear();
    if (!args.kind.empty()) {
      const std::vector<std::string> kinds = suite->kinds();
      if (std::find(kinds.begin(), kinds.end(), args.kind) == kinds.end()) continue;
      for (const uint64_t seed : args.seeds) options.only.push_back(eval::ScenarioSpec{args.kind, seed, args.ranks});
      if (options.only.empty())
        for (const eval::ScenarioSpec& spec : suite->scenarios(options.set))
          if (spec.kind == args.kind) options.only.push_back(spec);
      if (options.only.empty()) continue;
    }
    reports.push_back(eval::runSuite(*suite, options));
  }
  if (reports.empty()) {
    std::fprintf(stderr, "railtune eval: no scenario matches%s\n",
                 args.kind.empty() ? "" : (" kind '" + args.kind + "'").c_str());
    return 2;
  }
  std::fputs(args.json ? eval::renderReportJson(reports).c_str() : eval::renderReportText(reports).c_str(), stdout);
  for (const eval::SuiteReport& report : reports)
    if (!report.met()) return 1;
  return 0;
}

}  // namespace

Command addEvalCommand(CLI::App& parent) {
  auto args = std::make_shared<EvalArgs>();
  CLI::App* app = parent.add_subcommand(
      "eval", "score every analysis against injected truth over seeded scenarios (exit 1 when a target is missed)");
  app->add_option("SUITE", args->suites, "suites to run (default: all; --list names them)");
  app->add_option("--set", args->set, "ci: the fixed seeds CI runs; full: the whole set (minutes to hours)")
      ->check(CLI::IsMember({"ci", "full"}));
  app->add_option("--kind", args->kind, "only scenarios of this kind (what is injected)");
  app->add_option("--seed", args->seeds, "replay these seeds of --kind (as a miss names them)");
  app->add_option("--ranks", args->ranks, "with --seed: the job's size a miss names (default: the seed's)");
  app->add_flag("--json", args->json, "one JSON document (schema railtune.eval_report.v1) instead of the table");
  app->add_flag("--keep", args->keep, "keep each scenario's scratch folder (logs, the analysis' output)");
  app->add_flag("--list", args->list, "list the suites and their kinds");
  app->add_flag("--progress", args->progress, "a line per scenario on stderr");
  return {app, [args]() { return runEval(*args); }};
}

}  // namespace railtune::cli
