// `profile hangs` root causes (hangs_graph.h): the sinks of the waits-for graph come first. The issue's
// case (a rank SIGSTOPped, the others alive with steps outstanding both ways, so that links between alive
// ranks have both ends waiting) must name the stopped rank, not a link; a stalled ring with every rank
// alive names its link; a NIC shared by two stopped links is named as the NIC.
#include <gtest/gtest.h>

#include "analysis/profile/hangs.h"
#include "analysis/profile/hangs_render.h"
#include "tests/unit/analysis/profile/profile_analysis_ring.h"
#include "tests/unit/analysis/profile/profile_analysis_test_support.h"

namespace railtune::analysis::profile {
namespace {

namespace po = formats::profile;
using testing::kRanks;
using testing::TempDir;

// Every rank completed seqs 0..9. At seq 10 `stopped` (if >= 0) writes nothing more; every other rank's
// hang record has its send to the next and its receive from the previous rank outstanding, `steps(rank)`
// steps each (the profiler counts every step of an open ProxyOp that is not done).
template <typename Steps>
void writeStalledRing(const TempDir& dir, int stopped, Steps steps) {
  for (int rank = 0; rank < kRanks; ++rank) {
    std::vector<std::string> lines = testing::ringLines(rank, 0, 9);
    if (rank != stopped) {
      auto hang = testing::operation(rank, 10, po::RecordKind::Hang);
      hang->stuckForNs = 300000000000ULL;
      testing::addFlow(hang.get(), (rank + 1) % kRanks, true, steps(rank, true), rank % 4);
      testing::addFlow(hang.get(), (rank + kRanks - 1) % kRanks, false, steps(rank, false), rank % 4);
      lines.push_back(po::renderCollectiveLine(testing::identityOf(rank), *hang, 0));
    }
    dir.write("ring-" + std::to_string(rank) + ".collectives.jsonl", testing::joinLines(lines));
  }
}

JobHangs analyseRing(const TempDir& dir) {
  const ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, false, 2, 20});
  EXPECT_EQ(logs.problems.count, 0u);
  HangReport report = analyseHangs(logs, nullptr, std::nullopt);
  EXPECT_EQ(report.jobs.size(), 1u);
  return report.jobs.at(0);
}

TEST(HangsRootCause, AStoppedRankIsNamedFirstNotALinkBetweenRanksWaitingOnIt) {
  TempDir dir;
  // Rank 3 stopped; 4 -> 5 has the most steps outstanding at both ends, as the old suspect link chose.
  writeStalledRing(dir, 3, [](int rank, bool send) { return (rank == 4 && send) || (rank == 5 && !send) ? 9u : 4u; });
  const JobHangs job = analyseRing(dir);
  ASSERT_FALSE(job.causes.empty());
  const RootCause& first = job.causes[0];
  EXPECT_EQ(first.kind, CauseKind::Rank);
  EXPECT_EQ(first.rank, 3);
  EXPECT_EQ(first.host, "r000-t00");
  EXPECT_EQ(first.pid, 103);
  EXPECT_EQ(first.waiters, 7);
  EXPECT_EQ(first.seq, 10u);
  EXPECT_EQ(job.causes.size(), 1u);  // no link: every alive rank reaches the stopped one
  for (const HungCollective& h : job.hung) EXPECT_FALSE(h.suspect);
  const std::string table = renderHangsTable(HangReport{{job}});
  EXPECT_NE(table.find("\n  root cause: rank 3 (pid 103, host r000-t00) stopped making progress at comm "
                       "00000000000000ab AllReduce seq 10 (last completed seq 9): 7 ranks wait on it, no hang "
                       "record of its own"),
            std::string::npos)
      << table;
}

TEST(HangsRootCause, WithEveryRankAliveTheLeastProgressedLinkIsNamed) {
  TempDir dir;
  // 5 -> 6 stopped: its steps stay outstanding at both ends; the links after it drained to fewer.
  writeStalledRing(dir, -1, [](int rank, bool send) {
    const int link = send ? rank : (rank + kRanks - 1) % kRanks;  // the link's sender
    return static_cast<uint32_t>(link == 5 ? 12 : 12 - (link + kRanks - 5) % kRanks);
  });
  const JobHangs job = analyseRing(dir);
  ASSERT_EQ(job.causes.size(), 1u);
  const RootCause& link = job.causes[0];
  EXPECT_EQ(link.kind, CauseKind::Link);
  ASSERT_TRUE(link.linkFrom && link.linkTo);
  EXPECT_EQ(link.linkFrom->rank, 5);
  EXPECT_EQ(link.linkTo->rank, 6);
  EXPECT_EQ(link.fromPid, 105);
  EXPECT_EQ(link.toPid, 106);
  ASSERT_TRUE(job.hung.at(0).suspect);
  EXPECT_EQ(job.hung[0].suspect->from.rank, 5);
}

TEST(HangsRootCause, TwoStoppedLinksThroughOneNicNameTheNic) {
  TempDir dir;
  // Rank 5's NIC went down: 4 -> 5 and 5 -> 6 keep all their steps; the other links drained.
  writeStalledRing(dir, -1, [](int rank, bool send) {
    const int link = send ? rank : (rank + kRanks - 1) % kRanks;
    return link == 4 || link == 5 ? 12u : 3u;
  });
  const JobHangs job = analyseRing(dir);
  ASSERT_FALSE(job.causes.empty());
  EXPECT_EQ(job.causes[0].kind, CauseKind::Nic);
  EXPECT_EQ(job.causes[0].hca, "mlx5_1");
  EXPECT_EQ(job.causes[0].nicRank, 5);
  EXPECT_EQ(job.causes[0].nicHost, "r000-t01");
  EXPECT_EQ(job.causes[0].links, 2);
}

// The emulated stalled link under load: 4 -> 0 went dark in seq 10 with one step outstanding at each end;
// the six other ranks completed seq 10 and wait in seq 11, where 1 -> 5 has most steps outstanding at both
// ends because 0 and 4 never entered it. The link the whole job waits on is 4 -> 0, not the busier one.
TEST(HangsRootCause, TheLinkAnEarlierOperationStalledOnComesBeforeABusierOneWaitingOnIt) {
  TempDir dir;
  for (int rank = 0; rank < kRanks; ++rank) {
    const bool inStall = rank == 0 || rank == 4;
    std::vector<std::string> lines = testing::ringLines(rank, 0, inStall ? 9 : 10);
    auto hang = testing::operation(rank, inStall ? 10 : 11, po::RecordKind::Hang);
    hang->stuckForNs = 300000000000ULL;
    if (rank == 4) testing::addFlow(hang.get(), 0, true, 1, 0);
    if (rank == 0) testing::addFlow(hang.get(), 4, false, 1, 0);
    if (rank == 1) testing::addFlow(hang.get(), 5, true, 12, 1);
    if (rank == 5) testing::addFlow(hang.get(), 1, false, 11, 1);
    lines.push_back(po::renderCollectiveLine(testing::identityOf(rank), *hang, 0));
    dir.write("ring-" + std::to_string(rank) + ".collectives.jsonl", testing::joinLines(lines));
  }
  const JobHangs job = analyseRing(dir);
  ASSERT_EQ(job.causes.size(), 2u);
  EXPECT_EQ(job.causes[0].kind, CauseKind::Link);
  ASSERT_TRUE(job.causes[0].linkFrom && job.causes[0].linkTo);
  EXPECT_EQ(job.causes[0].linkFrom->rank, 4);
  EXPECT_EQ(job.causes[0].linkTo->rank, 0);
  EXPECT_EQ(job.causes[0].seq, 10u);
  EXPECT_EQ(job.causes[0].waiters, kRanks);  // 0 and 4, and every rank of seq 11 through them
  ASSERT_TRUE(job.causes[1].linkFrom);
  EXPECT_EQ(job.causes[1].linkFrom->rank, 1);
  EXPECT_EQ(job.causes[1].waiters, 2);
}

TEST(HangsRootCause, AHealthyJobHasNoRootCause) {
  TempDir dir;
  for (int rank = 0; rank < kRanks; ++rank)
    dir.write("ring-" + std::to_string(rank) + ".collectives.jsonl",
              testing::joinLines(testing::ringLines(rank, 0, 9)));
  const JobHangs job = analyseRing(dir);
  EXPECT_TRUE(job.hung.empty());
  EXPECT_TRUE(job.causes.empty());
}

}  // namespace
}  // namespace railtune::analysis::profile
