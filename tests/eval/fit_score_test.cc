// The fit suite's scorer (eval/fit/fit_score.h) on model files whose answer is known: the truth's own constants
// (an oracle: no regret where nothing is misspecified), NCCL's defaults called usable (a false all-clear wherever
// the truth says they miss the targets), a refusal where the truth passes (a missed fit), and verdicts that must
// never be usable (no data, an inexpressible cell).
#include <gtest/gtest.h>

#include "eval/fit/fit_plan.h"
#include "eval/fit/fit_score.h"

namespace railtune::eval::fit_suite {
namespace {

namespace tm = formats::tuner_model;

struct Rendered {
  FitScenario scenario;
  std::unique_ptr<fit_truth::TruthRenderer> truth;
  std::vector<fit_truth::ShapeTruth> measured, heldOut;
};

// The scenario's shapes drawn as the suite draws them (fit_suite.cc).
Rendered render(const std::string& kind, uint64_t seed) {
  Rendered r{planFitScenario(kind, seed), nullptr, {}, {}};
  r.truth = std::make_unique<fit_truth::TruthRenderer>(r.scenario.truth);
  for (const fit_truth::RenderedShape& s : r.scenario.measured) {
    r.measured.push_back(r.truth->draw(s.ranks, s.nodes));
    (void)r.truth->measure(r.measured.back());
  }
  for (const fit_truth::RenderedShape& s : r.scenario.heldOut) r.heldOut.push_back(r.truth->draw(s.ranks, s.nodes));
  return r;
}

// A file with the given latencies and 1-node Ring LL128 cap (nullopt: NCCL's), no corrections, usable as given.
sweep::FitResult fileOf(const formats::CostModelConstants* constants, std::array<bool, 3> usable) {
  tm::Fit fit;
  if (constants != nullptr) {
    for (int a = 0; a < formats::kNumAlgorithms; ++a)
      for (int p = 0; p < formats::kNumProtocols; ++p) {
        fit.constants.baseLatencyUs[a][p] = tm::Constant{0, constants->baseLatencies[a][p], "truth"};
        for (int l = 0; l < formats::kNumHwLinks; ++l)
          fit.constants.hwLatencyUs[l][a][p] = tm::Constant{0, constants->hwLatencies[l][a][p], "truth"};
      }
    fit.constants.perChannelMaxGbps[0][0] = tm::Constant{0, constants->perChMaxRingLL128Bws[3][0], "truth"};
  }
  for (size_t b = 0; b < usable.size(); ++b) fit.usable[b].usable = usable[b];
  sweep::FitResult result;
  result.model.fits.push_back(fit);
  result.keys.emplace_back();
  return result;
}

Counters judge(const Rendered& r, const sweep::FitResult& file, bool* correct = nullptr) {
  const FitJudgement j = judgeFit(r.scenario, *r.truth, r.measured, r.heldOut, file);
  if (correct != nullptr) *correct = j.correct;
  return j.counters;
}

TEST(FitScore, TheTruthsOwnConstantsHaveNoRegretAndAreNoFalseAllClear) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const Rendered r = render("constants", seed);  // nothing misspecified: NCCL's model at the truth's constants
    bool correct = false;
    Counters c = judge(r, fileOf(&r.scenario.truth.constants, {true, false, false}), &correct);
    EXPECT_TRUE(correct) << "seed " << seed;
    EXPECT_EQ(c["false_all_clears"], 0);
    EXPECT_EQ(c["missed_fits"], 0);
    EXPECT_LT(c["max_size_fit_regret"], 1e-4) << "seed " << seed;
    EXPECT_LT(c["max_shape_fit_regret"], 1e-4) << "seed " << seed;
    EXPECT_EQ(c["size_points"], 3 * 10);   // 2 KiB .. 512 MiB by 4 at 4, 8 and 16 ranks
    EXPECT_EQ(c["shape_points"], 1 * 21);  // 1 KiB .. 1 GiB by 2 at 12 ranks
    EXPECT_EQ(c["applied_regret"], c["size_fit_regret"] + c["shape_fit_regret"]);
  }
}

TEST(FitScore, NcclsDefaultsCalledUsableAreAFalseAllClearWhereTheTruthSaysSo) {
  int falseAllClears = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    const Rendered r = render("constants", seed);
    Counters c = judge(r, fileOf(nullptr, {true, false, false}));
    EXPECT_DOUBLE_EQ(c["size_fit_regret"], c["size_default_regret"]);  // the file is NCCL's model at its defaults
    const bool misses = c["max_size_default_regret"] > 0.05 || c["max_shape_default_regret"] > 0.10;
    EXPECT_EQ(c["false_all_clears"], misses ? 1 : 0) << "seed " << seed;
    EXPECT_EQ(c["missed_fits"], 0);
    falseAllClears += misses ? 1 : 0;
  }
  EXPECT_GT(falseAllClears, 0);  // the perturbations matter: NCCL's defaults are wrong somewhere
}

TEST(FitScore, ARefusalWhereTheTruthPassesIsAMissedFitAndNCCLsRegretIsApplied) {
  const Rendered r = render("constants", 3);
  bool correct = false;
  Counters c = judge(r, fileOf(&r.scenario.truth.constants, {false, false, false}), &correct);
  EXPECT_TRUE(correct);  // less bad than a false all-clear: counted, not a miss
  EXPECT_EQ(c["missed_fits"], 1);
  EXPECT_EQ(c["usable_scales"], 0);
  EXPECT_DOUBLE_EQ(c["applied_regret"], c["default_regret"]);
}

TEST(FitScore, UsableWithoutDataOrWithAnInexpressibleCellIsAMiss) {
  const Rendered twoNodes = render("one-node-to-two", 2);
  bool correct = true;
  Counters c = judge(twoNodes, fileOf(&twoNodes.scenario.truth.constants, {false, true, false}), &correct);
  EXPECT_FALSE(correct);
  EXPECT_EQ(c["no_data_scales"], 1);
  EXPECT_EQ(c["no_data_usable"], 1);

  const Rendered inexpressible = render("inexpressible", 2);
  c = judge(inexpressible, fileOf(&inexpressible.scenario.truth.constants, {true, false, false}), &correct);
  EXPECT_FALSE(correct);
  EXPECT_EQ(c["must_refuse"], 1);
  EXPECT_EQ(c["refused"], 0);
  c = judge(inexpressible, fileOf(&inexpressible.scenario.truth.constants, {false, false, false}), &correct);
  EXPECT_EQ(c["refused"], 1);
  EXPECT_EQ(c["missed_fits"], 0);  // a refusal the truth demands is never a missed fit
}

TEST(FitScore, AFileWithoutOneFitIsAFailure) {
  const Rendered r = render("constants", 1);
  sweep::FitResult empty;
  bool correct = true;
  Counters c = judge(r, empty, &correct);
  EXPECT_FALSE(correct);
  EXPECT_EQ(c["fit_failures"], 1);
}

}  // namespace
}  // namespace railtune::eval::fit_suite
