// See stragglers_suite.h. A scenario writes its job's logs into the scratch folder, analyses them as
// `railtune profile stragglers --rail-map` does (in process: the same readers and analysis), and scores
// the answer (score.h); the damaged kind runs the CLI itself on the damaged logs (damage.h).
#include "eval/stragglers/stragglers_suite.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "analysis/profile/logs.h"
#include "analysis/profile/stragglers.h"
#include "analysis/synth/truth.h"
#include "analysis/synth/write_files.h"
#include "eval/common/command.h"
#include "eval/stragglers/damage.h"
#include "eval/stragglers/plan.h"
#include "eval/stragglers/score.h"
#include "eval/stragglers/stragglers_emulated.h"
#include "formats/rail_map.h"

namespace railtune::eval {
namespace {

namespace sy = analysis::synth;
namespace pa = analysis::profile;
using stragglers::Plan;

constexpr double kClockTargetUs = 100.0;
constexpr int kCommandTimeoutSeconds = 120;

// The damaged logs through the CLI: it must finish, count exactly the damaged lines, and analyse the rest.
void runDamaged(const ScenarioSpec& spec, const RunContext& context, ScenarioResult* result) {
  const stragglers::Damage damage = stragglers::damageLogs(context.scratchDir + "/logs", spec.seed);
  const std::string railMap = context.scratchDir + "/rail_map.json";
  const CommandRun run = runCli({context.binDir + "/railtune", "profile", "stragglers", context.scratchDir + "/logs",
                                 "--rail-map", railMap, "--json"},
                                context.scratchDir, "command", kCommandTimeoutSeconds);
  result->counters["damaged_runs"] = 1;
  result->counters["damaged_bad_lines"] = damage.badLines();
  std::string why;
  const std::string said = std::to_string(damage.badLines()) + " bad line" + (damage.badLines() == 1 ? "" : "s");
  if (run.timedOut)
    why = "no answer within " + std::to_string(kCommandTimeoutSeconds) + " s";
  else if (run.signal != 0)
    why = "killed by signal " + std::to_string(run.signal);
  else if (run.exitCode != 0)
    why = "exit status " + std::to_string(run.exitCode) + ": " + run.err.substr(0, 200);
  else if (damage.badLines() > 0 && run.err.find(said + " skipped") == std::string::npos)
    why = "expected '" + said + " skipped' (" + std::to_string(damage.truncated) + " files cut, " +
          std::to_string(damage.foreign) + " foreign lines); stderr: " + run.err.substr(0, 300);
  else if (damage.badLines() == 0 && run.err.find("bad line") != std::string::npos)
    why = "no line was damaged, yet: " + run.err.substr(0, 200);
  else if (run.out.find("\"offenders\"") == std::string::npos)
    why = "no report on stdout";
  result->counters["damaged_handled"] = why.empty() ? 1 : 0;
  if (!why.empty()) result->correct = false, result->miss = "damaged logs: " + why;
}

class StragglersSuite : public Suite {
 public:
  std::string name() const override { return "stragglers"; }
  std::string describe() const override {
    return "profile stragglers: late ranks, trays and racks named at their level, late arrival or slow compute, "
           "user-tag and path groups, host clock offsets, damaged logs";
  }
  std::vector<std::string> kinds() const override {
    std::vector<std::string> all = stragglers::kinds();
    for (const std::string& e : stragglers::emulatedKinds()) all.push_back(e);
    return all;
  }
  std::vector<ScenarioSpec> scenarios(SetSize set) const override {
    std::vector<ScenarioSpec> all = stragglers::scenarioList(set);
    for (const ScenarioSpec& e : stragglers::emulatedScenarios(set)) all.push_back(e);  // seconds each: a few seeds
    return all;
  }

  ScenarioResult run(const ScenarioSpec& spec, const RunContext& context) const override {
    if (stragglers::isEmulatedKind(spec.kind)) return stragglers::runEmulated(spec, context);
    const Plan plan = stragglers::makePlan(spec);
    ScenarioResult result;
    result.shape = plan.shape;
    const std::unique_ptr<sy::SynthJob> job =
        sy::makeSynthJob(plan.options, formats::parseRailMap(plan.railMapJson, "eval rail map"));
    const std::string logs = context.scratchDir + "/logs";
    std::filesystem::create_directories(logs);
    sy::writeJobFiles(*job, logs, 2);
    // Beside the logs, for a miss looked at with --keep: what was injected, and the rail map.
    std::ofstream(context.scratchDir + "/truth.json") << sy::renderTruth(*job);
    std::ofstream(context.scratchDir + "/rail_map.json") << plan.railMapJson;
    if (plan.damaged) {
      runDamaged(spec, context, &result);
      return result;
    }
    pa::ReadOptions read;
    read.folders = {logs};
    read.threads = 2;
    const pa::ProfileLogs logsRead = pa::readProfileLogs(read);
    const pa::StragglerReport report = pa::analyseStragglers(logsRead, &job->map, pa::StragglerOptions{});
    const stragglers::Score score = stragglers::scoreReport(*job, report, kClockTargetUs);
    result.counters = score.counters;
    result.correct = score.offendersExact && score.clocksWithinTarget && score.causesRight && score.tagsRight &&
                     logsRead.problems.count == 0;
    if (logsRead.problems.count > 0)
      result.miss += std::to_string(logsRead.problems.count) + " bad lines in clean logs. ";
    result.miss += score.miss;
    return result;
  }

  std::vector<Target> targets() const override {
    return {
        {"offenders named that were injected (precision)",
         [](const Counters& c) { return counterRatio(c, "offenders_hit", "offenders_named", 1.0); }, 0.95, true, "%"},
        {"injected offenders named at their level (recall)",
         [](const Counters& c) { return counterRatio(c, "offenders_hit", "offenders_true", 1.0); }, 0.95, true, "%"},
        {"worst host clock offset error", [](const Counters& c) { return counterValue(c, "max_clock_error_us"); },
         kClockTargetUs, false, "us"},
        {"hosts of one machine: offset difference",
         [](const Counters& c) { return counterValue(c, "max_same_machine_us"); }, 0.0, false, "us"},
        {"hosts whose truth is within their error bar",
         [](const Counters& c) { return counterRatio(c, "clocks_within_bars", "clock_hosts", 1.0); }, 0.99, true, "%"},
        {"cause named right where the kernel phases show it (of offenders found)",
         [](const Counters& c) { return counterRatio(c, "causes_right", "causes_true", 1.0); }, 0.9, true, "%"},
        {"wrong cause named (worse than unknown)",
         [](const Counters& c) { return counterRatio(c, "causes_wrong", "causes_true", 0.0); }, 0.0, false, "%"},
        {"cause guessed without kernel phases",
         [](const Counters& c) { return counterRatio(c, "causes_guessed", "causes_unphased", 0.0); }, 0.0, false, "%"},
        {"tag-only stragglers listed under their user tag",
         [](const Counters& c) { return counterRatio(c, "tag_hits", "tag_offenders", 1.0); }, 0.95, true, "%"},
        {"tag-only stragglers listed under another tag",
         [](const Counters& c) { return counterRatio(c, "tag_false", "tag_offenders", 0.0); }, 0.0, false, "%"},
        {"offenders listed under a user tag that were not injected",
         [](const Counters& c) { return counterRatio(c, "group_offenders_false", "group_offenders", 0.0); }, 0.0, false,
         "%"},
        {"symmetric-kernel collectives grouped apart, exactly",
         [](const Counters& c) { return counterRatio(c, "path_right", "path_checks", 1.0); }, 1.0, true, "%"},
        {"damaged logs read to the end, every damaged line counted",
         [](const Counters& c) { return counterRatio(c, "damaged_handled", "damaged_runs", 1.0); }, 1.0, true, "%"},
    };
  }
};

}  // namespace

std::unique_ptr<Suite> makeStragglersSuite() {
  return std::make_unique<StragglersSuite>();
}

}  // namespace railtune::eval
