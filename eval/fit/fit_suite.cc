// `sweep fit` scored against injected truth (docs/accuracy.md, "fit"): per seed, NCCL's GB300 cost model at
// perturbed constants with a misspecification real clusters show (fit_plan.h), measured as nccl-tests would at some
// shapes (fit_truth.h), fitted by the fit's own entry point (fitPoints, what `railtune sweep fit` runs after
// reading its datasets), then judged at sizes and shapes it never saw by the truth itself (fit_score.h).
#include "eval/fit/fit_suite.h"

#include <exception>

#include "eval/fit/fit_plan.h"
#include "eval/fit/fit_score.h"

namespace railtune::eval {
namespace {

namespace fs = fit_suite;

class FitSuite : public Suite {
 public:
  std::string name() const override { return "fit"; }
  std::string describe() const override {
    return "sweep fit on GB300 sweeps rendered from NCCL's cost model at perturbed constants, with graph error, "
           "noise, LL decay, Ring/Simple off the model and an inexpressible cell: constants recovered, true regret "
           "at held-out sizes and shapes, and the verdict's honesty";
  }
  std::vector<std::string> kinds() const override { return fs::fitKinds(); }
  std::vector<ScenarioSpec> scenarios(SetSize set) const override {
    std::vector<ScenarioSpec> out;
    const uint64_t seeds = set == SetSize::Ci ? 4 : 40;
    for (const std::string& kind : fs::fitKinds())
      for (uint64_t s = 1; s <= seeds; ++s) out.push_back(ScenarioSpec{kind, s, 0});
    return out;
  }
  ScenarioResult run(const ScenarioSpec& spec, const RunContext& context) const override;
  std::vector<Target> targets() const override;
};

ScenarioResult FitSuite::run(const ScenarioSpec& spec, const RunContext&) const {
  const fs::FitScenario scenario = fs::planFitScenario(spec.kind, spec.seed);
  fit_truth::TruthRenderer renderer(scenario.truth);
  std::vector<fit_truth::ShapeTruth> measured, heldOut;
  sweep::FitPoints points;
  for (const fit_truth::RenderedShape& s : scenario.measured) {
    measured.push_back(renderer.draw(s.ranks, s.nodes));
    points.groups.push_back(renderer.measure(measured.back()));
  }
  for (const fit_truth::RenderedShape& s : scenario.heldOut) heldOut.push_back(renderer.draw(s.ranks, s.nodes));
  ScenarioResult result;
  result.shape = scenario.shape;
  sweep::FitOptions options;
  options.maxSeconds = 600;  // never truncated: the verdict scored is the fit's, not the machine's
  fs::FitJudgement judgement;
  try {
    judgement = fs::judgeFit(scenario, renderer, measured, heldOut, sweep::fitPoints(points, options));
  } catch (const std::exception& e) {
    judgement.correct = false;
    judgement.counters["fit_failures"] = 1;
    judgement.notes.push_back(std::string("the fit threw: ") + e.what());
  }
  result.correct = judgement.correct;
  for (const std::string& note : judgement.notes)
    if (!result.correct) result.miss += (result.miss.empty() ? "" : "; ") + note;
  result.counters = std::move(judgement.counters);
  return result;
}

// The figures docs/accuracy.md reports, read off the sums. The honesty and the constants' targets are absolute (a
// false all-clear is the worst answer the fit can give); the others were measured on the full set first.
std::vector<Target> FitSuite::targets() const {
  return {
      {"false all-clears (usable, truth misses the target at held-out points)",
       [](const Counters& c) { return counterValue(c, "false_all_clears"); }, 0, false, ""},
      {"usable at a scale with no data", [](const Counters& c) { return counterValue(c, "no_data_usable"); }, 0, false,
       ""},
      {"inexpressible truths not usable",
       [](const Counters& c) { return counterRatio(c, "refused", "must_refuse", 1); }, 1.0, true, "%"},
      {"perturbed constants identified within 10 % of truth",
       [](const Counters& c) { return counterRatio(c, "perturbed_within", "perturbed_identified", 1); }, 1.0, true,
       "%"},
      {"fits that failed", [](const Counters& c) { return counterValue(c, "fit_failures"); }, 0, false, ""},
      // Refusing everything would give no false all-clear: a fit the truth would pass must mostly be called usable.
      // 25 % of 440 scales with data in the full set of 2026-12-06 (docs/accuracy.md), 27 % of CI's 44.
      {"missed fits (not usable, truth within the targets), of the scales with data",
       [](const Counters& c) { return counterRatio(c, "missed_fits", "judged_scales", 0); }, 0.30, false, "%"},
      {"held-out mean regret as applied, minus NCCL default's",
       [](const Counters& c) {
         return counterRatio(c, "applied_regret", "held_out_points", 0) -
                counterRatio(c, "default_regret", "held_out_points", 0);
       },
       0, false, "%"},
  };
}

}  // namespace

std::unique_ptr<Suite> makeFitSuite() {
  return std::make_unique<FitSuite>();
}

}  // namespace railtune::eval
