// `profile hangs` on operations keyed as NCCL numbers them (seq per collective type; a transfer per
// sender, receiver and seq), gaps in a rank's records told from hangs, hang records against later
// completions (finalize or events), and the losses both reports print.
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "analysis/profile/hangs.h"
#include "analysis/profile/hangs_render.h"
#include "analysis/profile/stragglers.h"
#include "analysis/profile/stragglers_render.h"
#include "tests/unit/analysis/profile/profile_analysis_lines.h"
#include "tests/unit/analysis/profile/profile_analysis_test_support.h"

namespace railtune::analysis::profile {
namespace {

using testing::collLine;
using testing::kGapRanks;
using testing::TempDir;
using Lines = std::map<int, std::vector<std::string>>;

ProfileLogs readLines(const TempDir& dir, const Lines& lines) {
  for (const auto& [rank, text] : lines)
    dir.write("gap-job-" + std::to_string(rank) + ".collectives.jsonl", testing::joinLines(text));
  ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, true, 2, 20});
  EXPECT_EQ(logs.problems.count, 0u) << (logs.problems.first.empty() ? "" : logs.problems.first[0]);
  return logs;
}

JobHangs hangsOf(const Lines& lines) {
  TempDir dir;
  const HangReport report = analyseHangs(readLines(dir, lines), nullptr, std::nullopt);
  EXPECT_EQ(report.jobs.size(), 1u);
  return report.jobs.empty() ? JobHangs{} : report.jobs[0];
}

// Every rank runs `ops` (op name, seq) one after another, 1 ms apart; `skip` leaves a rank's ones out.
Lines job(
    const std::vector<std::pair<std::string, uint64_t>>& ops,
    const std::function<bool(int, size_t)>& skip = [](int, size_t) { return false; }) {
  Lines lines;
  for (int rank = 0; rank < kGapRanks; ++rank)
    for (size_t i = 0; i < ops.size(); ++i)
      if (!skip(rank, i)) lines[rank].push_back(collLine(rank, ops[i].first, ops[i].second, 1000.0 * (i + 1)));
  return lines;
}

std::vector<std::pair<std::string, uint64_t>> allReduces(uint64_t n) {
  std::vector<std::pair<std::string, uint64_t>> ops;
  for (uint64_t s = 0; s < n; ++s) ops.push_back({"AllReduce", s});
  return ops;
}

// The case: AllReduce #0 everywhere, then AllGather #0 on every rank but 3, which is stuck there.
TEST(HangsKeys, ARankStuckInAnotherCollectiveTypeWithTheSameSeqIsHung) {
  Lines lines = job({{"AllReduce", 0}, {"AllGather", 0}}, [](int rank, size_t i) { return rank == 3 && i == 1; });
  for (auto& [rank, text] : lines)
    for (std::string& line : text) line = testing::oldFormat(line);  // files written before closed_by
  const JobHangs hangs = hangsOf(lines);
  ASSERT_EQ(hangs.hung.size(), 1u);
  const HungCollective& h = hangs.hung[0];
  EXPECT_EQ(h.op, "AllGather");
  EXPECT_EQ(h.seq, 0u);
  ASSERT_EQ(h.stuck.size(), 1u);
  EXPECT_EQ(h.stuck[0].rank, 3);
  EXPECT_FALSE(h.stuck[0].watchdog);
  EXPECT_EQ(h.stuck[0].lastCompletedSeq, -1);  // no AllGather completed
  EXPECT_EQ(h.completed, (std::vector<int>{0, 1, 2, 4, 5, 6, 7}));
  EXPECT_TRUE(hangs.gaps.empty());
  EXPECT_NE(renderHangsTable(HangReport{{hangs}}).find("comm 00000000000000cd seq 0 AllGather: 1 stuck, 7 completed"),
            std::string::npos)
      << renderHangsTable(HangReport{{hangs}});
}

TEST(HangsKeys, StragglersAnalyseEachCollectiveTypeOnItsOwn) {
  TempDir dir;
  const ProfileLogs logs = readLines(dir, job({{"AllReduce", 0}, {"AllGather", 0}, {"AllReduce", 1}}));
  const StragglerReport report = analyseStragglers(logs, nullptr, StragglerOptions{});
  ASSERT_EQ(report.jobs.size(), 1u);
  EXPECT_EQ(report.jobs[0].collectives, 3u);  // not 2: AllReduce #0 and AllGather #0 are different
}

TEST(HangsGaps, MissingRecordsOfARankThatWentPastThemAreAGapNotAHang) {
  const JobHangs hangs = hangsOf(job(allReduces(10), [](int rank, size_t i) { return rank == 3 && i >= 2 && i <= 4; }));
  EXPECT_TRUE(hangs.hung.empty());
  ASSERT_EQ(hangs.gaps.size(), 1u);
  EXPECT_EQ(hangs.gaps[0].rank, 3);
  EXPECT_EQ(hangs.gaps[0].op, "AllReduce");
  EXPECT_EQ(hangs.gaps[0].firstSeq, 2u);
  EXPECT_EQ(hangs.gaps[0].lastSeq, 4u);
  EXPECT_FALSE(hangs.gaps[0].afterLast);
  const std::string table = renderHangsTable(HangReport{{hangs}});
  EXPECT_NE(table.find("job gap-job: no hung collectives"), std::string::npos) << table;
  EXPECT_NE(table.find("rank 3 on r001-t00 comm 00000000000000cd AllReduce seq 2-4: 3 records missing"),
            std::string::npos)
      << table;
}

TEST(HangsGaps, AGapAcrossCollectiveTypesIsToldByTheCommunicatorsOrder) {
  // Rank 5 lost its AllGather #0 but completed AllReduce #1, which every other rank ran after it.
  const JobHangs hangs = hangsOf(
      job({{"AllReduce", 0}, {"AllGather", 0}, {"AllReduce", 1}}, [](int r, size_t i) { return r == 5 && i == 1; }));
  EXPECT_TRUE(hangs.hung.empty());
  ASSERT_EQ(hangs.gaps.size(), 1u);
  EXPECT_EQ(hangs.gaps[0].op, "AllGather");
}

TEST(HangsGaps, CompletionsThatStopBeforeALossNoticeAreRecordsLostNotAHang) {
  Lines lines = job(allReduces(10), [](int rank, size_t i) { return rank == 3 && i > 5; });
  lines[3].push_back(testing::droppedLine(3, 7500, 4));  // the disk filled after its seq 5
  JobHangs hangs = hangsOf(lines);
  EXPECT_TRUE(hangs.hung.empty());
  ASSERT_EQ(hangs.gaps.size(), 1u);
  EXPECT_TRUE(hangs.gaps[0].afterLast);
  EXPECT_EQ(hangs.gaps[0].lastCompletedSeq, 5);
  ASSERT_EQ(hangs.losses.size(), 1u);
  EXPECT_EQ(hangs.losses[0].recordsDropped, 4u);
  const std::string table = renderHangsTable(HangReport{{hangs}});
  EXPECT_NE(table.find("AllReduce: records lost after seq 5"), std::string::npos) << table;
  EXPECT_NE(table.find("r001-t00 pid 203: 4 records dropped, 2025-11-30T05:20:00.007Z"), std::string::npos) << table;

  // A loss before its last completion does not explain why nothing came after it.
  lines = job(allReduces(10), [](int rank, size_t i) { return rank == 3 && i > 5; });
  lines[3].insert(lines[3].begin() + 2, testing::droppedLine(3, 2500, 4));
  hangs = hangsOf(lines);
  ASSERT_EQ(hangs.hung.size(), 1u);
  EXPECT_EQ(hangs.hung[0].seq, 6u);
}

TEST(HangsGaps, APoolsLostOperationsOfTheRankCoverItsMissingCompletions) {
  Lines lines = job(allReduces(4), [](int rank, size_t i) { return rank == 6 && i == 3; });
  lines[6].push_back(testing::droppedLine(6, 4500, 0, 1, 12));
  const JobHangs hangs = hangsOf(lines);
  EXPECT_TRUE(hangs.hung.empty());
  ASSERT_EQ(hangs.losses.size(), 1u);
  EXPECT_EQ(hangs.losses[0].rank, 6);
  EXPECT_EQ(hangs.losses[0].operationsDropped, 1u);
  EXPECT_EQ(hangs.losses[0].eventsDropped, 12u);
}

TEST(HangsWatchdog, AHangRecordWinsOverACompletionClosedAtFinalize) {
  Lines lines = job(allReduces(3));
  for (int rank = 0; rank < kGapRanks; ++rank) {
    lines[rank].push_back(testing::hangLine(rank, "AllReduce", 3, 4000, 300, (rank + 1) % kGapRanks, true));
    lines[rank].push_back(collLine(rank, "AllReduce", 3, 400e6, formats::profile::CloseReason::Finalize));
  }
  const JobHangs hangs = hangsOf(lines);
  ASSERT_EQ(hangs.hung.size(), 1u);
  EXPECT_EQ(hangs.hung[0].stuck.size(), 8u);
  EXPECT_TRUE(hangs.hung[0].stuck[0].watchdog);
  EXPECT_TRUE(hangs.hung[0].stuck[0].closedAtFinalize);
  EXPECT_EQ(hangs.hung[0].stuck[0].flows.size(), 1u);
  EXPECT_TRUE(hangs.resolved.empty());
}

TEST(HangsWatchdog, AHangRecordFollowedByACompletionByItsEventsResolved) {
  Lines lines = job(allReduces(5));
  lines[2].insert(lines[2].begin() + 3, testing::hangLine(2, "AllReduce", 3, 4000, 300, 3, true));
  const JobHangs hangs = hangsOf(lines);
  EXPECT_TRUE(hangs.hung.empty());
  ASSERT_EQ(hangs.resolved.size(), 1u);
  EXPECT_EQ(hangs.resolved[0].rank, 2);
  EXPECT_EQ(hangs.resolved[0].closedBy, "events");
  EXPECT_NEAR(hangs.resolved[0].afterS, 0.0001, 1e-9);
  const std::string table = renderHangsTable(HangReport{{hangs}});
  EXPECT_NE(table.find("AllReduce seq 3: resolved after 0 s (closed by events)"), std::string::npos) << table;
}

TEST(HangsP2p, ASendWithoutItsRecvIsATransferStuckAtTheReceiver) {
  Lines lines;
  for (uint64_t k = 0; k < 3; ++k) {
    lines[0].push_back(testing::p2pLine(0, "Send", 1, k, 1000.0 * (k + 1)));
    if (k < 2) lines[1].push_back(testing::p2pLine(1, "Recv", 0, k, 1000.0 * (k + 1)));
    lines[1].push_back(testing::p2pLine(1, "Send", 2, k, 1000.0 * (k + 1) + 10));  // another pair: unaffected
    lines[2].push_back(testing::p2pLine(2, "Recv", 1, k, 1000.0 * (k + 1) + 10));
  }
  lines[1].push_back(testing::hangLine(1, "Recv", 2, 3000, 300, 0, false, 0));
  const JobHangs hangs = hangsOf(lines);
  ASSERT_EQ(hangs.hung.size(), 1u);
  const HungCollective& h = hangs.hung[0];
  EXPECT_EQ(h.op, "p2p");
  EXPECT_EQ(h.from, 0);
  EXPECT_EQ(h.to, 1);
  EXPECT_EQ(h.seq, 2u);
  EXPECT_EQ(h.completed, std::vector<int>{0});
  ASSERT_EQ(h.stuck.size(), 1u);
  EXPECT_EQ(h.stuck[0].rank, 1);
  EXPECT_TRUE(h.stuck[0].watchdog);
  EXPECT_EQ(h.stuck[0].lastCompletedSeq, 1);
  EXPECT_NE(renderHangsTable(HangReport{{hangs}}).find("p2p 0 -> 1 seq 2: 1 stuck, 1 completed"), std::string::npos)
      << renderHangsTable(HangReport{{hangs}});
}

TEST(HangsP2p, ARecvMissingBelowLaterOnesIsAGap) {
  Lines lines;
  for (uint64_t k = 0; k < 4; ++k) {
    lines[0].push_back(testing::p2pLine(0, "Send", 1, k, 1000.0 * (k + 1)));
    if (k != 1) lines[1].push_back(testing::p2pLine(1, "Recv", 0, k, 1000.0 * (k + 1)));
  }
  const JobHangs hangs = hangsOf(lines);
  EXPECT_TRUE(hangs.hung.empty());
  ASSERT_EQ(hangs.gaps.size(), 1u);
  EXPECT_EQ(hangs.gaps[0].rank, 1);
  EXPECT_EQ(hangs.gaps[0].from, 0);
  EXPECT_EQ(hangs.gaps[0].firstSeq, 1u);
}

TEST(Losses, BothReportsPrintTheLossesOfEachProcessAndRank) {
  Lines lines = job(allReduces(4));
  lines[1].insert(lines[1].begin() + 1, testing::droppedLine(1, 1500, 2));
  lines[1].insert(lines[1].begin() + 3, testing::droppedLine(1, 3500, 3));
  lines[5].push_back(testing::droppedLine(5, 4500, 0, 2, 9));
  TempDir dir;
  const ProfileLogs logs = readLines(dir, lines);
  EXPECT_EQ(logs.droppedNotices, 3u);
  const StragglerReport stragglers = analyseStragglers(logs, nullptr, StragglerOptions{});
  ASSERT_EQ(stragglers.jobs.at(0).losses.size(), 2u);
  const LossReport& writer = stragglers.jobs[0].losses[0];
  EXPECT_EQ(writer.rank, -1);
  EXPECT_EQ(writer.recordsDropped, 5u);
  EXPECT_EQ(writer.lastNs - writer.firstNs, 2000000);
  const std::string table = renderStragglersTable(stragglers, StragglerOptions{}, 5);
  EXPECT_NE(table.find("losses reported in the logs: 2"), std::string::npos) << table;
  EXPECT_NE(table.find("r001-t01 pid 205 comm 00000000000000cd rank 5: 2 operations, 9 events dropped"),
            std::string::npos)
      << table;
  EXPECT_NE(renderStragglersJson(stragglers).find("\"operations_dropped\":2"), std::string::npos);
  const HangReport hangs = analyseHangs(logs, nullptr, std::nullopt);
  EXPECT_EQ(hangs.jobs.at(0).losses.size(), 2u);
  EXPECT_NE(renderHangsJson(hangs).find("\"records_dropped\":5"), std::string::npos);
}

TEST(Losses, OldFilesWithRecordsDroppedOnACompletedLineCountAsALoss) {
  Lines lines = job(allReduces(2));
  lines[4][1].insert(lines[4][1].find("\"schema\""), "\"records_dropped\":7,");
  TempDir dir;
  const ProfileLogs logs = readLines(dir, lines);
  ASSERT_EQ(logs.losses.size(), 1u);
  EXPECT_EQ(logs.losses[0].recordsDropped, 7u);
  EXPECT_EQ(logs.samples.size(), 16u);
}

}  // namespace
}  // namespace railtune::analysis::profile
