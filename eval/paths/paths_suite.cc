// The `paths` suite: jobs of 8 to 512 ranks placed as `railtune paths synth` places them (paths_job.h), each with
// one injected cause or a mangling of its files (paths_mangle.h), checked and rendered in process and scored
// (paths_score.h). Kinds: one per injection (the files as the processes wrote them), and one per mangling (the
// files a launcher or a shared file leaves; each seed also injects a violation, so that it must still be found).
#include "eval/paths/paths_suite.h"

#include <algorithm>
#include <exception>

#include "eval/paths/paths_emulated.h"
#include "eval/paths/paths_job.h"
#include "eval/paths/paths_mangle.h"
#include "eval/paths/paths_score.h"

namespace railtune::eval {
namespace {

using namespace paths;  // NOLINT: the suite's own parts

constexpr int kSizes[] = {8, 16, 32, 64, 128, 256, 512};
// What a mangled scenario injects besides its mangling: a violation of each kind, and PXN (a non-violation).
const char* const kManglingInjections[] = {"misbind-send", "misbound-gpu",    "cross-rail", "cross-plane",
                                           "pxn",          "digest-mismatch", "clean"};

bool isMangle(const std::string& kind) {
  const auto& m = mangleKinds();
  return std::find(m.begin(), m.end(), kind) != m.end();
}

class PathsSuite : public Suite {
 public:
  std::string name() const override { return "paths"; }
  std::string describe() const override {
    return "paths check and render: misbound GPUs and NICs, cross-rail and cross-plane sends, digests, PXN, unknown "
           "rails; logs split, duplicated, interleaved, spliced, truncated and shuffled; 8 to 512 ranks";
  }
  std::vector<std::string> kinds() const override {
    std::vector<std::string> all = injectionKinds();
    for (const std::string& m : mangleKinds()) all.push_back(m);
    for (const std::string& e : emulatedKinds()) all.push_back(e);
    return all;
  }
  std::vector<ScenarioSpec> scenarios(SetSize set) const override {
    const int perKind = set == SetSize::Ci ? 8 : 30;  // 8: every size of kSizes at least once per kind
    std::vector<ScenarioSpec> out;
    for (const std::string& kind : kinds())
      for (int i = 0; i < perKind && !isEmulatedKind(kind); ++i)
        out.push_back(ScenarioSpec{kind, static_cast<uint64_t>(1000 + i), 0});
    for (const ScenarioSpec& e : emulatedScenarios(set)) out.push_back(e);  // seconds each: a few seeds
    return out;
  }
  ScenarioResult run(const ScenarioSpec& spec, const RunContext& context) const override;
  std::vector<Target> targets() const override {
    return {
        {"injected violations found",
         [](const Counters& c) { return counterRatio(c, "found_violations", "injected_violations", 1.0); }, 1.0, true,
         "%"},
        {"false violations", [](const Counters& c) { return counterValue(c, "false_violations"); }, 0, false, ""},
        {"counts differing from the truth or between check and render",
         [](const Counters& c) { return counterValue(c, "count_mismatches"); }, 0, false, ""},
        {"damaged lines named",
         [](const Counters& c) { return counterRatio(c, "damaged_lines_named", "damaged_lines", 1.0); }, 1.0, true,
         "%"},
        {"rails unknown said",
         [](const Counters& c) { return counterRatio(c, "rails_unknown_said", "rails_unknown_scenarios", 1.0); }, 1.0,
         true, "%"},
    };
  }
};

ScenarioResult PathsSuite::run(const ScenarioSpec& spec, const RunContext& context) const {
  if (isEmulatedKind(spec.kind)) return runEmulated(spec, context);
  ScenarioResult result;
  result.spec = spec;
  const int ranks = spec.ranks > 0 ? spec.ranks : kSizes[spec.seed % std::size(kSizes)];
  result.spec.ranks = ranks;
  const bool mangled = isMangle(spec.kind);
  Rng pickRng(spec.seed * 7919 + 17);
  const std::string injection =
      mangled ? kManglingInjections[pickRng.below(static_cast<int>(std::size(kManglingInjections)))] : spec.kind;
  try {
    const GeneratedJob job = generateJob(injection, spec.seed, ranks);
    Rng mangleRng(spec.seed ^ 0x6d616e676c65ULL);
    const std::vector<OutFile> files = mangle(job, mangled ? spec.kind : "none", mangleRng);
    writeFiles(files, context.scratchDir);
    result.shape =
        job.shape + (mangled ? ", injected " + injection : "") + ", " + std::to_string(files.size()) + " files";
    Score score = scoreScenario(job, files, context.scratchDir);
    result.counters = std::move(score.counters);
    result.correct = score.misses.empty();
    for (const std::string& m : score.misses) result.miss += (result.miss.empty() ? "" : "; ") + m;
  } catch (const std::exception& e) {  // an analysis that throws answered nothing: a miss
    result.correct = false;
    result.miss = std::string("threw: ") + e.what();
    result.counters["count_mismatches"] += 1;
  }
  return result;
}

}  // namespace

std::unique_ptr<Suite> makePathsSuite() {
  return std::make_unique<PathsSuite>();
}

}  // namespace railtune::eval
