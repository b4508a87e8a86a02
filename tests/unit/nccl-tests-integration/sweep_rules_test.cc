// Rules from a sweep (nccl-tests-integration/rules/) and the comparison report (compare/report.cc): the noise
// rule, nearer-point ranges, merging, coverage, the files read back through the tuner's own rules reader and
// asked what they choose, the datasets' warnings, and the report's file by its extension.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "formats/tuner_rules/rules_file.h"
#include "nccl-tests-integration/compare/group_advice.h"
#include "nccl-tests-integration/compare/profile_gpu.h"
#include "nccl-tests-integration/compare/report.h"
#include "nccl-tests-integration/rules/derive.h"
#include "nccl-tests-integration/rules/read_datasets.h"
#include "nccl-tests-integration/rules/rules_choice.h"
#include "nccl-tests-integration/rules/write.h"

namespace railtune::sweep {
namespace {

constexpr uint64_t MiB = uint64_t{1} << 20;
const Shape kEight{8, 2, 1, 1, 8, {}, {}, {}};

Choice forced(const char* algorithm, const char* protocol) {
  Choice c;
  c.algorithm = algorithm;
  c.protocol = protocol;
  return c;
}

DatasetRow row(const Choice& choice, uint64_t size, double busbwOut, double busbwIn, const Shape& shape = kEight,
               const char* collective = "allreduce") {
  DatasetRow r;
  r.collective = collective;
  r.size = size;
  r.choice = choice;
  r.shape = shape;
  r.outOfPlace.busbwGBps = busbwOut;
  r.inPlace.busbwGBps = busbwIn;
  return r;
}

// A row of the manifest's repeat `repeat` (another run of the same output name).
DatasetRow repeatOf(DatasetRow r, int repeat) {
  r.repeat = repeat;
  return r;
}

// The published GB300 result, 8 GPUs on 2 trays: Ring/LL128 +20/+42/+35/+30 % at 4-32 MiB, Ring/Simple +9/+6 % at
// 64/128 MiB, +2 % at 256 MiB (noise). `runs` runs of each choice, all alike, measured under `setting`.
Aggregate gb300Eight(int runs = 1, const NetEnv& setting = {}) {
  Aggregate a;
  const uint64_t sizes[] = {2 * MiB, 4 * MiB, 8 * MiB, 16 * MiB, 32 * MiB, 64 * MiB, 128 * MiB, 256 * MiB};
  const double def[] = {190, 230, 260, 320, 420, 560, 650, 700};
  const double ll128[] = {196, 276, 369, 432, 546, 500, 520, 530};
  const double simple[] = {160, 210, 250, 300, 400, 610, 689, 714};
  const auto under = [&setting](DatasetRow r) {
    r.netEnv = setting;
    return r;
  };
  for (int r = 0; r < runs; ++r)
    for (size_t i = 0; i < 8; ++i) {
      a.add(under(repeatOf(row(Choice{}, sizes[i], def[i], def[i] * 1.002), r)));
      a.add(under(repeatOf(row(forced("ring", "ll128"), sizes[i], ll128[i], ll128[i] * 0.999), r)));
      a.add(under(repeatOf(row(forced("ring", "simple"), sizes[i], simple[i], simple[i] * 1.001), r)));
    }
  return a;
}

TEST(SweepRules, TheWinnerMustBeatTheDefaultByMoreThanTheNoise) {
  const DerivedRules rules = deriveRules(gb300Eight(), RulesOptions{});
  ASSERT_EQ(rules.rules.size(), 2u);
  const DerivedRule& ll128 = rules.rules[0];
  EXPECT_EQ(ll128.choice.label(), "ring/ll128");
  // 2 MiB (+3 %) stays NCCL's: the range starts halfway between 2 and 4 MiB.
  EXPECT_EQ(ll128.minBytes, 3 * MiB + 1);
  EXPECT_EQ(ll128.maxBytes, 48 * MiB);  // halfway between 32 and 64 MiB
  EXPECT_EQ(ll128.sizes, (std::vector<uint64_t>{4 * MiB, 8 * MiB, 16 * MiB, 32 * MiB}));
  EXPECT_NEAR(ll128.minGain, 0.20, 0.01);
  EXPECT_NEAR(ll128.maxGain, 0.42, 0.01);
  EXPECT_EQ(ll128.samples, 8);
  const DerivedRule& simple = rules.rules[1];
  EXPECT_EQ(simple.choice.label(), "ring/simple");
  EXPECT_EQ(simple.minBytes, 48 * MiB + 1);
  EXPECT_EQ(simple.maxBytes, 192 * MiB);  // halfway between 128 and 256 MiB
  // 256 MiB: +2 % is within --min-gain: NCCL decides.
  const SizeDecision& last = rules.groups[0].sizes.back();
  EXPECT_FALSE(last.ruled);
  EXPECT_NE(last.why.find("<= --min-gain 5.0 %"), std::string::npos) << last.why;

  // With 2 runs of each, a lower --min-gain lets 256 MiB and 2 MiB through, and the ranges grow to the measured ends.
  const DerivedRules loose = deriveRules(gb300Eight(2), RulesOptions{0.01});
  ASSERT_EQ(loose.rules.size(), 2u);
  EXPECT_EQ(loose.rules[0].minBytes, 2 * MiB);
  EXPECT_EQ(loose.rules[1].maxBytes, 256 * MiB);
  // With one run of each, the one-run noise holds them back: the two halves of a run say nothing of the next run.
  const DerivedRules oneRun = deriveRules(gb300Eight(1), RulesOptions{0.01});
  ASSERT_EQ(oneRun.rules.size(), 2u);
  EXPECT_EQ(oneRun.rules[0].minBytes, 3 * MiB + 1);
  EXPECT_EQ(oneRun.rules[1].maxBytes, 192 * MiB);
  EXPECT_EQ(oneRun.groups[0].sizes.back().why, "ring/simple +1.9 % <= one-run noise 5.0 % (1 run each)");
  EXPECT_EQ(oneRun.groups[0].sizes.front().why, "ring/ll128 +3.0 % <= one-run noise 5.0 % (1 run each)");
}

TEST(SweepRules, ARunsTwoHalvesAreOneRunAndOneRunRaisesTheBar) {
  // One row's out-of-place and in-place busbw: two samples of one run. Another run index of the same file,
  // another repeat or another file: another run.
  const auto at = [](DatasetRow r, const char* source, int run, int repeat) {
    r.source = source;
    r.run = run;
    r.repeat = repeat;
    return r;
  };
  Aggregate a;
  a.add(at(row(Choice{}, 64 * MiB, 500, 500), "d.txt", 0, 0));
  for (const auto& [source, run, repeat] :
       {std::tuple{"s.txt", 0, 0}, {"s.txt", 1, 0}, {"s.txt", 1, 1}, {"t.txt", 0, 0}})
    a.add(at(row(forced("ring", "simple"), 64 * MiB, 520, 520), source, run, repeat));
  const auto& choices = a.groups.begin()->second.at(64 * MiB);
  EXPECT_EQ(statsOf(choices.at(Choice{})).samples, 2);
  EXPECT_EQ(statsOf(choices.at(Choice{})).runs, 1);
  EXPECT_EQ(statsOf(choices.at(forced("ring", "simple"))).runs, 4);

  // +4 % against a --min-gain of 2 %: not enough while the default rests on one run.
  const DerivedRules oneRun = deriveRules(a, RulesOptions{0.02});
  EXPECT_TRUE(oneRun.rules.empty());
  EXPECT_EQ(oneRun.groups[0].sizes[0].why, "ring/simple +4.0 % <= one-run noise 5.0 % (4 runs vs the default's 1)");
  EXPECT_DOUBLE_EQ(oneRun.groups[0].sizes[0].threshold, kOneRunNoise);

  // A second run of the default: the bar is --min-gain again, and the evidence counts the runs.
  a.add(at(row(Choice{}, 64 * MiB, 500, 500), "d.txt", 0, 1));
  const DerivedRules twoRuns = deriveRules(a, RulesOptions{0.02});
  ASSERT_EQ(twoRuns.rules.size(), 1u);
  EXPECT_EQ(twoRuns.rules[0].runs, 4);
  EXPECT_EQ(twoRuns.rules[0].defaultRuns, 2);
  EXPECT_EQ(twoRuns.groups[0].sizes[0].why, "ring/simple +4.0 % > --min-gain 2.0 %");
  const std::string json = rulesJson(twoRuns, RulesProvenance{{"d.jsonl"}, 0.02, {}});
  EXPECT_NE(json.find("\"samples\":8,\"default_samples\":4,\"runs\":4,\"default_runs\":2,"), std::string::npos) << json;
  EXPECT_NE(json.find("(1 size, 8 samples, 4 runs vs the default's 2; "), std::string::npos) << json;

  // The published table, one run of each: its evidence says so.
  const std::string published =
      rulesJson(deriveRules(gb300Eight(), RulesOptions{}), RulesProvenance{{"g.jsonl"}, 0.05, {}});
  EXPECT_NE(published.find("(4 sizes, 8 samples, 1 run each; 8 ranks"), std::string::npos) << published;
  EXPECT_NE(published.find("\"runs\":1,\"default_runs\":1,"), std::string::npos) << published;
}

TEST(SweepRules, NcclsDefaultIsBestOnlyWhereARivalWasMeasured) {
  Aggregate a;
  a.add(row(Choice{}, 1 * MiB, 100, 100));  // alone
  a.add(row(Choice{}, 2 * MiB, 150, 150));  // beside a choice no rule can carry (no protocol)
  a.add(row(forced("ring", ""), 2 * MiB, 140, 140));
  a.add(row(Choice{}, 4 * MiB, 200, 200));  // beside a rival it beats
  a.add(row(forced("ring", "ll128"), 4 * MiB, 180, 180));
  const DerivedRules rules = deriveRules(a, RulesOptions{});
  ASSERT_EQ(rules.groups[0].sizes.size(), 3u);
  EXPECT_EQ(rules.groups[0].sizes[0].why, "only NCCL's default measured");
  EXPECT_EQ(rules.groups[0].sizes[1].why, "only NCCL's default measured among choices a rule can carry");
  EXPECT_EQ(rules.groups[0].sizes[2].why, "NCCL's default is best");
  const std::string report = rulesReport(rules);
  EXPECT_EQ(report.find("is best"), report.rfind("is best")) << "best once, at 4 MiB only\n" << report;

  // The comparison's best column and regrets: nothing is ranked where one choice alone was measured.
  CompareRequest request;
  request.sweep = &a;
  request.model = [](const GroupKey&, uint64_t) { return std::optional<Choice>(); };
  const CompareReport compared = buildCompareReport(request);
  const std::vector<ComparePoint>& points = compared.groups[0].points;
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[0].measuredChoices, 1);
  EXPECT_FALSE(points[0].defaultRegret.has_value());
  EXPECT_FALSE(points[0].modelRegret.has_value());
  EXPECT_EQ(points[2].measuredChoices, 2);
  EXPECT_EQ(points[2].best, "default");
  EXPECT_DOUBLE_EQ(*points[2].defaultRegret, 0);
  const std::string table = renderCompareTable(compared);
  EXPECT_NE(table.find("only default measured"), std::string::npos) << table;
  EXPECT_NE(table.find("one choice alone was measured at 1 size, nothing to rank there"), std::string::npos) << table;
}

TEST(SweepRules, TheRunToRunSpreadRaisesTheBar) {
  Aggregate a;
  // Default samples 400..460 (spread 14 %); ring/simple beats the median by 10 %: not enough.
  for (double v : {400.0, 430.0, 460.0}) a.add(row(Choice{}, 64 * MiB, v, v));
  for (double v : {470.0, 473.0, 476.0}) a.add(row(forced("ring", "simple"), 64 * MiB, v, v));
  const DerivedRules rules = deriveRules(a, RulesOptions{});
  EXPECT_TRUE(rules.rules.empty());
  EXPECT_NE(rules.groups[0].sizes[0].why.find("<= spread"), std::string::npos) << rules.groups[0].sizes[0].why;
}

TEST(SweepRules, RowsThatCannotBeUsedAreCountedAndTheGapsReported) {
  Aggregate a = gb300Eight();
  DatasetRow wrong = row(forced("ring", "ll"), 4 * MiB, 999, 999);
  wrong.valid = false;
  a.add(wrong);
  DatasetRow unusable = row(Choice{}, 4 * MiB, 999, 999);
  unusable.choice.unusable = "NCCL_ALGO=Ring,Tree does not force one choice";
  a.add(unusable);
  a.add(row(forced("ring", "simple"), 512 * MiB, 800, 800));  // no default at 512 MiB
  a.add(row(Choice{}, 1 * MiB, 100, 100, kEight, "alltoall"));
  DatasetRow h100 = row(Choice{}, 1 * MiB, 100, 100);
  h100.shape.gpu = "NVIDIA H100 80GB HBM3";  // another cluster: its own group (sweep_cluster_test.cc)
  a.add(h100);
  DatasetRow h200 = row(Choice{}, 1 * MiB, 100, 100);
  h200.shape.gpu = "NVIDIA H200";
  a.add(h200);
  EXPECT_EQ(a.rowsWrong, 1u);
  EXPECT_EQ(a.rowsUnusable, 1u);
  const DerivedRules rules = deriveRules(a, RulesOptions{});
  ASSERT_EQ(rules.rules.size(), 2u);  // the flagged row's 999 GB/s is never used
  std::string coverage = rulesReport(rules);
  for (const char* expected :
       {"no NCCL default measured at 512 MiB", "NCCL does not ask a tuner about alltoall",
        "no data for allgather, reducescatter, broadcast, reduce", "1 rows not used: a non-zero #wrong",
        "every other communicator shape", "8 ranks, 1 node, 1 NVLink domain of 8; NVIDIA H200: only NCCL's default"})
    EXPECT_NE(coverage.find(expected), std::string::npos) << expected << " not in:\n" << coverage;
}

TEST(SweepRules, TheTunerReadsBothFormatsWithTheSameRules) {
  const DerivedRules rules = deriveRules(gb300Eight(), RulesOptions{});
  const RulesProvenance provenance{{"gb300.jsonl"}, 0.05, {}};
  const formats::tuner_rules::RulesResult json =
      formats::tuner_rules::readRules(rulesJson(rules, provenance), "rules.json");
  ASSERT_TRUE(json.ok()) << json.describeErrors();
  ASSERT_EQ(json.ruleSet.rules.size(), 2u);
  const formats::tuner_rules::Rule& first = json.ruleSet.rules[0];
  EXPECT_EQ(first.nRanks, 8);
  EXPECT_EQ(first.nNodes, 1);
  EXPECT_EQ(first.nvlDomains, 1);
  EXPECT_EQ(first.ranksPerDomain, 8);
  EXPECT_EQ(first.minBytes, 3 * MiB + 1);
  EXPECT_EQ(first.algorithm, formats::Algorithm::Ring);
  EXPECT_EQ(first.protocol, formats::Protocol::LL128);
  EXPECT_NE(rulesJson(rules, provenance).find("\"evidence\":{\"sizes\":[4194304,8388608,16777216,33554432]"),
            std::string::npos);
  const formats::tuner_rules::RulesResult csv =
      formats::tuner_rules::readRules(rulesNcclCsv(rules, provenance), "rules.csv");
  ASSERT_TRUE(csv.ok()) << csv.describeErrors();
  ASSERT_EQ(csv.ruleSet.rules.size(), 2u);
  EXPECT_EQ(csv.ruleSet.rules[1].minBytes, json.ruleSet.rules[1].minBytes);
  EXPECT_EQ(csv.ruleSet.rules[1].maxBytes, json.ruleSet.rules[1].maxBytes);
  // No rule at all is still a file the tuner reads.
  EXPECT_TRUE(formats::tuner_rules::readRules(rulesJson(DerivedRules{}, provenance), "empty.json").ok());
}

// Which network setting's rows made the rules (--net-env-rows): the description and the CSV's header say it, and
// each rule's evidence carries it as the rows' net_env ({} for none); the tuner reads past both.
TEST(SweepRules, TheFileRecordsTheNetworkSettingOfItsRows) {
  const NetEnv setting{{"NCCL_IB_ADAPTIVE_ROUTING", "1"}, {"NCCL_IB_SPLIT_DATA_ON_QPS", "1"}};
  const DerivedRules under = deriveRules(gb300Eight(1, setting), RulesOptions{});
  const DerivedRules none = deriveRules(gb300Eight(), RulesOptions{});
  ASSERT_EQ(under.rules.size(), 2u);
  const std::string json = rulesJson(under, RulesProvenance{{"g.jsonl"}, 0.05, setting});
  EXPECT_NE(json.find("from g.jsonl, the rows measured under NCCL_IB_ADAPTIVE_ROUTING=1 NCCL_IB_SPLIT_DATA_ON_QPS=1;"),
            std::string::npos)
      << json;
  const std::string recorded = R"("net_env":{"NCCL_IB_ADAPTIVE_ROUTING":"1","NCCL_IB_SPLIT_DATA_ON_QPS":"1"}})";
  size_t rulesWithIt = 0;
  for (size_t at = json.find(recorded); at != std::string::npos; at = json.find(recorded, at + 1)) ++rulesWithIt;
  EXPECT_EQ(rulesWithIt, 2u) << json;
  const formats::tuner_rules::RulesResult read = formats::tuner_rules::readRules(json, "rules.json");
  ASSERT_TRUE(read.ok()) << read.describeErrors();
  EXPECT_EQ(read.ruleSet.rules.size(), 2u);
  const std::string plain = rulesJson(none, RulesProvenance{{"g.jsonl"}, 0.05, {}});
  EXPECT_NE(plain.find("the rows measured under no `sweep run --env` setting;"), std::string::npos) << plain;
  EXPECT_NE(plain.find(R"("net_env":{}})"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("NCCL_IB_"), std::string::npos);
  const std::string csv = rulesNcclCsv(under, RulesProvenance{{"g.jsonl"}, 0.05, setting});
  EXPECT_EQ(csv.rfind("# Written by railtune sweep rules from g.jsonl, the rows measured under "
                      "NCCL_IB_ADAPTIVE_ROUTING=1 NCCL_IB_SPLIT_DATA_ON_QPS=1, for NCCL's example tuner.\n",
                      0),
            0u)
      << csv;
}

TEST(SweepRules, TheReportShowsExpectedGainAndTheModelsRegret) {
  const Aggregate a = gb300Eight();
  CompareRequest request;
  request.sweep = &a;
  // A model that always picks ring/simple.
  request.model = [](const GroupKey&, uint64_t) { return std::optional<Choice>(forced("ring", "simple")); };
  const CompareReport report = buildCompareReport(request);
  ASSERT_EQ(report.groups.size(), 1u);
  const CompareGroup& g = report.groups[0];
  EXPECT_EQ(g.series.front().label, "default");
  EXPECT_EQ(g.series.size(), 3u);
  ASSERT_EQ(g.points.size(), 8u);
  const ComparePoint& at8 = g.points[2];
  EXPECT_EQ(at8.chosen, "ring/ll128");
  EXPECT_NEAR(*at8.gain(), 0.42, 0.01);
  EXPECT_EQ(at8.modelPick, "ring/simple");
  EXPECT_NEAR(*at8.modelRegret, 369.0 / 250.0 - 1, 0.01);
  EXPECT_NEAR(*at8.defaultRegret, 369.0 / 260.0 - 1, 0.01);
  EXPECT_EQ(g.points.back().chosen, "default");
  EXPECT_FALSE(g.points.back().gain().has_value());  // NCCL decides there

  // A tuned run measured with the rules: the gain is what it measured.
  Aggregate tuned;
  tuned.add(row(Choice{}, 8 * MiB, 300, 300));
  request.tuned = &tuned;
  request.model = nullptr;
  const CompareReport measured = buildCompareReport(request);
  EXPECT_EQ(measured.groups[0].series[1].label, "tuned");
  EXPECT_NEAR(*measured.groups[0].points[2].gain(), 300.0 / 260.26 - 1, 1e-4);  // default: median of 260 and 260.52
  EXPECT_FALSE(measured.groups[0].points[2].modelRegret.has_value());
}

TEST(SweepRules, TheRulesFileIsReadBackAndAskedAsTheTunerWould) {
  const DerivedRules rules = deriveRules(gb300Eight(), RulesOptions{});
  const RulesProvenance provenance{{"gb300.jsonl"}, 0.05, {}};
  const RulesFile json = rulesFile(rules, provenance, "", "rules.json");
  EXPECT_EQ(json.text, rulesJson(rules, provenance));
  EXPECT_EQ(json.rules, 2u);
  EXPECT_EQ(rulesFile(rules, provenance, "", "rules.csv").text, rulesNcclCsv(rules, provenance));
  EXPECT_EQ(rulesFile(rules, provenance, "railtune-json", "rules.csv").text, json.text);

  const formats::tuner_rules::RuleSet set = parseTunerRules(json.text, "rules.json");
  const GroupKey group{"allreduce", kEight};
  EXPECT_EQ(ruleChoice(set, group, 8 * MiB), std::optional<Choice>(forced("ring", "ll128")));
  EXPECT_EQ(ruleChoice(set, group, 128 * MiB), std::optional<Choice>(forced("ring", "simple")));
  EXPECT_EQ(ruleChoice(set, group, 2 * MiB), std::nullopt);  // NCCL decides there
  EXPECT_EQ(ruleChoice(set, {"allreduce", Shape{16, 2, 2, 2, 8, {}, {}, {}}}, 8 * MiB), std::nullopt);  // another shape
  EXPECT_EQ(ruleChoice(set, {"alltoall", kEight}, 8 * MiB), std::nullopt);  // not the tuner's

  try {
    parseTunerRules("allreduce,0,1,ring,lll,-1,-1,-1,-1\n", "bad.csv");
    ADD_FAILURE() << "a rule the tuner refuses was read";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("the tuner would refuse bad.csv:\nbad.csv:1:", 0), 0u) << e.what();
  }
}

TEST(SweepRules, DatasetsTellWhatWasSkippedAndRefuseNoRows) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("railtune_sweep_read_datasets_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "d.jsonl").string();
  std::string text;
  DatasetRow r = row(Choice{}, 8 * MiB, 260, 260);
  r.source = "out.txt";
  appendDatasetRow(r, text);
  std::ofstream(path) << text << "not json\n" << text;
  std::vector<std::string> warnings;
  const Aggregate a = readDatasets({path}, 20, [&](std::string_view w) { warnings.emplace_back(w); });
  EXPECT_EQ(a.rowsRead, 2u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind(path + ":2: ", 0), 0u) << warnings[0];
  EXPECT_TRUE(warnings[0].ends_with("; line skipped")) << warnings[0];

  std::ofstream(path) << "not json\n";
  warnings.clear();
  try {
    readDatasets({path}, 0, [&](std::string_view w) { warnings.emplace_back(w); });
    ADD_FAILURE() << "a dataset without rows was read";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "no sweep dataset rows in " + path + " (railtune sweep parse writes them)");
  }
  EXPECT_EQ(warnings, (std::vector<std::string>{"... and 1 more lines skipped"}));  // told before the refusal
  std::filesystem::remove_all(dir);
}

TEST(SweepRules, TheReportsFileFollowsItsExtension) {
  EXPECT_EQ(compareFileOf("r.html"), CompareFile::Html);
  EXPECT_EQ(compareFileOf("r.htm"), CompareFile::Html);
  EXPECT_EQ(compareFileOf("r.svg"), CompareFile::Svg);
  EXPECT_EQ(compareFileOf("r.md"), CompareFile::Text);
  EXPECT_THROW(compareFileOf("r.pdf"), std::invalid_argument);
  const Aggregate a = gb300Eight();
  CompareRequest request;
  request.sweep = &a;
  const CompareReport report = buildCompareReport(request);
  EXPECT_EQ(renderCompareFile(report, CompareFile::Text, "r.txt"), renderCompareTable(report));
  EXPECT_EQ(renderCompareFile(report, CompareFile::Svg, "r.svg"), renderCompareSvg(report.groups[0]));
  CompareReport two = report;
  two.groups.push_back(report.groups[0]);
  try {
    renderCompareFile(two, CompareFile::Svg, "r.svg");
    ADD_FAILURE() << "two groups in one SVG";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "-o r.svg: an SVG holds one plot, and the datasets hold 2 collectives and shapes; write .html");
  }
}

TEST(SweepRules, AdviceIsAskedOncePerGroupAndTakenAtTheNearerPowerOfTwo) {
  int computed = 0;
  GroupAdvice advice([&](const GroupKey& key) {
    ++computed;
    AdviceBySize bySize;
    if (key.collective != "allreduce") return bySize;  // nothing to say: NCCL decides
    bySize[4 * MiB] = forced("ring", "ll128");
    bySize[8 * MiB] = std::nullopt;  // NCCL's own
    bySize[16 * MiB] = forced("ring", "simple");
    return bySize;
  });
  const GroupKey group{"allreduce", kEight};
  EXPECT_EQ(advice.pick(group, 4 * MiB), std::optional<Choice>(forced("ring", "ll128")));
  EXPECT_EQ(advice.pick(group, 5 * MiB), std::optional<Choice>(forced("ring", "ll128")));  // log2 5/4 < 0.5
  EXPECT_EQ(advice.pick(group, 6 * MiB), std::nullopt);                                    // nearer 8 MiB
  EXPECT_EQ(advice.pick(group, 12 * MiB), std::optional<Choice>(forced("ring", "simple")));
  EXPECT_EQ(advice.pick(group, 64 * MiB), std::nullopt);  // no advice there
  EXPECT_EQ(computed, 1);
  EXPECT_EQ(advice.pick({"alltoall", kEight}, 4 * MiB), std::nullopt);
  EXPECT_EQ(computed, 2);
}

// ---- the hardware profile of `sweep compare --model` (compare/profile_gpu.h) ----

// One group per collective, each of one GPU.
Aggregate ofGpus(const std::vector<std::pair<const char*, const char*>>& collectiveGpus) {
  Aggregate a;
  for (const auto& [collective, gpu] : collectiveGpus) {
    DatasetRow r = row(Choice{}, 8 * MiB, 100, 100, kEight, collective);
    r.gpu = r.shape.gpu = gpu;
    a.add(r);
  }
  return a;
}

TEST(SweepCompareProfile, AProfileOfAnotherGpuIsSaidOncePerGpu) {
  const GpuGroups groups = gpuGroupsOf(ofGpus({{"allreduce", "NVIDIA GB200"},
                                               {"allgather", "NVIDIA GB200"},
                                               {"reducescatter", "NVIDIA GB200"},
                                               {"broadcast", "NVIDIA GB300"}}));
  const ProfileChoice asked = chooseProfile("gb300-nvl72", groups, "gb300-nvl72");
  EXPECT_EQ(asked.profile, "gb300-nvl72");
  EXPECT_EQ(asked.how, "");
  EXPECT_EQ(asked.warnings, (std::vector<std::string>{"--model: profile gb300-nvl72 models NVIDIA GB300; 3 groups are "
                                                      "NVIDIA GB200 (pass --profile gb200-nvl72)"}));
  // Without --profile, GPUs of two profiles pick none: the default, and the warning for the other GPU.
  const ProfileChoice mixed = chooseProfile("", groups, "gb300-nvl72");
  EXPECT_EQ(mixed.profile, "gb300-nvl72");
  EXPECT_EQ(mixed.how, "the default; the data's GPUs (NVIDIA GB200, NVIDIA GB300) have different profiles");
  EXPECT_EQ(mixed.warnings.size(), 1u);
  // A GPU no profile models is said too, and the profile is kept.
  const ProfileChoice h200 = chooseProfile("dgx-h100", gpuGroupsOf(ofGpus({{"allreduce", "NVIDIA H200"}})), "x");
  EXPECT_EQ(h200.warnings,
            (std::vector<std::string>{"--model: profile dgx-h100 models NVIDIA H100 80GB HBM3; 1 group is NVIDIA "
                                      "H200 (no built-in profile models it: the regret is the dgx-h100 "
                                      "model's)"}));
  EXPECT_TRUE(
      chooseProfile("dgx-h100", gpuGroupsOf(ofGpus({{"allreduce", "NVIDIA H100 80GB HBM3"}})), "x").warnings.empty());
  // Names are exact: an H100 PCIe card has no NVSwitch, so the DGX H100 profile does not model it.
  EXPECT_EQ(chooseProfile("dgx-h100", gpuGroupsOf(ofGpus({{"allreduce", "NVIDIA H100 PCIe"}})), "x").warnings.size(),
            1u);
}

TEST(SweepCompareProfile, WithoutProfileTheDataPicksIt) {
  const ProfileChoice gb200 = chooseProfile(
      "", gpuGroupsOf(ofGpus({{"allreduce", "NVIDIA GB200"}, {"allgather", "NVIDIA GB200"}})), "gb300-nvl72");
  EXPECT_EQ(gb200.profile, "gb200-nvl72");
  EXPECT_EQ(gb200.how, "picked from the data: every group is NVIDIA GB200");
  EXPECT_TRUE(gb200.warnings.empty());
  // A group without a GPU name picks nothing; two GPUs of one shape are two groups (dataset.h), each warned of.
  Aggregate unnamed = ofGpus({{"allreduce", "NVIDIA GB200"}});
  unnamed.add(row(Choice{}, 8 * MiB, 100, 100, kEight, "allgather"));
  const ProfileChoice fallback = chooseProfile("", gpuGroupsOf(unnamed), "gb300-nvl72");
  EXPECT_EQ(fallback.profile, "gb300-nvl72");
  EXPECT_EQ(fallback.how, "the default; 1 group of the data names no GPU");
  EXPECT_EQ(fallback.warnings.size(), 1u);
  const GpuGroups pooled = gpuGroupsOf(ofGpus({{"allreduce", "NVIDIA GB200"}, {"allreduce", "NVIDIA GB300"}}));
  EXPECT_EQ(pooled.byGpu.size(), 2u);
  EXPECT_EQ(chooseProfile("", pooled, "gb300-nvl72").profile, "gb300-nvl72");
}

}  // namespace
}  // namespace railtune::sweep
