// The hangs suite (hangs_suite.h): its scenarios, each run from (kind, seed, ranks), and its targets.
#include "eval/hangs/hangs_suite.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "eval/hangs/hangs_judge.h"
#include "eval/hangs/synth_job.h"

namespace railtune::eval {
namespace {

namespace fs = std::filesystem;
using hangs::Truth;

// The link and NIC kinds draw a ring or NVLS-like world; their "-tree" twins a tree world, where the
// reduce and broadcast halves stop on different links (docs/profile-analysis.md).
const std::vector<std::string> kSynthKinds{"sigstop",      "sigkill",   "never-enters", "link-one-direction",
                                           "nic-down",     "slow-rank", "healthy",      "link-one-direction-tree",
                                           "nic-down-tree"};
const std::vector<std::string> kEmuKinds{"emu-sigstop", "emu-sigkill", "emu-link-one-direction", "emu-healthy"};
const int kSizes[] = {8, 16, 32, 64, 128, 256, 512};

bool isHang(const std::string& kind) {
  return kind != "healthy" && kind != "slow-rank" && kind != "emu-healthy";
}

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The job's "stalled link: rank A -> rank B ..." line.
bool stalledLink(const std::string& output, Truth& truth) {
  std::ifstream in(output);
  for (std::string line; std::getline(in, line);)
    if (std::sscanf(line.c_str(), "stalled link: rank %d -> rank %d", &truth.rank, &truth.toRank) == 2) {
      truth.kind = "link";
      return true;
    }
  return false;
}

// An 8-rank `railtune emu net-job` over 2 racks with the profiler, as a user runs it: one rank's process
// stopped or killed, or one send over the net plugin stalled, 1.5 to 2.4 s in (watchdog timeout 1 s, the
// job stopped at 6 s), or left healthy.
ScenarioResult runEmulated(const ScenarioSpec& spec, const RunContext& context) {
  ScenarioResult result;
  const int rank = static_cast<int>(spec.seed % 8);
  const std::string signal = spec.kind == "emu-sigstop" ? "STOP" : spec.kind == "emu-sigkill" ? "KILL" : "";
  const bool stall = spec.kind == "emu-link-one-direction";
  result.shape = "8 ranks, 2 racks, emulated" +
                 (signal.empty() ? "" : ", SIG" + signal + " rank " + std::to_string(rank)) +
                 (stall ? ", plugin send " + std::to_string(spec.seed) + " stalled" : "");
  const std::string railtune = (fs::path(context.binDir) / "railtune").string();
  if (!fs::exists(railtune)) {
    result.correct = false, result.miss = "no railtune binary at " + railtune;
    return result;
  }
  const std::string dir = context.scratchDir, prof = dir + "/profile";
  std::string cmd = "RAILTUNE_HANG_TIMEOUT=1 RAILTUNE_RAIL_MAP= " + quoted(railtune) +
                    " emu net-job --ranks 8 --racks 2 --collectives all-reduce --bytes 65536 --profile-dir " +
                    quoted(prof) + " --job-dir " + quoted(dir + "/job") + " --plugin-dir " + quoted(context.libDir);
  const std::string after = std::to_string(1.5 + static_cast<double>(spec.seed % 10) / 10.0);
  if (stall)
    cmd += " --iterations 100000 --timeout 6 --stall-link " + std::to_string(spec.seed) + " --stall-after " + after;
  else if (signal.empty())
    cmd += " --iterations 20 --timeout 60";
  else
    cmd += " --iterations 100000 --timeout 6 --signal-rank " + std::to_string(rank) + " --signal " + signal +
           " --signal-after " + after;
  cmd += " >" + quoted(dir + "/net-job.txt") + " 2>&1";
  const int status = std::system(cmd.c_str());
  const bool jobOk = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (signal.empty() && !stall && !jobOk) {
    result.correct = false, result.miss = "the healthy emulated job failed (see " + dir + "/net-job.txt)";
    return result;
  }
  Truth truth;
  if (!signal.empty()) truth.kind = "rank", truth.rank = rank;
  if (stall && !stalledLink(dir + "/net-job.txt", truth)) {
    result.correct = false,
    result.miss = "the emulated job did not say which link it stalled (see " + dir + "/net-job.txt)";
    return result;
  }
  const hangs::Verdict v = hangs::judgeHangs(prof, truth);
  result.correct = v.correct, result.miss = v.miss;
  result.counters = {{"hang_scenarios", isHang(spec.kind) ? 1 : 0},
                     {"root_cause_first", isHang(spec.kind) && v.correct ? 1 : 0},
                     {"wrong_cause_first", isHang(spec.kind) && !v.correct && v.named ? 1 : 0},
                     {"nonhang_scenarios", isHang(spec.kind) ? 0 : 1},
                     {"false_hangs", !isHang(spec.kind) && v.hangReported ? 1 : 0}};
  addCounters(result.counters, hangs::badInputCheck(prof, dir + "/bad-input", spec.seed));
  return result;
}

ScenarioResult runSynthetic(const ScenarioSpec& spec, const RunContext& context) {
  ScenarioResult result;
  const int ranks = spec.ranks > 0 ? spec.ranks : kSizes[spec.seed % 7];
  const std::string dir = context.scratchDir + "/logs";
  const hangs::SynthJob job = hangs::writeSynthJob(spec.kind, spec.seed, ranks, dir);
  result.shape = job.shape;
  const hangs::Verdict v = hangs::judgeHangs(dir, job.truth);
  result.correct = v.correct, result.miss = v.miss;
  const bool hang = job.truth.kind != "none";
  result.counters = {{"hang_scenarios", hang ? 1 : 0},
                     {"root_cause_first", hang && v.correct ? 1 : 0},
                     {"wrong_cause_first", hang && !v.correct && v.named ? 1 : 0},
                     {"nonhang_scenarios", hang ? 0 : 1},
                     {"false_hangs", !hang && v.hangReported ? 1 : 0},
                     {"log_lines", static_cast<double>(job.lines)},
                     {"max_ranks", ranks},
                     {"hung_tagged", v.taggedHung},
                     {"hung_tag_right", v.tagRight}};
  const Counters bad = hangs::badInputCheck(dir, context.scratchDir + "/bad-input", spec.seed);
  addCounters(result.counters, bad);
  if (bad.at("bad_input_unreported") > 0 || bad.at("bad_input_errors") > 0) {
    result.correct = false;
    result.miss += std::string(result.miss.empty() ? "" : "; ") +
                   "the truncated and shuffled copy was not reported as unreadable, or the analysis failed on it";
  }
  return result;
}

class HangsSuite final : public Suite {
 public:
  std::string name() const override { return "hangs"; }
  std::string describe() const override {
    return "profile hangs: the root cause (stopped/killed/absent rank, link, NIC) named first; no hang in "
           "non-hangs";
  }
  std::vector<std::string> kinds() const override {
    std::vector<std::string> all = kSynthKinds;
    all.insert(all.end(), kEmuKinds.begin(), kEmuKinds.end());
    return all;
  }
  // CI: 6 synthetic seeds per kind over 8..512 ranks, and one emulated job of each kind. Full: 60
  // synthetic seeds per kind (each size 7 times or more) and 3 emulated jobs of each kind.
  std::vector<ScenarioSpec> scenarios(SetSize set) const override {
    const int perKind = set == SetSize::Ci ? 6 : 60, emulated = set == SetSize::Ci ? 1 : 3;
    std::vector<ScenarioSpec> out;
    for (const std::string& kind : kSynthKinds)
      for (int i = 0; i < perKind; ++i) {
        const uint64_t seed = static_cast<uint64_t>(1000 + i);
        const int size = set == SetSize::Ci ? kSizes[static_cast<size_t>(i) % 5] : kSizes[static_cast<size_t>(i) % 7];
        out.push_back(ScenarioSpec{kind, seed, size});
      }
    if (set == SetSize::Ci) out.push_back(ScenarioSpec{"sigstop", 77, 512});
    for (const std::string& kind : kEmuKinds)
      for (int i = 0; i < emulated; ++i) out.push_back(ScenarioSpec{kind, static_cast<uint64_t>(3 + 5 * i), 8});
    return out;
  }
  ScenarioResult run(const ScenarioSpec& spec, const RunContext& context) const override {
    if (spec.kind.rfind("emu-", 0) == 0) return runEmulated(spec, context);
    return runSynthetic(spec, context);
  }
  std::vector<Target> targets() const override {
    return {
        Target{"root cause named first (hangs)",
               [](const Counters& c) { return counterRatio(c, "root_cause_first", "hang_scenarios", 0.0); }, 0.98, true,
               "%"},
        Target{"hung operations naming their user tag (profiler v7 records)",
               [](const Counters& c) { return counterRatio(c, "hung_tag_right", "hung_tagged", 1.0); }, 1.0, true, "%"},
        Target{"hangs reported in non-hang scenarios", [](const Counters& c) { return counterValue(c, "false_hangs"); },
               0, false, ""},
        Target{"cut or shuffled logs not reported",
               [](const Counters& c) {
                 return counterValue(c, "bad_input_unreported") + counterValue(c, "bad_input_errors");
               },
               0, false, ""},
    };
  }
};

}  // namespace

std::unique_ptr<Suite> makeHangsSuite() {
  return std::make_unique<HangsSuite>();
}

}  // namespace railtune::eval
