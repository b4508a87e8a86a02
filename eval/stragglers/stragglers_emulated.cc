// See stragglers_emulated.h.
#include "eval/stragglers/stragglers_emulated.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "emulator/net_job/launcher.h"
#include "eval/common/command.h"
#include "eval/stragglers/damage.h"

namespace railtune::eval::stragglers {
namespace emulated {  // not anonymous: the unity build joins this file with plan.cc and score.cc

constexpr int kJobSeconds = 180;      // net-job's own --timeout is below it, so the job reports its failure itself
constexpr int kAnalysisSeconds = 60;  // a 16-rank profile of 36 collectives reads in well under a second

// splitmix64 of (seed, what): each choice its own stream, so that adding one does not move the others.
uint64_t mix(uint64_t seed, uint64_t what) {
  uint64_t z = seed * 0x9e3779b97f4a7c15ULL + what * 0xbf58476d1ce4e5b9ULL + 0x656d752d73ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

int pick(uint64_t seed, uint64_t what, int low, int high) {
  return low + static_cast<int>(mix(seed, what) % static_cast<uint64_t>(high - low + 1));
}

const char* const kCollectives[] = {"all-reduce,all-gather", "all-reduce,reduce-scatter", "all-reduce,tree",
                                    "all-gather,reduce-scatter,all-reduce"};

// What the seed chose. The collectives are long enough (about 60 to 150 ms each on two shared cores) that the
// machine's own scheduling jitter (milliseconds) mostly stays under the analysis' 5 % floor; the delay is well above
// it. Mostly: on a loaded machine the OS does make a rank really late now and then (by 8 to 40 ms, its arrival late
// too), and the analysis names a rank late in 3 of its collectives. With 24 collectives a healthy 8-rank job had
// such a chance straggler in 2 of 8 runs at load 7; with 8 to 10 collectives in none of 24 at load 8 to 11, while
// the delayed rank, late in most of them, is still named.
struct EmulatedJob {
  int ranks = 8;
  bool twoRacks = true;  // --racks 2: plugin connections between the racks; else one rack, NVLink only (MNNVL)
  std::string collectives;
  size_t bytes = 0;
  int iterations = 12;
  int lateRank = -1;
  int delayUs = 0;
  std::string shape;
};

EmulatedJob planJob(const ScenarioSpec& spec, SetSize set) {
  EmulatedJob job;
  job.ranks = spec.ranks > 0 ? spec.ranks : (set == SetSize::Ci ? 8 : (pick(spec.seed, 1, 0, 1) != 0 ? 16 : 8));
  job.twoRacks = job.ranks % 8 == 0 && pick(spec.seed, 2, 0, 3) != 0;  // --racks 2 takes whole trays evenly
  job.collectives = kCollectives[pick(spec.seed, 3, 0, static_cast<int>(std::size(kCollectives)) - 1)];
  job.bytes =
      static_cast<size_t>(8 << 20) / static_cast<size_t>(job.ranks) + static_cast<size_t>(pick(spec.seed, 4, 0, 999));
  job.iterations = pick(spec.seed, 5, 4, 5);  // 8 to 10 collectives: see EmulatedJob
  if (spec.kind == "emu-late-rank") {
    job.lateRank = pick(spec.seed, 6, 0, job.ranks - 1);
    job.delayUs = pick(spec.seed, 7, 40, 80) * 1000;  // above the spread a loaded machine gives durations
  }
  job.shape =
      std::to_string(job.ranks) + " ranks in " + (job.twoRacks ? "2 racks" : "1 rack") + ", " + job.collectives +
      " x " + std::to_string(job.iterations) + ", " + std::to_string(job.bytes) + " bytes/rank" +
      (job.lateRank >= 0 ? ", rank " + std::to_string(job.lateRank) + " late by " + std::to_string(job.delayUs) + " us"
                         : "");
  return job;
}

std::vector<std::string> netJobCommand(const EmulatedJob& job, const RunContext& context, const std::string& map,
                                       const std::string& profile) {
  std::vector<std::string> argv{context.binDir + "/railtune", "emu", "net-job", "--ranks", std::to_string(job.ranks)};
  const std::vector<std::pair<std::string, std::string>> options{{"--rail-map", map},
                                                                 {"--collectives", job.collectives},
                                                                 {"--bytes", std::to_string(job.bytes)},
                                                                 {"--iterations", std::to_string(job.iterations)},
                                                                 {"--profile-dir", profile},
                                                                 {"--plugin-dir", context.libDir},
                                                                 {"--timeout", std::to_string(kJobSeconds - 30)}};
  for (const auto& [option, value] : options) argv.insert(argv.end(), {option, value});
  if (job.twoRacks) argv.insert(argv.end(), {"--racks", "2"});
  if (job.lateRank >= 0)
    argv.insert(argv.end(), {"--delay-rank", std::to_string(job.lateRank), "--delay-us", std::to_string(job.delayUs)});
  return argv;
}

std::string listed(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "nobody" : out;
}

void fail(ScenarioResult* result, const std::string& why) {
  result->correct = false;
  result->miss += why + ". ";
}

// The offenders named against the truth: the delayed rank at rank level, or nobody.
void scoreOffenders(const EmulatedJob& job, const nlohmann::json& answer, ScenarioResult* result) {
  std::set<std::string> truth, said;
  if (job.lateRank >= 0) truth.insert("rank " + std::to_string(job.lateRank));
  for (const nlohmann::json& o : answer["offenders"]) {
    const std::string level = o.value("level", "?");
    said.insert(
        level + " " +
        (level == "rank" ? std::to_string(o.value("rank", -1)) : o.value(level == "tray" ? "host" : "rack", "?")));
  }
  int hit = 0;
  for (const std::string& n : said) hit += truth.contains(n) ? 1 : 0;
  result->counters["offenders_true"] = static_cast<double>(truth.size());
  result->counters["offenders_named"] = static_cast<double>(said.size());
  result->counters["offenders_hit"] = hit;
  if (truth != said) fail(result, "injected " + listed(truth) + "; named " + listed(said));
}

// Every host's clock offset is exactly 0 (one machine, one boot id, one clock), within its error bar, and known.
void scoreClocks(const nlohmann::json& answer, ScenarioResult* result) {
  const nlohmann::json& hosts = answer["clocks"]["hosts"];
  double worst = 0, low = 0, high = 0;
  int unknown = 0, withinBars = 0;
  std::set<std::string> clocks;
  for (const nlohmann::json& h : hosts) {
    clocks.insert(h.value("clock", ""));
    if (!h.contains("offset_us") || !h["offset_us"].is_number()) {
      ++unknown;
      continue;
    }
    const double offset = h["offset_us"].get<double>(), error = h.value("error_us", 0.0);
    worst = std::max(worst, std::abs(offset));
    low = std::min(low, offset), high = std::max(high, offset);
    withinBars += std::abs(offset) <= error ? 1 : 0;
  }
  result->counters["clock_hosts"] = static_cast<double>(hosts.size());
  result->counters["clocks_unknown"] = unknown;
  result->counters["clocks_within_bars"] = withinBars;
  result->counters["max_clock_error_us"] = worst;
  result->counters["max_same_machine_us"] = high - low;
  if (hosts.empty()) fail(result, "no host clock in the report");
  if (unknown > 0 || worst != 0 || clocks.size() > 1)
    fail(result, "host clock offsets up to " + std::to_string(worst) + " us from 0 (" + std::to_string(unknown) +
                     " unknown, " + std::to_string(clocks.size()) + " clocks) on one machine");
}

// The same logs damaged as a crashed writer or a careless copy leaves them (damage.h: files cut mid-line, shuffled,
// given a foreign line), through the command again: it must finish, count exactly the damaged lines and still report.
void damagedRun(const std::string& profile, const std::string& map, const ScenarioSpec& spec, const RunContext& context,
                ScenarioResult* result) {
  const Damage damage = damageLogs(profile, spec.seed);
  const CommandRun run =
      runCli({context.binDir + "/railtune", "profile", "stragglers", profile, "--rail-map", map, "--json"},
             context.scratchDir, "stragglers-damaged", kAnalysisSeconds);
  const std::string said = std::to_string(damage.badLines()) + " bad line" + (damage.badLines() == 1 ? "" : "s");
  std::string why;
  if (run.exitCode != 0)
    why = run.describe() + ": " + run.err.substr(0, 200);
  else if (damage.badLines() > 0 && run.err.find(said + " skipped") == std::string::npos)
    why = "expected '" + said + " skipped'; stderr: " + run.err.substr(0, 300);
  else if (run.out.find("\"offenders\"") == std::string::npos)
    why = "no report on stdout";
  result->counters["damaged_runs"] = 1;
  result->counters["damaged_bad_lines"] = damage.badLines();
  result->counters["damaged_handled"] = why.empty() ? 1 : 0;
  if (!why.empty())
    fail(result, "damaged logs (" + std::to_string(damage.truncated) + " cut, " + std::to_string(damage.shuffled) +
                     " shuffled): " + why);
}

}  // namespace emulated

using namespace emulated;  // NOLINT: this file's own helpers

const std::vector<std::string>& emulatedKinds() {
  static const std::vector<std::string> kinds{"emu-late-rank", "emu-one-host-clock"};
  return kinds;
}

bool isEmulatedKind(const std::string& kind) {
  const auto& k = emulatedKinds();
  return std::find(k.begin(), k.end(), kind) != k.end();
}

// The full set only. An emulated job runs its ranks as processes on this machine, whose scheduler makes real
// stragglers under load (a rank descheduled before it enters a collective is late, and the analysis is
// right to say so): with two busy loops beside it, a job with nobody delayed had a rank named in 1 of 20
// runs. CI runs beside other tests, so its fixed seeds are the synthetic ones, whose truth no scheduler
// moves; seed 1 of each kind still replays with --kind and --seed.
std::vector<ScenarioSpec> emulatedScenarios(SetSize set) {
  std::vector<ScenarioSpec> out;
  for (const std::string& kind : emulatedKinds()) {
    for (uint64_t s = 0; set == SetSize::Full && s < 12; ++s)
      out.push_back(ScenarioSpec{kind, kFullEmulatedSeeds + s, 0});
  }
  return out;
}

ScenarioResult runEmulated(const ScenarioSpec& spec, const RunContext& context) {
  ScenarioResult result;
  result.spec = spec;
  const EmulatedJob job = planJob(spec, spec.seed >= kFullEmulatedSeeds ? SetSize::Full : SetSize::Ci);
  result.spec.ranks = job.ranks;
  result.shape = job.shape;
  const std::string dir = context.scratchDir, map = dir + "/rail-map.json", profile = dir + "/profile";
  std::ofstream(map) << emu::netjob::railMapText("");  // the built-in cluster's: the job's rail map
  const std::vector<std::string> netJob = netJobCommand(job, context, map, profile);
  const CommandRun ran = runCli(netJob, dir, "net-job", kJobSeconds);
  if (ran.exitCode != 0) {
    fail(&result, "emu net-job: " + ran.describe() + ": " + ran.err.substr(0, 400) + " (" + commandLine(netJob) + ")");
    result.counters["offenders_true"] = job.lateRank >= 0 ? 1 : 0;
    return result;
  }
  const CommandRun analysis =
      runCli({context.binDir + "/railtune", "profile", "stragglers", profile, "--rail-map", map, "--json"}, dir,
             "stragglers", kAnalysisSeconds);
  nlohmann::json answer = nlohmann::json::parse(analysis.out, nullptr, false);
  if (analysis.exitCode != 0 || answer.is_discarded() || answer["jobs"].size() != 1) {
    fail(&result, "profile stragglers: " + analysis.describe() + ", " +
                      (answer.is_discarded() ? "no JSON" : std::to_string(answer["jobs"].size()) + " jobs") + ": " +
                      analysis.err.substr(0, 300));
    result.counters["offenders_true"] = job.lateRank >= 0 ? 1 : 0;
    return result;
  }
  if (analysis.err.find("bad line") != std::string::npos)
    fail(&result, "bad lines in the profiler's own logs: " + analysis.err.substr(0, 200));
  scoreOffenders(job, answer["jobs"][0], &result);
  scoreClocks(answer["jobs"][0], &result);
  damagedRun(profile, map, spec, context, &result);
  return result;
}

}  // namespace railtune::eval::stragglers
