// `profile hangs`: a stalled ring built with the profiler's own renderer (hang records with their
// outstanding flows), missing completions, and the suspect link with its GPU, NIC, rail and peer host.
#include <gtest/gtest.h>

#include "analysis/profile/hangs.h"
#include "analysis/profile/hangs_render.h"
#include "tests/unit/analysis/profile/profile_analysis_ring.h"
#include "tests/unit/analysis/profile/profile_analysis_test_support.h"

namespace railtune::analysis::profile {
namespace {

using testing::kRanks;
using testing::pathLogLine;
using testing::ringLines;
using testing::TempDir;

HangReport analyse(const TempDir& dir, const formats::RailMap* railMap = nullptr) {
  const ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, true, 2, 20});
  EXPECT_EQ(logs.problems.count, 0u) << (logs.problems.first.empty() ? "" : logs.problems.first[0]);
  return analyseHangs(logs, railMap, std::nullopt);
}

TEST(Hangs, AStalledRingNamesTheLinkBothOfWhoseEndsAreStuck) {
  TempDir dir;
  for (int rank = 0; rank < kRanks; ++rank)
    dir.write("ring-" + std::to_string(rank) + ".collectives.jsonl", testing::joinLines(ringLines(rank, 10, 9)));
  const HangReport report = analyse(dir);
  ASSERT_EQ(report.jobs.size(), 1u);
  ASSERT_EQ(report.jobs[0].hung.size(), 1u);
  const HungCollective& h = report.jobs[0].hung[0];
  EXPECT_EQ(h.seq, 10u);
  EXPECT_EQ(h.op, "AllReduce");
  EXPECT_EQ(h.stuck.size(), 8u);
  EXPECT_TRUE(h.completed.empty());
  EXPECT_TRUE(h.silent.empty());
  ASSERT_TRUE(h.suspect);
  EXPECT_EQ(h.suspect->from.rank, 5);
  EXPECT_EQ(h.suspect->from.host, "r000-t01");
  EXPECT_EQ(h.suspect->from.hca, "mlx5_1");
  EXPECT_EQ(h.suspect->from.rail, 1);
  EXPECT_EQ(h.suspect->to.rank, 6);
  EXPECT_EQ(h.suspect->to.hca, "mlx5_2");
  EXPECT_EQ(h.suspect->sendFlows, 1);
  EXPECT_EQ(h.suspect->recvFlows, 1);
  EXPECT_EQ(h.suspect->from.gpu, -1);  // neither a path log nor a rail map says
}

TEST(Hangs, PathLogsGiveTheGpuBehindTheSuspectNic) {
  TempDir dir;
  for (int rank = 0; rank < kRanks; ++rank)
    dir.write("ring-" + std::to_string(rank) + ".collectives.jsonl", testing::joinLines(ringLines(rank, 10, 9)));
  dir.write("paths/ring-job-r000-t01-105.jsonl", pathLogLine(5, 6) + "\n");
  const HangReport report = analyse(dir);
  ASSERT_TRUE(report.jobs.at(0).hung.at(0).suspect);
  EXPECT_EQ(report.jobs[0].hung[0].suspect->from.gpu, 1);
  const std::string table = renderHangsTable(report);
  EXPECT_NE(table.find("suspect link: rank 5 on r000-t01 GPU 1 mlx5_1 rail 1 -> rank 6 on r000-t01"), std::string::npos)
      << table;
}

TEST(Hangs, ARankWhoseCompletionsStopIsStuckInItsNextCollective) {
  TempDir dir;
  for (int rank = 0; rank < kRanks; ++rank)
    dir.write("ring-" + std::to_string(rank) + ".collectives.jsonl",
              testing::joinLines(ringLines(rank, 0, rank == 3 ? 6 : 9)));
  const HangReport report = analyse(dir);
  ASSERT_EQ(report.jobs.at(0).hung.size(), 1u);
  const HungCollective& h = report.jobs[0].hung[0];
  EXPECT_EQ(h.seq, 7u);
  ASSERT_EQ(h.stuck.size(), 1u);
  EXPECT_EQ(h.stuck[0].rank, 3);
  EXPECT_FALSE(h.stuck[0].watchdog);
  EXPECT_EQ(h.stuck[0].lastCompletedSeq, 6);
  EXPECT_EQ(h.completed, (std::vector<int>{0, 1, 2, 4, 5, 6, 7}));
  EXPECT_FALSE(h.suspect);
}

TEST(Hangs, RanksWithoutRecordsAreSilentAndAHealthyJobHasNoHang) {
  TempDir dir;
  for (int rank = 0; rank < kRanks; ++rank)
    if (rank != 2)
      dir.write("ring-" + std::to_string(rank) + ".collectives.jsonl", testing::joinLines(ringLines(rank, 10, 9)));
  HangReport report = analyse(dir);
  ASSERT_EQ(report.jobs.at(0).hung.size(), 1u);
  EXPECT_EQ(report.jobs[0].hung[0].silent, std::vector<int>{2});

  TempDir healthy;
  for (int rank = 0; rank < kRanks; ++rank)
    healthy.write("ring-" + std::to_string(rank) + ".collectives.jsonl", testing::joinLines(ringLines(rank, 0, 9)));
  report = analyse(healthy);
  ASSERT_EQ(report.jobs.size(), 1u);
  EXPECT_TRUE(report.jobs[0].hung.empty());
  EXPECT_EQ(renderHangsTable(report), "job ring-job: no hung collectives\n");
}

}  // namespace
}  // namespace railtune::analysis::profile

namespace railtune::analysis::profile {
namespace {

TEST(Hangs, AHangRecordSaysWhereARankIsStuckEvenWithoutItsCompletions) {
  TempDir dir;
  for (int rank = 0; rank < testing::kRanks; ++rank) {
    std::vector<std::string> lines = testing::ringLines(rank, 10, 9);
    if (rank == 2) lines.erase(lines.begin(), lines.end() - 1);  // only its hang record survived
    dir.write("ring-" + std::to_string(rank) + ".collectives.jsonl", testing::joinLines(lines));
  }
  const ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, true, 2, 20});
  const HangReport report = analyseHangs(logs, nullptr, std::nullopt);
  ASSERT_EQ(report.jobs.at(0).hung.size(), 1u);  // not also a hang at seq 0 for rank 2
  const HungCollective& h = report.jobs[0].hung[0];
  EXPECT_EQ(h.seq, 10u);
  ASSERT_EQ(h.stuck.size(), 8u);
  EXPECT_TRUE(h.stuck[2].watchdog);
  EXPECT_EQ(h.stuck[2].lastCompletedSeq, -1);
}

}  // namespace
}  // namespace railtune::analysis::profile
