// `railtune paths synth --ranks N --out DIR [...]`: writes the logs a real job of N ranks would leave
// (per rank a path log and a collective log, optionally the network summary) with injected stragglers,
// slow trays and racks and cross-rail connections, and DIR/truth.json saying exactly what was
// injected: the input of the scale benchmark (bench/run_paths_scale.sh) and of tests that measure the
// analyses against the truth. docs/paths.md, "railtune paths synth" describes the model.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "analysis/synth/rail_map_source.h"
#include "analysis/synth/synth_job.h"
#include "analysis/synth/truth.h"
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

std::string gigabytesText(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GB", gigabytes(bytes));
  return text;
}

// A fresh folder: files of an earlier job left beside the new ones would be analysed with them.
// Returns the bytes free there, after checking that `needBytes` (and 5 % more) fit.
uint64_t prepareOutDir(const fs::path& dir, uint64_t needBytes) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_empty(dir, ec))
    throw sy::SynthError("--out " + dir.string() + " is not empty; synth writes into a new or empty folder");
  fs::create_directories(dir, ec);
  if (ec) throw sy::SynthError("cannot create --out " + dir.string() + ": " + ec.message());
  const fs::space_info space = fs::space(dir, ec);
  if (ec) return 0;  // unknown: the writes will say if it runs out
  if (space.available < needBytes + needBytes / 20)
    throw sy::SynthError("--out " + dir.string() + ": the logs need about " + gigabytesText(needBytes) + " and only " +
                         gigabytesText(space.available) + " are free there");
  return space.available;
}

void writeTruth(const sy::SynthJob& job, const std::string& path) {
  std::ofstream out(path, std::ios::trunc);
  out << sy::renderTruth(job);
  if (!out.flush()) throw sy::SynthError("cannot write " + path);
}

void printPlan(const sy::SynthJob& job) {
  const sy::JobPlacement& place = job.placement;
  std::printf("job %s: %d ranks on %zu hosts in %zu racks (%s), %zu collectives, %d channels\n",
              job.options.job.c_str(), job.ranks(), place.hosts.size(), place.domains.size(),
              place.mnnvl ? "MNNVL: a rack is one NCCL node" : "no MNNVL: a tray is one NCCL node",
              job.timeline.collectives().size(), job.connections.channels());
  for (const sy::Offender& o : job.offenders.list) {
    if (o.level == sy::OffenderLevel::Rank) {
      std::printf("injected slow rank: rank %d on %s\n", o.index, place.hostOf(o.index).name.c_str());
      continue;
    }
    const std::string where = o.level == sy::OffenderLevel::Tray ? place.hosts[static_cast<size_t>(o.index)].entry->name
                                                                 : place.domains[static_cast<size_t>(o.index)];
    std::printf("injected slow %s: %s (%zu ranks)\n", sy::offenderLevelName(o.level), where.c_str(), o.ranks.size());
  }
  for (const sy::CrossRailConnection& c : job.connections.crossRail()) {
    const sy::PlacedHost& host = place.hosts[static_cast<size_t>(place.ranks[static_cast<size_t>(c.rank)].host)];
    const sy::HostNic& nic = host.nics[static_cast<size_t>(c.actual)];
    std::printf("injected cross-rail: rank %d on %s channel %d sends through %s (rail %d), its GPU's rail is %d\n",
                c.rank, host.entry->name.c_str(), c.channel, nic.hca.c_str(), nic.rail, place.expectedRailOf(c.rank));
  }
}

// A job larger than the cluster is refused before anything is placed, saying how to give a larger one:
// the default cluster (2 racks, 144 GPUs) holds small jobs only.
void requireEnoughGpus(const formats::RailMap& map, int ranks) {
  size_t gpus = 0;
  for (const formats::RailMapHost& host : map.hosts) gpus += host.gpus.size();
  if (ranks <= 0 || static_cast<size_t>(ranks) <= gpus) return;
  throw sy::SynthError(std::to_string(ranks) + " ranks need more GPUs than the rail map's " + std::to_string(gpus) +
                       " (" + std::to_string(map.hosts.size()) +
                       " hosts): place the job on a larger cluster with --fabric FILE or --rail-map FILE "
                       "(railtune's source tree has bench/data/gb300-114-racks.yaml: 114 GB300 NVL72 racks, "
                       "8,208 GPUs)");
}

int runSynth(SynthArgs args) {
  const auto started = std::chrono::steady_clock::now();
  for (const std::string& text : args.late) args.job.late.push_back(sy::parseNamedOffender(text));
  args.job.spread = {.arrivalJitterNs = nanoseconds(args.arrivalJitterUs),
                     .endJitterNs = nanoseconds(args.endJitterUs),
                     .maxClockOffsetNs = nanoseconds(args.clockSpreadUs),
                     .maxDriftPpm = args.driftPpm,
                     .noiseShare = args.noisePercent / 100.0,
                     .noiseMaxNs = nanoseconds(args.noiseMaxUs),
                     .hostsPerClock = args.hostsPerClock};
  formats::RailMap map = sy::loadRailMap(args.fabric, args.railMap);
  requireEnoughGpus(map, args.job.ranks);
  std::unique_ptr<sy::SynthJob> job = sy::makeSynthJob(args.job, std::move(map));
  bool anyNet = false;
  for (int r = 0; r < job->ranks() && !anyNet; ++r) anyNet = job->placement.hasNetPeers(r);
  if (!anyNet)
    std::fprintf(stderr,
                 "railtune paths synth: note: every rank is in one NCCL node, so no connection uses the "
                 "network and no path log is written (more racks, or --no-mnnvl, give some)\n");
  printPlan(*job);
  const uint64_t need = sy::estimateBytes(*job);
  const uint64_t free = prepareOutDir(args.outDir, need);
  std::printf("writing about %.2f GB to %s (%.0f GB free there)\n", gigabytes(need), args.outDir.c_str(),
              gigabytes(free));
  std::fflush(stdout);
  if (args.truthPath.empty()) args.truthPath = (fs::path(args.outDir) / "truth.json").string();
  const sy::WriteSummary written = sy::writeJobFiles(*job, args.outDir, args.threads);
  writeTruth(*job, args.truthPath);
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
