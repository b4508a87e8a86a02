// railtune_sweep_run's scan of a run's output in bounded pieces (nccl-tests-integration/run/output_scan.h): the same
// answers as the whole text read at once, whatever the pieces, for outputs larger than its batches and lines longer
// than it keeps.
#include <gtest/gtest.h>

#include <string>

#include "nccl-tests-integration/parse/nccl_tests_text.h"
#include "nccl-tests-integration/run/output_scan.h"

namespace railtune::sweep {
namespace {

const std::string kTableHeader =
    "# nccl-tests version 2.19.6 nccl-headers=22807 nccl-library=22807\n"
    "# Collective test starting: all_reduce_perf\n"
    "#  Rank  0 Group  0 Pid  41230 on gb300-r01-t01 device  0 [0008:01:00] NVIDIA GB300\n"
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  "
    "#wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)\n";
const std::string kKey = "     1048576        262144     float     sum      -1";
const std::string kNumbers = "     9.83  106.67  160.00       0     9.81  106.88  160.32       0";
const std::string kInfo = "gb300-r01-t01:41230:41230 [0] NCCL INFO a chatty line that fills the output\n";

size_t wholeRows(const std::string& text) {
  size_t rows = 0;
  for (const TestRun& run : parseNcclTestsText(text).runs) rows += run.rows.size();
  return rows;
}

OutputScan scanned(const std::string& text, size_t piece) {
  OutputScan scan;
  for (size_t at = 0; at < text.size(); at += piece) scan.feed(std::string_view(text).substr(at, piece));
  scan.finish();
  return scan;
}

void appendInfo(std::string& text, size_t untilSize) {
  while (text.size() + kInfo.size() <= untilSize) text += kInfo;
}

// Rows on both sides of several batches, one split from its numbers by INFO lines across a batch's end.
TEST(SweepRunOutputScan, RowsAcrossBatchesAreCountedAsTheWholeTextHasThem) {
  std::string text = kTableHeader + kKey + kNumbers + "\n" + kKey + kNumbers + "\n";
  appendInfo(text, OutputScan::kTableBatch - 200);
  text += kKey + "\n" + kInfo + kInfo + kInfo + kInfo + kNumbers + "\n";
  appendInfo(text, 2 * OutputScan::kTableBatch + 12345);
  text += kKey + kNumbers + "\n" + "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 160.1\n";
  ASSERT_EQ(wholeRows(text), 4u);
  for (size_t piece : {size_t{1} << 20, size_t{65537}, size_t{4096}}) {
    const OutputScan scan = scanned(text, piece);
    EXPECT_EQ(scan.rows(), 4u) << piece;
    EXPECT_EQ(scan.lastWords(), std::string(kKey + kNumbers).substr(5)) << piece;  // the last row, trimmed
  }
}

// A line longer than the scan keeps: its start is scanned, the lines after it are read as usual.
TEST(SweepRunOutputScan, LongLinesAreCutNotLost) {
  const std::string failure = "gb300-r01-t01: Test NCCL failure common.cu:1279 'unhandled cuda error' / " +
                              std::string(3 * OutputScan::kMaxScannedLine, 'x') + "\n";
  const std::string text = kTableHeader + failure + kKey + kNumbers + "\nlast words without a newline";
  for (size_t piece : {size_t{1} << 20, size_t{1000}, size_t{1}}) {
    const OutputScan scan = scanned(text, piece);
    EXPECT_EQ(scan.rows(), 1u) << piece;
    EXPECT_EQ(scan.failure().substr(0, 48), "Test NCCL failure common.cu:1279 'unhandled cuda") << piece;
    EXPECT_EQ(scan.failure().size(), 403u) << piece;  // 400 characters and "..."
    EXPECT_EQ(scan.lastWords(), "last words without a newline") << piece;
  }
}

// NCCL's rejection, found in whatever case NCCL wrote it, its WARN line before a line that repeats it.
TEST(SweepRunOutputScan, RejectionInPieces) {
  const std::string text = kTableHeader +
                           "gb300-r01-t01: Test NCCL failure common.cu:619 'invalid usage' / Error : No "
                           "Algorithm/Protocol available\n"
                           "gb300-r01-t01:41230:41230 [0] enqueue.cc:2063 NCCL WARN No algorithm/protocol available "
                           "for function AllReduce\n";
  for (size_t piece : {size_t{7}, size_t{1} << 20}) {
    const OutputScan scan = scanned(text, piece);
    EXPECT_EQ(scan.rejection(), "NCCL WARN No algorithm/protocol available for function AllReduce") << piece;
    EXPECT_EQ(scan.rows(), 0u);
  }
}

}  // namespace
}  // namespace railtune::sweep
