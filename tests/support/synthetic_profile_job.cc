// The tests' view of the synthetic job (synthetic_profile_job.h): a JobSpec in the tests' words, turned
// into analysis/synth's options and rail map.
#include "tests/support/synthetic_profile_job.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "analysis/synth/collective_records.h"
#include "analysis/synth/write_files.h"
#include "formats/rail_map.h"
#include "formats/schemas.h"

namespace railtune::testing::synthetic_profile {
namespace {

namespace sy = analysis::synth;

int64_t ns(double us) {
  return static_cast<int64_t>(us * 1000.0 + 0.5);
}

std::string rackName(int rack) {
  char text[16];
  std::snprintf(text, sizeof text, "r%03d", rack);
  return text;
}

std::string trayName(const JobSpec& spec, int tray) {
  char text[32];
  std::snprintf(text, sizeof text, "%s-t%02d", rackName(tray / spec.traysPerRack).c_str(), tray % spec.traysPerRack);
  return text;
}

sy::SynthOptions optionsOf(const JobSpec& spec) {
  sy::SynthOptions o;
  o.ranks = spec.ranks;
  o.job = spec.job;
  o.collectives = spec.collectives;
  o.seed = spec.seed;
  o.crossRail = 0;
  o.pathLog = false;
  o.silentRanks = spec.silentRanks;
  o.spread = {.arrivalJitterNs = ns(spec.jitterUs),
              .endJitterNs = 0,
              .maxClockOffsetNs = ns(spec.clockSpreadUs),
              .maxDriftPpm = spec.driftPpm,
              .hostsPerClock = spec.traysPerClock};
  o.bootIds = spec.bootIds;
  o.v7 = spec.v7;
  for (const Injected& i : spec.injected) {
    const sy::OffenderLevel level = i.level == Injected::Level::Rank   ? sy::OffenderLevel::Rank
                                    : i.level == Injected::Level::Tray ? sy::OffenderLevel::Tray
                                                                       : sy::OffenderLevel::Rack;
    o.late.push_back({.level = level, .index = i.index, .delayNs = ns(i.delayUs), .share = i.share});
  }
  if (o.late.empty()) o.offenders = {};  // nobody late unless a test names them
  return o;
}

}  // namespace

std::string railMapJson(const JobSpec& spec) {
  nlohmann::json hosts = nlohmann::json::array();
  const int trays = (spec.ranks + spec.ranksPerTray - 1) / spec.ranksPerTray;
  for (int tray = 0; tray < trays; ++tray) {
    nlohmann::json gpus = nlohmann::json::array();
    for (int g = 0; g < spec.ranksPerTray; ++g) {
      char bus[32];
      std::snprintf(bus, sizeof bus, "0000:%02x:00.0", 0x10 + g);
      gpus.push_back({{"index", g},
                      {"bus_id", bus},
                      {"nics",
                       {{{"hca", "mlx5_" + std::to_string(g)},
                         {"netdev", ""},
                         {"bus_id", bus},
                         {"port", 1},
                         {"rail", g},
                         {"plane", -1},
                         {"speed_mbps", 400000}}}}});
    }
    hosts.push_back({{"name", trayName(spec, tray)}, {"domain", rackName(tray / spec.traysPerRack)}, {"gpus", gpus}});
  }
  return nlohmann::json{{"schema", formats::kRailMapSchema},
                        {"cluster", spec.job},
                        {"rails", spec.ranksPerTray},
                        {"planes", 1},
                        {"hosts", hosts}}
             .dump(1) +
         "\n";
}

std::unique_ptr<sy::SynthJob> makeJob(const JobSpec& spec) {
  return sy::makeSynthJob(optionsOf(spec), formats::parseRailMap(railMapJson(spec), "synthetic rail map"));
}

void writeJob(const JobSpec& spec, const std::string& dir, unsigned threads) {
  sy::writeJobFiles(*makeJob(spec), dir, static_cast<int>(threads));
}

double clockOffsetUs(const JobSpec& spec, int tray) {
  return static_cast<double>(makeJob(spec)->timeline.hostClock(tray).realtimeOffsetNs) / 1000.0;
}

double clockDriftPpm(const JobSpec& spec, int tray) {
  return makeJob(spec)->timeline.hostClock(tray).driftPpm;
}

std::vector<std::string> rankLines(const JobSpec& spec, int rank) {
  std::string text;
  sy::appendCollectiveLog(*makeJob(spec), rank, text);
  std::vector<std::string> lines;
  for (size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    lines.push_back(text.substr(start, end - start));
  return lines;
}

}  // namespace railtune::testing::synthetic_profile
