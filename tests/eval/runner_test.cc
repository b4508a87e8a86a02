// The eval runner (eval/common/runner.h) on a suite whose answers are known: counters add up over
// scenarios ("max_" keys keep the largest), targets are read off the sums, every miss is listed with the
// command that replays it, and --seed replays exactly the scenarios named.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "eval/common/runner.h"

namespace railtune::eval {
namespace {

// Seeds divisible by 3 are missed; each scenario offers 2 chances and hits 2, or 1 when missed.
class FakeSuite : public Suite {
 public:
  std::string name() const override { return "fake"; }
  std::string describe() const override { return "a suite whose answers are known"; }
  std::vector<std::string> kinds() const override { return {"a", "b"}; }
  std::vector<ScenarioSpec> scenarios(SetSize set) const override {
    std::vector<ScenarioSpec> specs;
    const uint64_t n = set == SetSize::Ci ? 6 : 30;
    for (uint64_t seed = 0; seed < n; ++seed) specs.push_back({seed % 2 == 0 ? "a" : "b", seed, 8});
    return specs;
  }
  ScenarioResult run(const ScenarioSpec& spec, const RunContext& context) const override {
    EXPECT_TRUE(std::filesystem::is_directory(context.scratchDir)) << context.scratchDir;
    scratch.push_back(context.scratchDir);
    ScenarioResult result;
    result.shape = "8 ranks";
    result.correct = spec.seed % 3 != 0;
    if (!result.correct) result.miss = "named rank 1, truth rank " + std::to_string(spec.seed);
    result.counters = {{"chances", 2}, {"hits", result.correct ? 2 : 1}, {"max_error_us", double(spec.seed)}};
    return result;
  }
  std::vector<Target> targets() const override {
    return {{"hit rate", [](const Counters& c) { return c.at("hits") / c.at("chances"); }, 0.9, true, "%"},
            {"largest error", [](const Counters& c) { return c.at("max_error_us"); }, 100, false, "us"}};
  }
  mutable std::vector<std::string> scratch;
};

TEST(EvalRunner, SumsCountersReadsTargetsAndListsMisses) {
  FakeSuite suite;
  RunOptions options;
  const SuiteReport report = runSuite(suite, options);
  ASSERT_EQ(report.kinds.size(), 2u);
  EXPECT_EQ(report.kinds[0].kind, "a");
  EXPECT_EQ(report.kinds[0].scenarios, 3);  // seeds 0, 2, 4
  EXPECT_EQ(report.kinds[0].correct, 2);    // 0 is missed
  EXPECT_EQ(report.kinds[1].correct, 2);    // 3 is missed
  EXPECT_DOUBLE_EQ(report.total.at("chances"), 12);
  EXPECT_DOUBLE_EQ(report.total.at("hits"), 10);
  EXPECT_DOUBLE_EQ(report.total.at("max_error_us"), 5);
  ASSERT_EQ(report.misses.size(), 2u);
  EXPECT_EQ(report.misses[1].spec.seed, 3u);
  ASSERT_EQ(report.targets.size(), 2u);
  EXPECT_NEAR(report.targets[0].value, 10.0 / 12.0, 1e-12);
  EXPECT_FALSE(report.targets[0].met);
  EXPECT_TRUE(report.targets[1].met);
  EXPECT_FALSE(report.met());
  for (const std::string& dir : suite.scratch) EXPECT_FALSE(std::filesystem::exists(dir)) << dir;

  const std::string text = renderReportText({report});
  EXPECT_NE(text.find("suite fake: 6 scenarios, 4 correct, 2 missed"), std::string::npos) << text;
  EXPECT_NE(text.find("target hit rate: 83.3 % >= 90.0 %  NOT MET"), std::string::npos) << text;
  EXPECT_NE(text.find("miss: fake --kind b --seed 3 --ranks 8 (8 ranks): named rank 1, truth rank 3"),
            std::string::npos)
      << text;
  const nlohmann::json json = nlohmann::json::parse(renderReportJson({report}));
  EXPECT_EQ(json["schema"], "railtune.eval_report.v1");
  EXPECT_EQ(json["suites"][0]["misses"].size(), 2u);
  EXPECT_EQ(json["suites"][0]["met"], false);
}

TEST(EvalRunner, ReplaysOnlyTheScenariosNamedAndKeepsScratchOnRequest) {
  FakeSuite suite;
  RunOptions options;
  options.only = {{"b", 7, 8}};
  options.context.keep = true;
  const SuiteReport report = runSuite(suite, options);
  ASSERT_EQ(report.kinds.size(), 1u);
  EXPECT_EQ(report.kinds[0].kind, "b");
  EXPECT_EQ(report.kinds[0].scenarios, 1);
  EXPECT_TRUE(report.misses.empty());
  ASSERT_EQ(suite.scratch.size(), 1u);
  EXPECT_TRUE(std::filesystem::is_directory(suite.scratch[0]));
  std::filesystem::remove_all(suite.scratch[0]);
}

TEST(EvalRunner, AddCountersSumsAndKeepsMaxima) {
  Counters into{{"n", 1}, {"max_x", 4}};
  addCounters(into, {{"n", 2}, {"max_x", 3}, {"max_y", -1}});
  EXPECT_DOUBLE_EQ(into.at("n"), 3);
  EXPECT_DOUBLE_EQ(into.at("max_x"), 4);
  EXPECT_DOUBLE_EQ(into.at("max_y"), -1);
}

}  // namespace
}  // namespace railtune::eval
