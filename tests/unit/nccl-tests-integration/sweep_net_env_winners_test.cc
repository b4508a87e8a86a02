// The network settings that won a sweep's environment matrix (nccl-tests-integration/rules/net_env_winners.h,
// net_env_baseline.h) on synthetic datasets: a clear winner, two settings compared, a fall at one size that vetoes,
// a one-node shape never judged, one-run evidence raising the bar, the baseline chosen, the file read back.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "formats/net_env.h"
#include "nccl-tests-integration/rules/aggregate.h"
#include "nccl-tests-integration/rules/net_env_baseline.h"
#include "nccl-tests-integration/rules/net_env_winners.h"

namespace railtune::sweep {
namespace {

constexpr uint64_t KiBytes = uint64_t{1} << 10, MiBytes = uint64_t{1} << 20;
constexpr const char* kArName = "NCCL_IB_ADAPTIVE_ROUTING";
constexpr const char* kSplitName = "NCCL_IB_SPLIT_DATA_ON_QPS";
constexpr const char* kQpsName = "NCCL_IB_QPS_PER_CONNECTION";

// 144 GB300s on two NVLink domains of 72 (MNNVL: NCCL counts 2 nodes), four 800 Gb/s RoCE rails.
Shape twoRacks(const std::string& linkLayer = "RoCE") {
  Shape s{144, 36, 2, 2, 72, "NVIDIA GB300", {}, ShapeSource::Manifest};
  s.fabric.transport = "IB";
  s.fabric.linkLayer = linkLayer;
  s.fabric.nicGbps = 800;
  return s;
}
Shape oneRack() {
  Shape s{72, 18, 1, 1, 72, "NVIDIA GB300", {}, ShapeSource::Manifest};
  s.fabric.transport = "nvlink";
  return s;
}

const NetEnv kRoceDefaults = {{kArName, "0"}, {kSplitName, "0"}};  // NCCL's defaults on RoCE
const NetEnv kArSplitOn = {{kArName, "1"}, {kSplitName, "1"}};
const NetEnv kArOnlyOn = {{kArName, "1"}, {kSplitName, "0"}};
const NetEnv kFourQps = {{kQpsName, "4"}};

// The sizes measured and the baseline's busbw at each (GB/s).
const std::vector<uint64_t> kSizes = {64 * KiBytes, 1 * MiBytes, 16 * MiBytes, 256 * MiBytes, 1024 * MiBytes};
const std::vector<double> kBase = {20, 150, 400, 560, 600};

// `runs` runs of NCCL's own choice under `setting`, busbw base x ratio (per size), the two halves 0.2 % apart.
void addRuns(Aggregate& a, const NetEnv& setting, const std::vector<double>& ratio, int runs,
             const Shape& shape = twoRacks()) {
  for (int r = 0; r < runs; ++r)
    for (size_t i = 0; i < kSizes.size(); ++i) {
      DatasetRow row;
      row.source = "run-" + netEnvTag(setting) + ".txt";
      row.repeat = r;
      row.collective = "allreduce";
      row.size = kSizes[i];
      row.shape = shape;
      row.netEnv = setting;
      row.outOfPlace.busbwGBps = kBase[i] * ratio[i] * (1 + 0.001 * r);
      row.inPlace.busbwGBps = kBase[i] * ratio[i] * (1.002 + 0.001 * r);
      a.add(row);
    }
}
std::vector<double> flat(double ratio) {
  return std::vector<double>(kSizes.size(), ratio);
}

NetEnvWinners derive(const Aggregate& a, double minGain = 0.05) {
  NetEnvOptions options;
  options.minGain = minGain;
  options.datasets = {"sweep.jsonl"};
  options.generatedBy = "railtune sweep rules test";
  return deriveNetEnvWinners(a, options);
}

TEST(SweepNetEnvWinners, AClearWinnerOverNcclsDefaults) {
  Aggregate a;
  addRuns(a, kRoceDefaults, flat(1.0), 3);
  addRuns(a, kArSplitOn, flat(1.70), 3);
  addRuns(a, kArOnlyOn, flat(1.01), 3);
  const NetEnvWinners w = derive(a);
  ASSERT_EQ(w.file.entries.size(), 1u) << netEnvReport(w);
  EXPECT_TRUE(w.file.notDecided.empty());
  const formats::NetEnvEntry& e = w.file.entries[0];
  EXPECT_EQ(e.env, (formats::MeasuredEnv{{kArName, "1"}, {kSplitName, "1"}}));
  EXPECT_EQ(e.collective, "allreduce");
  EXPECT_EQ(e.shape.nodes, 2);
  EXPECT_EQ(e.shape.gpu, "NVIDIA GB300");
  EXPECT_EQ(e.shape.fabric.linkLayer, "RoCE");
  EXPECT_EQ(e.shape.fabric.nicGbps, 800);
  // Judged from 1 MiBytes: 64 KiBytes is not among the sizes.
  EXPECT_EQ(e.evidence.sizes, (std::vector<uint64_t>{1 * MiBytes, 16 * MiBytes, 256 * MiBytes, 1024 * MiBytes}));
  EXPECT_NEAR(e.evidence.medianGain, 0.70, 0.005);
  EXPECT_NEAR(e.evidence.minGain, 0.70, 0.005);
  EXPECT_EQ(e.evidence.runs, 3);
  EXPECT_EQ(e.evidence.baselineRuns, 3);
  EXPECT_EQ(e.evidence.worstRegression, 0);
  EXPECT_GT(e.evidence.maxSpread, 0);
  EXPECT_NE(e.description.find("3 runs against 3"), std::string::npos) << e.description;
  EXPECT_NE(e.description.find("NCCL's defaults"), std::string::npos) << e.description;
  const std::string report = netEnvReport(w);
  EXPECT_NE(report.find("won: NCCL_IB_ADAPTIVE_ROUTING=1 NCCL_IB_SPLIT_DATA_ON_QPS=1"), std::string::npos) << report;
  EXPECT_NE(report.find("NCCL_IB_ADAPTIVE_ROUTING=1 NCCL_IB_SPLIT_DATA_ON_QPS=0: +1.0 %"), std::string::npos) << report;
}

TEST(SweepNetEnvWinners, TheLargerMedianGainOfTwoSettingsWins) {
  Aggregate a;
  addRuns(a, {}, flat(1.0), 3);  // rows under no setting: the baseline
  addRuns(a, kFourQps, flat(1.20), 3);
  addRuns(a, kArSplitOn, {1.0, 1.1, 1.5, 1.6, 1.6}, 3);
  NetEnvWinners w = derive(a);
  ASSERT_EQ(w.file.entries.size(), 1u) << netEnvReport(w);
  EXPECT_EQ(w.file.entries[0].env, (formats::MeasuredEnv{{kArName, "1"}, {kSplitName, "1"}}));
  EXPECT_NEAR(w.file.entries[0].evidence.medianGain, 0.55, 0.005);  // median of +10, +50, +60, +60 %
  EXPECT_NE(w.file.entries[0].description.find("over no setting"), std::string::npos);
  // With the split's gain below the QP count's, the QP count wins.
  Aggregate b;
  addRuns(b, {}, flat(1.0), 3);
  addRuns(b, kFourQps, flat(1.20), 3);
  addRuns(b, kArSplitOn, flat(1.10), 3);
  w = derive(b);
  ASSERT_EQ(w.file.entries.size(), 1u) << netEnvReport(w);
  EXPECT_EQ(w.file.entries[0].env, (formats::MeasuredEnv{{kQpsName, "4"}}));
}

TEST(SweepNetEnvWinners, AFallBeyondTheNoiseAtOneSizeVetoes) {
  Aggregate a;
  addRuns(a, kRoceDefaults, flat(1.0), 3);
  addRuns(a, kArSplitOn, {0.80, 1.5, 1.5, 1.5, 1.5}, 3);  // -20 % at 64 KiBytes, below the judged sizes
  NetEnvWinners w = derive(a);
  EXPECT_TRUE(w.file.entries.empty()) << netEnvReport(w);
  ASSERT_EQ(w.file.notDecided.size(), 1u);
  EXPECT_NE(w.file.notDecided[0].why.find("no setting cleared the bar"), std::string::npos) << w.file.notDecided[0].why;
  const std::string report = netEnvReport(w);
  EXPECT_NE(report.find("vetoed: -20.0 % at 64 KiB"), std::string::npos) << report;
  // A fall within the noise does not veto; it is the evidence's worst regression.
  Aggregate b;
  addRuns(b, kRoceDefaults, flat(1.0), 3);
  addRuns(b, kArSplitOn, {0.97, 1.5, 1.5, 1.5, 1.5}, 3);
  w = derive(b);
  ASSERT_EQ(w.file.entries.size(), 1u) << netEnvReport(w);
  EXPECT_NEAR(w.file.entries[0].evidence.worstRegression, 0.03, 0.002);
}

TEST(SweepNetEnvWinners, AOneNodeShapeIsNeverJudged) {
  Aggregate a;
  addRuns(a, kRoceDefaults, flat(1.0), 3, oneRack());
  addRuns(a, kArSplitOn, flat(1.70), 3, oneRack());
  const NetEnvWinners w = derive(a);
  EXPECT_TRUE(w.file.entries.empty());
  ASSERT_EQ(w.file.notDecided.size(), 1u);
  EXPECT_EQ(w.file.notDecided[0].shape.nodes, 1);
  EXPECT_NE(w.file.notDecided[0].why.find("not network-bound"), std::string::npos) << w.file.notDecided[0].why;
  EXPECT_NE(netEnvReport(w).find("72 ranks"), std::string::npos);
  // Nodes unknown: not judged either, and left out of the file, whose shapes need a node count.
  Shape unknown = twoRacks();
  unknown.nodes = 0;
  Aggregate b;
  addRuns(b, kRoceDefaults, flat(1.0), 3, unknown);
  addRuns(b, kArSplitOn, flat(1.70), 3, unknown);
  const NetEnvWinners v = derive(b);
  EXPECT_TRUE(v.file.entries.empty());
  EXPECT_TRUE(v.file.notDecided.empty());
  EXPECT_NE(netEnvReport(v).find("not decided: the number of nodes"), std::string::npos) << netEnvReport(v);
}

TEST(SweepNetEnvWinners, OneRunEvidenceRaisesTheBar) {
  // +4 % over 1 run each: below the one-run noise (5 %) although above --min-gain 2 %.
  Aggregate one;
  addRuns(one, kRoceDefaults, flat(1.0), 1);
  addRuns(one, kFourQps, flat(1.04), 1);
  NetEnvWinners w = derive(one, 0.02);
  EXPECT_TRUE(w.file.entries.empty()) << netEnvReport(w);
  EXPECT_NE(netEnvReport(w).find("1 run against 1; <= one-run noise 5.0 %"), std::string::npos) << netEnvReport(w);
  // The same gain over 3 runs each, whose spread is below 2 %: it wins.
  Aggregate three;
  addRuns(three, kRoceDefaults, flat(1.0), 3);
  addRuns(three, kFourQps, flat(1.04), 3);
  w = derive(three, 0.02);
  ASSERT_EQ(w.file.entries.size(), 1u) << netEnvReport(w);
  EXPECT_EQ(w.file.entries[0].evidence.runs, 3);
  // A clear winner over 1 run says so in its evidence and description.
  Aggregate clear;
  addRuns(clear, kRoceDefaults, flat(1.0), 1);
  addRuns(clear, kArSplitOn, flat(1.7), 1);
  w = derive(clear, 0.02);  // the bar is the one-run noise, not --min-gain
  ASSERT_EQ(w.file.entries.size(), 1u) << netEnvReport(w);
  EXPECT_EQ(w.file.entries[0].evidence.runs, 1);
  EXPECT_EQ(w.file.entries[0].evidence.baselineRuns, 1);
  EXPECT_NE(w.file.entries[0].description.find("1 run against 1"), std::string::npos);
  EXPECT_NE(w.file.entries[0].description.find("one-run noise 5.0 %"), std::string::npos);
}

TEST(SweepNetEnvWinners, WithoutNcclsDefaultsMeasuredThereIsNoBaseline) {
  // On InfiniBand NCCL's default is adaptive routing on: AR=0 is no baseline there, and nothing else is either.
  Aggregate a;
  addRuns(a, kRoceDefaults, flat(1.0), 3, twoRacks("IB"));
  addRuns(a, kArSplitOn, flat(1.7), 3, twoRacks("IB"));
  NetEnvWinners w = derive(a);
  EXPECT_TRUE(w.file.entries.empty());
  ASSERT_EQ(w.file.notDecided.size(), 1u);
  EXPECT_NE(w.file.notDecided[0].why.find("no baseline"), std::string::npos) << w.file.notDecided[0].why;
  // AR=1 SPLIT=0 is NCCL's default on InfiniBand: the baseline, and AR=0 a candidate that gains nothing.
  addRuns(a, kArOnlyOn, flat(1.0), 3, twoRacks("IB"));
  w = derive(a);
  ASSERT_EQ(w.file.entries.size(), 1u) << netEnvReport(w);
  EXPECT_EQ(w.file.entries[0].env, (formats::MeasuredEnv{{kArName, "1"}, {kSplitName, "1"}}));
}

TEST(SweepNetEnvWinners, NothingToCompareWithoutASetting) {
  Aggregate a;
  addRuns(a, {}, flat(1.0), 2);
  EXPECT_THROW(derive(a), std::runtime_error);
}

TEST(SweepNetEnvWinners, TheFileReadsBack) {
  Aggregate a;
  addRuns(a, kRoceDefaults, flat(1.0), 2);
  addRuns(a, {{kArName, "1"}, {kSplitName, "0x1"}}, flat(1.7), 2);  // as NCCL reads it: 1
  addRuns(a, kRoceDefaults, flat(1.0), 2, oneRack());
  addRuns(a, kArSplitOn, flat(1.7), 2, oneRack());
  const NetEnvWinners w = derive(a);
  ASSERT_EQ(w.file.entries.size(), 1u);
  EXPECT_EQ(w.file.entries[0].env, (formats::MeasuredEnv{{kArName, "1"}, {kSplitName, "1"}}));
  EXPECT_EQ(formats::parseNetEnv(formats::writeNetEnv(w.file), "net-env.json"), w.file);
}

TEST(SweepNetEnvBaseline, NcclsDefaultsByLinkLayer) {
  EXPECT_TRUE(isNcclDefaultSetting({}, "unknown"));
  EXPECT_TRUE(isNcclDefaultSetting({{kArName, "0"}, {kSplitName, "0"}, {kQpsName, "1"}}, "RoCE"));
  EXPECT_FALSE(isNcclDefaultSetting({{kArName, "0"}}, "IB"));
  EXPECT_TRUE(isNcclDefaultSetting({{kArName, "1"}}, "IB"));
  EXPECT_FALSE(isNcclDefaultSetting({{kArName, "1"}}, "unknown"));
  EXPECT_TRUE(isNcclDefaultSetting({{kArName, "-2"}, {"NCCL_IB_AR_THRESHOLD", "8192"}}, "unknown"));
  EXPECT_TRUE(isNcclDefaultSetting({{"NCCL_CROSS_NIC", "2"}, {kQpsName, "0x1"}}, "IB"));
  EXPECT_FALSE(isNcclDefaultSetting({{"NCCL_NCHANNELS_PER_NET_PEER", "2"}}, "IB"));
  EXPECT_FALSE(isNcclDefaultSetting({{kQpsName, "one"}}, "IB"));
  EXPECT_EQ(netEnvValueAsNcclReads(kQpsName, "0x4"), "4");
  EXPECT_EQ(netEnvValueAsNcclReads("NCCL_SOCKET_NTHREADS", "0x4"), "0x4");
}

}  // namespace
}  // namespace railtune::sweep
