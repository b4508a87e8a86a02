// `railtune paths render LOGDIR [--rail-map F] [--job ID] [--format html|svg|dot] [--max-hosts N] -o FILE`:
// one job's path logs drawn as racks → trays → GPUs → NICs → rail switches (analysis/paths/path_render.h,
// docs/paths.md, "railtune paths render"). Bad lines in the logs are reported on stderr and skipped; the picture shows
// the rest. The exit status says whether the file was written, not whether the job kept its rails (that is `railtune
// paths check`'s job), so a health check can render and gate in two steps.
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "analysis/paths/path_check.h"
#include "analysis/paths/path_load.h"
#include "analysis/paths/path_render.h"
#include "cli/paths/paths.h"
#include "formats/rail_map.h"
#include "formats/rail_map_choice.h"

namespace railtune::cli {
namespace {

namespace rp = railtune::analysis::paths;

struct RenderArgs {
  std::string logDir;
  std::string railMap;
  std::string job;
  std::string output;
  std::string format;
  int maxHosts = 32;
};

void printDiagnostics(const std::vector<rp::InputDiagnostic>& diagnostics) {
  for (const rp::InputDiagnostic& d : diagnostics)
    std::fprintf(stderr, "warning: %s%s%s\n", d.where.c_str(), d.where.empty() ? "" : ": ", d.message.c_str());
}

rp::RenderFormat chooseFormat(const RenderArgs& args) {
  if (!args.format.empty()) {
    const auto format = rp::parseRenderFormat(args.format);
    if (!format) throw std::invalid_argument("--format " + args.format + ": expected html, svg or dot");
    return *format;
  }
  const auto format = rp::renderFormatFromPath(args.output);
  if (!format)
    throw std::invalid_argument("-o " + args.output +
                                ": cannot tell the format from the extension (.html, .svg, .dot); use --format");
  return *format;
}

const rp::JobPaths& chooseJob(const rp::LoadedPaths& loaded, const RenderArgs& args) {
  if (loaded.jobs.empty())
    throw std::runtime_error(args.job.empty() ? "no path logs in " + args.logDir
                                              : "no path logs of job " + args.job + " in " + args.logDir);
  if (loaded.jobs.size() > 1) {
    std::string names;
    for (const rp::JobPaths& j : loaded.jobs) names += (names.empty() ? "" : ", ") + j.job;
    throw std::runtime_error(args.logDir + " holds the path logs of " + std::to_string(loaded.jobs.size()) + " jobs (" +
                             names + "): choose one with --job");
  }
  return loaded.jobs.front();
}

int runRender(const RenderArgs& args) {
  const rp::RenderOptions options{chooseFormat(args), args.maxHosts};
  const std::optional<formats::RailMap> railMap = formats::readChosenRailMap(args.railMap);
  rp::LoadOptions loadOptions;
  if (!args.job.empty()) loadOptions.job = loadOptions.ncclJob = args.job;  // NCCL logs in the folder are that job's
  loadOptions.railMap = railMap ? &*railMap : nullptr;
  const rp::LoadedPaths loaded = rp::loadPathLogs(args.logDir, loadOptions);
  printDiagnostics(loaded.diagnostics);
  const rp::JobPaths& job = chooseJob(loaded, args);
  printDiagnostics(job.diagnostics);
  const formats::RailMap* map = railMap ? &*railMap : nullptr;
  const rp::CheckReport report = rp::checkPaths(job, map);
  const rp::PathGraph graph = rp::buildPathGraph(job, report, map);
  const std::string text = rp::renderPaths(graph, report, options);
  std::ofstream out(args.output, std::ios::binary | std::ios::trunc);
  if (!out || !out.write(text.data(), static_cast<std::streamsize>(text.size())) || !out.flush())
    throw std::runtime_error("cannot write " + args.output);
  // The check's counts (analysis/paths/path_render.h, RenderCounts): the same numbers `paths check` prints.
  std::printf("wrote %s: %s%s\n", args.output.c_str(), rp::summaryLine(job.job, graph.counts).c_str(),
              graph.hostCount() > args.maxHosts ? " (aggregated by rack)" : "");
  return 0;
}

}  // namespace

Command addPathsRenderCommand(CLI::App& paths) {
  auto args = std::make_shared<RenderArgs>();
  CLI::App* app = paths.add_subcommand(
      "render", "draw one job's paths (racks, trays, GPUs, NICs, rail switches) as HTML, SVG or Graphviz DOT");
  app->add_option("LOGDIR", args->logDir, "folder of path logs and/or NCCL INFO logs (searched recursively)")
      ->required();
  app->add_option("-o,--output", args->output, "output file; the format follows its extension (.html, .svg, .dot)")
      ->required();
  app->add_option("--format", args->format, "html, svg or dot (overrides the extension)");
  app->add_option("--rail-map", args->railMap, "rail map placing hosts in racks (default: RAILTUNE_RAIL_MAP)");
  app->add_option("--job", args->job, "the job to draw when the folder holds several");
  app->add_option("--max-hosts", args->maxHosts, "above this many hosts, aggregate by rack")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  return {app, [args]() { return runRender(*args); }};
}

}  // namespace railtune::cli
