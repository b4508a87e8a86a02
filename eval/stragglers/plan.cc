// See plan.h. Every number below comes from the seed through analysis/synth/random.h's counter-based
// randomness, so a plan is the same on every machine.
#include "eval/stragglers/plan.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "analysis/synth/random.h"
#include "formats/schemas.h"

namespace railtune::eval::stragglers {
namespace {

namespace sy = analysis::synth;

constexpr int kGpusPerTray = 4;

// What each kind injects. Delays (200 us to 2 ms, late in about 30 % of the collectives) are the
// generator's own (analysis/synth/offenders.h); every host clock is off by up to +-50 ms.
struct KindShape {
  const char* name;
  int minRanks;
  sy::OffenderCounts offenders;  // the most of each; the seed picks 1..most where most > 0
  double driftPpm;               // the most a clock drifts
  int maxHostsPerClock;          // > 1: several hosts are one machine (one boot id)
  bool bootIds;
  bool damaged;
  sy::V7Spec v7;  // profiler v7 records: tags, paths, kernel phases, slow-compute and tag-only offenders
};

const KindShape kShapes[] = {
    {"late-rank", 8, {3, 0, 0}, 0, 1, false, false, {}},
    {"late-tray", 16, {0, 2, 0}, 0, 1, false, false, {}},
    {"late-rack", 16, {0, 0, 1}, 0, 1, false, false, {}},
    {"mixed", 16, {2, 1, 1}, 0, 1, false, false, {}},
    {"none", 8, {0, 0, 0}, 0, 1, false, false, {}},
    {"clock-skew", 8, {1, 1, 0}, 50, 1, true, false, {}},
    {"same-boot", 16, {1, 1, 0}, 20, 4, true, false, {}},
    {"truncated-shuffled", 16, {1, 1, 1}, 20, 2, true, true, {}},
    // Profiler v7: half the offenders slow to compute (no duration deficit: only the phases show them).
    {"phase-causes", 16, {2, 1, 1}, 0, 1, false, false, {true, 0.5, 0.0, 0.0}},
    // Profiler v7: rank stragglers, most late in one step phase's collectives only, a fifth of the
    // collectives on symmetric kernels.
    {"tagged-steps", 8, {3, 0, 0}, 0, 1, false, false, {true, 0.3, 0.7, 0.2}},
};

const KindShape& shapeOf(const std::string& kind) {
  for (const KindShape& s : kShapes)
    if (kind == s.name) return s;
  throw std::invalid_argument("no stragglers kind '" + kind + "'");
}

const std::vector<int>& sizes(SetSize set) {
  static const std::vector<int> ci{8, 16, 32, 64, 128, 256};
  static const std::vector<int> full{8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512};
  return set == SetSize::Ci ? ci : full;
}

uint64_t pick(uint64_t seed, uint64_t what, int64_t low, int64_t high) {
  return static_cast<uint64_t>(sy::randomBetween(seed, sy::Stream::Identity, low, high, 1000 + what));
}

// 1..most for a level the kind injects; at least one offender over all levels unless the kind has none.
sy::OffenderCounts offenderCounts(const KindShape& shape, uint64_t seed, int racks, int trays) {
  sy::OffenderCounts c;
  const sy::OffenderCounts& most = shape.offenders;
  if (most.stragglers > 0) c.stragglers = static_cast<int>(pick(seed, 1, 1, most.stragglers));
  if (most.slowTrays > 0) c.slowTrays = static_cast<int>(pick(seed, 2, 1, std::min(most.slowTrays, trays / 4 + 1)));
  if (most.slowRacks > 0 && racks >= 2) c.slowRacks = 1;
  return c;
}

}  // namespace

std::string railMapJson(int trays, int traysPerRack) {
  nlohmann::json hosts = nlohmann::json::array();
  for (int t = 0; t < trays; ++t) {
    nlohmann::json gpus = nlohmann::json::array();
    for (int g = 0; g < kGpusPerTray; ++g) {
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
                         {"speed_mbps", 800000}}}}});
    }
    char host[32], rack[16];
    std::snprintf(rack, sizeof rack, "rack%03d", t / traysPerRack);
    std::snprintf(host, sizeof host, "%s-tray%02d", rack, t % traysPerRack);
    hosts.push_back({{"name", host}, {"domain", rack}, {"gpus", gpus}});
  }
  return nlohmann::json{{"schema", formats::kRailMapSchema},
                        {"cluster", "eval"},
                        {"rails", kGpusPerTray},
                        {"planes", 1},
                        {"hosts", hosts}}
      .dump();
}

const std::vector<std::string>& kinds() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const KindShape& s : kShapes) out.emplace_back(s.name);
    return out;
  }();
  return names;
}

Plan makePlan(const ScenarioSpec& spec) {
  const KindShape& shape = shapeOf(spec.kind);
  const SetSize set = spec.seed >= kFullSeeds ? SetSize::Full : SetSize::Ci;
  const std::vector<int>& size = sizes(set);
  std::vector<int> allowed;
  for (int r : size)
    if (r >= shape.minRanks) allowed.push_back(r);
  const int ranks = spec.ranks > 0 ? std::max(spec.ranks, shape.minRanks)
                                   : allowed[pick(spec.seed, 0, 0, static_cast<int64_t>(allowed.size()) - 1)];
  const int trays = (ranks + kGpusPerTray - 1) / kGpusPerTray;
  // Racks of 2..18 trays (an NVL72 rack holds 18), at least two racks where the job has four trays.
  const int wantedRacks = static_cast<int>(pick(spec.seed, 3, 2, 8));
  const int traysPerRack = std::clamp(trays / wantedRacks, 2, 18);
  const int racks = (trays + traysPerRack - 1) / traysPerRack;
  Plan plan;
  plan.traysPerRack = traysPerRack;
  plan.damaged = shape.damaged;
  plan.railMapJson = railMapJson(trays, traysPerRack);
  sy::SynthOptions& o = plan.options;
  o.ranks = ranks;
  o.job = "eval-" + spec.kind + "-" + std::to_string(spec.seed);
  o.seed = spec.seed;
  o.collectives = set == SetSize::Ci ? 300 : static_cast<int>(pick(spec.seed, 4, 300, 1000));
  o.offenders = offenderCounts(shape, spec.seed, racks, trays);
  o.pathLog = false, o.crossRail = 0, o.net = false;
  o.bootIds = shape.bootIds;
  o.v7 = shape.v7;
  // Realistic jitter: ranks enter a collective up to 5..50 us apart and leave it up to 1..10 us apart.
  o.spread.arrivalJitterNs = static_cast<int64_t>(pick(spec.seed, 5, 5, 50)) * 1000;
  o.spread.endJitterNs = static_cast<int64_t>(pick(spec.seed, 6, 1, 10)) * 1000;
  // OS noise: each rank, in each collective, has a 0.5..2 % chance of arriving up to 300 us late once.
  o.spread.noiseShare = static_cast<double>(pick(spec.seed, 8, 5, 20)) / 1000.0;
  o.spread.noiseMaxNs = 300'000;
  o.spread.maxClockOffsetNs = 50'000'000;
  o.spread.maxDriftPpm = shape.driftPpm;
  o.spread.hostsPerClock =
      shape.maxHostsPerClock > 1 ? static_cast<int>(pick(spec.seed, 7, 2, shape.maxHostsPerClock)) : 1;
  char text[200];
  std::snprintf(
      text, sizeof text, "%d ranks, %d trays in %d racks, %d collectives, %d+%d+%d offenders, %.1f%% noise%s%s%s",
      ranks, trays, racks, o.collectives, o.offenders.slowRacks, o.offenders.slowTrays, o.offenders.stragglers,
      o.spread.noiseShare * 100.0, o.spread.maxDriftPpm > 0 ? ", drifting clocks" : "",
      o.spread.hostsPerClock > 1 ? (", " + std::to_string(o.spread.hostsPerClock) + " hosts per machine").c_str() : "",
      o.v7.enabled ? ", profiler v7 phases and tags" : "");
  plan.shape = text;
  return plan;
}

std::vector<ScenarioSpec> scenarioList(SetSize set) {
  std::vector<ScenarioSpec> out;
  for (const std::string& kind : kinds()) {
    for (uint64_t seed = 1; seed <= kCiSeeds; ++seed) out.push_back(ScenarioSpec{kind, seed, 0});
    if (set == SetSize::Full)
      for (uint64_t seed = kFullSeeds; seed < kFullSeeds + 40; ++seed) out.push_back(ScenarioSpec{kind, seed, 0});
  }
  return out;
}

}  // namespace railtune::eval::stragglers
