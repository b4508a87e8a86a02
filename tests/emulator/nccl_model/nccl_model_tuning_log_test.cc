// NCCL's NCCL_DEBUG_SUBSYS=TUNING table: what NCCL prints (its printf formats) reads back into the same
// model, log noise is skipped, and every malformed table is an error naming file:line.
#include <gtest/gtest.h>

#include <cmath>

#include "emulator/nccl_model/graph_data.h"
#include "emulator/nccl_model/tuning_log.h"

namespace railtune::ncclmodel {
namespace {

const std::string kDir = RAILTUNE_NCCL_TEST_DATA;
const std::string kPrefix = "node-7:4021:4021 [0] NCCL INFO ";

TunedModel dgxModel(const CommShape& shape) {
  const TopologyFacts& t = builtinGraphData("dgx-h100").shapeFor(shape).factsFor(NcclVersion::V2_30);
  return tuneModel(NcclVersion::V2_30, shape, t, defaultCostModelConstants(NcclVersion::V2_30), NcclKnobs{});
}

// The first n lines of a text (NCCL prints 8 lines per block of three algorithms, 24 per table).
std::string firstLines(const std::string& text, int n) {
  size_t end = 0;
  for (int i = 0; i < n; i++) end = text.find('\n', end) + 1;
  return text.substr(0, end);
}

std::string errorOf(const std::string& text) {
  try {
    parseTuningLog(text, "t.log");
  } catch (const TuningLogError& e) {
    return e.what();
  }
  return "no error";
}

TEST(NcclTuningLog, WhatNcclPrintsReadsBack) {
  const TunedModel m = dgxModel(CommShape{16, 2});
  const std::vector<TuningTable> tables = parseTuningLog(formatTuningLog(m, kPrefix), "t.log");
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].firstLine, 1);
  for (int c = 0; c < kNumCollectives; c++)
    for (int a = 0; a < kNumAlgorithms; a++)
      for (int p = 0; p < kNumProtocols; p++) {
        // NCCL prints one decimal.
        EXPECT_NEAR(tables[0].latencies[c][a][p], m.latencies[c][a][p], 0.05 + 1e-4) << c << a << p;
        EXPECT_NEAR(tables[0].bandwidths[c][a][p], m.bandwidths[c][a][p], 0.05 + 1e-4) << c << a << p;
        EXPECT_EQ(tables[0].maxThreads[a][p], m.maxThreads[a][p]);
      }
}

// A log with NCCL's init noise (the Enabled matrix included) yields the table, and the table gives the
// emulated model's cost table back within the print's rounding.
TEST(NcclTuningLog, LogFileDrivesTheCostTable) {
  const TuningTable table = readTuningLogFile(kDir + "/dgx-h100-one-host-2.30.log");
  EXPECT_EQ(table.firstLine, 10);
  const TunedModel emulated = dgxModel(CommShape{8, 1});
  TunedModel fromLog = emulated;
  applyTuningTable(fromLog, table);
  for (size_t bytes : {size_t{8}, size_t{1} << 20, size_t{1} << 30}) {
    const CollRequest r{Collective::AllReduce, bytes, 1};
    const CostTable want = computeCostTable(emulated, r), got = computeCostTable(fromLog, r);
    for (int a = 0; a < kNumAlgorithms; a++)
      for (int p = 0; p < kNumProtocols; p++) {
        if (want[a][p] < 0) {
          EXPECT_EQ(got[a][p], kIgnore);
        } else {
          EXPECT_NEAR(got[a][p], want[a][p], static_cast<double>(want[a][p]) * 2e-3 + 0.05)
              << bytes << " " << a << "/" << p;
        }
      }
    EXPECT_EQ(ncclPick(got)->algorithm, ncclPick(want)->algorithm) << bytes;
  }
}

TEST(NcclTuningLog, EveryCommunicatorsTableIsKept) {
  const std::string one = formatTuningLog(dgxModel(CommShape{8, 1}), kPrefix);
  const std::string two = formatTuningLog(dgxModel(CommShape{16, 2}), "");
  const std::vector<TuningTable> tables = parseTuningLog("noise | here\n" + one + "more noise\n" + two, "t.log");
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].firstLine, 2);
  EXPECT_GT(tables[1].latencies[4][0][2], tables[0].latencies[4][0][2]);  // two nodes: longer Tree latency
  EXPECT_TRUE(parseTuningLog("NCCL INFO Init COMPLETE\n", "t.log").empty());
}

TEST(NcclTuningLog, MalformedTablesNameFileAndLine) {
  const std::string good = formatTuningLog(dgxModel(CommShape{8, 1}), kPrefix);
  std::string text = good;
  text.replace(text.find("Ring"), 4, "Rung");
  EXPECT_EQ(errorOf(text), "t.log:1: unknown algorithm \"Rung\"");
  text = good;
  text.replace(text.find(" 141.0"), 6, " 14x.0");
  EXPECT_EQ(errorOf(text), "t.log:4: cell \"7.2/ 14x.0\": \"14x.0\" is not a non-negative number");
  text = firstLines(good, 16);  // two of the three blocks
  EXPECT_EQ(errorOf(text), "t.log:1: the TUNING table starting here is incomplete at the end of the log");
  text = good.substr(good.find('\n') + 1);  // the Algorithm header is missing
  EXPECT_EQ(errorOf(text), "t.log:1: \"Protocol\" header without an \"Algorithm\" header before it");
  const std::string secondBlock = good.substr(good.find(kPrefix + "  Algorithm   |", 10));
  EXPECT_EQ(errorOf(secondBlock),
            "t.log:1: algorithm block without the table's first block (Tree, Ring, CollNetDirect)");
  EXPECT_EQ(errorOf(firstLines(good, 16) + good),
            "t.log:1: the TUNING table starting here is incomplete: a new one starts at line 17");
  EXPECT_EQ(errorOf(firstLines(good, 6) + good),
            "t.log:7: \"Algorithm\" header before the previous block's five function rows");
  try {
    readTuningLogFile(kDir + "/truncated-row.log");
    FAIL() << "no error";
  } catch (const TuningLogError& e) {
    EXPECT_EQ(std::string(e.what()), kDir + "/truncated-row.log:25: expected 9 latency/bandwidth cells, found 4");
  }
  EXPECT_THROW(readTuningLogFile(kDir + "/absent.log"), TuningLogError);
}

}  // namespace
}  // namespace railtune::ncclmodel
