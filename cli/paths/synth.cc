// `railtune paths synth --ranks N --out DIR [...]`: writes the logs a real job of N ranks would leave
// (per rank a path log and a collective log, optionally the network summary) with injected stragglers,
// slow trays and racks and cross-rail connections, and DIR/truth.json saying exactly what was
// injected: the input of the scale benchmark (bench/run_paths_scale.sh) and of tests that measure the
// analyses against the truth. docs/paths.md, "railtune paths synth" describes the model.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "analysis/synth/synth_job.h"
#include "analysis/synth/synth_run.h"
#include "analysis/synth/write_files.h"
#include "cli/paths/paths.h"

namespace railtune::cli {
namespace {

namespace fs = std::filesystem;
namespace sy = analysis::synth;

double microseconds(int64_t nanoseconds) {
  return static_cast<double>(nanoseconds) / 1000.0;
}

struct SynthArgs {
  sy::SynthOptions job;
  std::string outDir, truthPath, fabric, railMap;
  int threads = 0;
  std::vector<std::string> late;
  // The timing model's own defaults (analysis/synth/timeline.h), in the options' microseconds.
  double clockSpreadUs = microseconds(sy::TimingSpread{}.maxClockOffsetNs);
  double arrivalJitterUs = microseconds(sy::TimingSpread{}.arrivalJitterNs);
  double endJitterUs = microseconds(sy::TimingSpread{}.endJitterNs);
  double driftPpm = 0;
  int hostsPerClock = 1;
  double noisePercent = 0, noiseMaxUs = 300;
};

int64_t nanoseconds(double microseconds) {
  return static_cast<int64_t>(microseconds * 1000.0 + 0.5);
}

double gigabytes(uint64_t bytes) {
  return static_cast<double>(bytes) / 1e9;
}

int runSynth(SynthArgs args) {
  const auto started = std::chrono::steady_clock::now();
  args.job.spread = {.arrivalJitterNs = nanoseconds(args.arrivalJitterUs),
                     .endJitterNs = nanoseconds(args.endJitterUs),
                     .maxClockOffsetNs = nanoseconds(args.clockSpreadUs),
                     .maxDriftPpm = args.driftPpm,
                     .noiseShare = args.noisePercent / 100.0,
                     .noiseMaxNs = nanoseconds(args.noiseMaxUs),
                     .hostsPerClock = args.hostsPerClock};
  const std::unique_ptr<sy::SynthJob> job = sy::planSynthJob(args.job, args.fabric, args.railMap, args.late);
  if (const std::string note = sy::noNetworkNote(*job); !note.empty())
    std::fprintf(stderr, "railtune paths synth: note: %s\n", note.c_str());
  std::fputs(sy::renderSynthPlan(*job).c_str(), stdout);
  const uint64_t need = sy::estimateBytes(*job);
  const uint64_t free = sy::prepareOutDir(args.outDir, need);
  std::printf("writing about %.2f GB to %s (%.0f GB free there)\n", gigabytes(need), args.outDir.c_str(),
              gigabytes(free));
  std::fflush(stdout);
  if (args.truthPath.empty()) args.truthPath = (fs::path(args.outDir) / "truth.json").string();
  const sy::WriteSummary written = sy::writeJobFiles(*job, args.outDir, args.threads);
  sy::writeTruthFile(*job, args.truthPath);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("wrote %llu files, %.2f GB, in %.1f s to %s; truth: %s\n", static_cast<unsigned long long>(written.files),
              gigabytes(written.bytes), seconds, args.outDir.c_str(), args.truthPath.c_str());
  return 0;
}

void addOptions(CLI::App& app, SynthArgs& a) {
  app.add_option("--ranks", a.job.ranks, "ranks of the job, placed on the rail map's hosts in map order")->required();
  app.add_option("--out", a.outDir, "folder to write the logs into (new or empty)")->required();
  auto* fabric = app.add_option("--fabric", a.fabric, "fabric description to place the job on (default: built-in)");
  app.add_option("--rail-map", a.railMap, "rail map to place the job on")->excludes(fabric);
  app.add_option("--job", a.job.job, "job id in every record (default: synth-N)");
  app.add_option("--connections-per-rank", a.job.connectionsPerRank,
                 "network connections per rank, a send and a receive per channel")
      ->capture_default_str();
  app.add_option("--collectives", a.job.collectives, "collectives per rank")->capture_default_str();
  app.add_option("--stragglers", a.job.offenders.stragglers, "ranks made late")->capture_default_str();
  app.add_option("--slow-trays", a.job.offenders.slowTrays, "trays (hosts) made late together")->capture_default_str();
  app.add_option("--slow-racks", a.job.offenders.slowRacks, "racks (NVLink domains) made late together")
      ->capture_default_str();
  app.add_option("--late", a.late,
                 "a named offender instead of the three counts, exactly: LEVEL:INDEX:DELAY_US[:SHARE] (rank:5:150, "
                 "tray:3:120:0.25: late in every 4th collective); repeatable");
  app.add_option("--silent-ranks", a.job.silentRanks, "ranks that write no file (a host whose logs never arrived)")
      ->delimiter(',');
  app.add_option("--clock-spread-us", a.clockSpreadUs, "each host's clock is off by up to this much either way")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--drift-ppm", a.driftPpm, "each host's clocks run fast or slow by up to this many ppm")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1000.0));
  app.add_option("--noise-percent", a.noisePercent,
                 "each rank, in each collective, has this chance of arriving up to --noise-max-us late once")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 100.0));
  app.add_option("--noise-max-us", a.noiseMaxUs, "the longest such one-off delay")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--hosts-per-clock", a.hostsPerClock,
                 "consecutive hosts that are one machine: one clock and one boot id (containers on one node)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_flag("--boot-ids", a.job.bootIds,
               "start each collective log with the profiler's header line, naming the machine's boot id");
  app.add_option("--arrival-jitter-us", a.arrivalJitterUs, "each rank enters a collective up to this much late")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--end-jitter-us", a.endJitterUs, "each rank leaves a collective up to this much after the rest")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--cross-rail", a.job.crossRail, "send connections leaving through a NIC of another rail")
      ->capture_default_str();
  app.add_option("--seed", a.job.seed, "seed: the same seed writes the same bytes")->capture_default_str();
  app.add_flag("--mnnvl,!--no-mnnvl", a.job.mnnvl, "a rack is one NCCL node (default), or each tray is");
  app.add_flag("--net", a.job.net, "also write the profiler's network summaries (large)");
  app.add_option("--truth", a.truthPath, "where to write truth.json (default: OUT/truth.json)");
  app.add_option("--threads", a.threads, "rendering threads (default: one per hardware thread)")
      ->check(CLI::NonNegativeNumber);
}

}  // namespace

Command addPathsSynthCommand(CLI::App& paths) {
  auto args = std::make_shared<SynthArgs>();
  CLI::App* app = paths.add_subcommand("synth",
                                       "write realistic path and collective logs of a job of N ranks, "
                                       "with injected stragglers and cross-rail links, and their truth");
  addOptions(*app, *args);
  return {app, [args]() { return runSynth(*args); }};
}

}  // namespace railtune::cli
