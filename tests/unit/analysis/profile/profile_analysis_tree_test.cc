// `profile hangs` in a tree collective (hangs_tree.h): the reduce and broadcast halves stop on different
// links, and most links of both wait with as many steps outstanding as the one that stopped, so least
// progress alone ties. The flows below are those of the hangs evaluation's tree scenarios (4 ranks per
// host, one NIC per rank, a binary tree over the ranks in host order, NVLink within a host and so not
// in the records): a NIC that went down must be named as the NIC, not as a link into its rank, and an
// up link that stopped must be named although the broadcast links starved behind it tie with it.
#include <gtest/gtest.h>

#include <map>
#include <tuple>
#include <vector>

#include "analysis/profile/hangs.h"
#include "tests/unit/analysis/profile/profile_analysis_ring.h"
#include "tests/unit/analysis/profile/profile_analysis_test_support.h"

namespace railtune::analysis::profile {
namespace {

namespace po = formats::profile;
using testing::TempDir;

struct TreeLink {
  int channel, from, to;
  uint32_t outstanding;  // at both ends
};

Identity treeIdentity(int rank) {
  return Identity{"r000-t0" + std::to_string(rank / 4), "tree-job", 100 + rank};
}

// Every rank completed seqs 0..4 and wrote a hang record of seq 5 with its flows of `links` (steps of 9).
void writeStalledTree(const TempDir& dir, int ranks, const std::vector<TreeLink>& links) {
  for (int rank = 0; rank < ranks; ++rank) {
    std::vector<std::string> lines;
    for (uint64_t seq = 0; seq <= 5; ++seq) {
      auto r = testing::operation(rank, seq, seq < 5 ? po::RecordKind::Collective : po::RecordKind::Hang);
      r->nRanks = ranks, r->channels = 2;
      r->algorithm.assign("TREE");
      if (seq == 5) {
        r->stuckForNs = 300000000000ULL;
        for (const TreeLink& l : links) {
          if (l.from != rank && l.to != rank) continue;
          po::NetFlow& f = r->flows[r->nFlows++];
          f.channel = l.channel, f.send = l.from == rank, f.peer = f.send ? l.to : l.from;
          f.outstanding = l.outstanding, f.steps = 9 - l.outstanding, f.bytes = f.steps * 4096ull;
          f.device = f.rail = rank % 4;
          f.hca.assign("mlx5_" + std::to_string(rank % 4));
        }
      }
      lines.push_back(po::renderCollectiveLine(treeIdentity(rank), *r, 0));
    }
    dir.write("tree-" + std::to_string(rank) + ".collectives.jsonl", testing::joinLines(lines));
  }
}

JobHangs analyseTree(const TempDir& dir) {
  const ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, false, 2, 20});
  EXPECT_EQ(logs.problems.count, 0u);
  HangReport report = analyseHangs(logs, nullptr, std::nullopt);
  EXPECT_EQ(report.jobs.size(), 1u);
  return report.jobs.at(0);
}

TEST(HangsTree, ANicDownIsNamedAsTheNicNotAsALinkIntoItsRank) {
  TempDir dir;
  // Rank 14's NIC went down: on channel 0 its link down from 6 has the least progress of all (9
  // outstanding, the others 8 or done), which least progress alone named; on channel 1 its links with
  // 9 tie with a dozen starved broadcast links. Its links both ways to 6 and to 9 are explained by no
  // other link.
  writeStalledTree(
      dir, 16,
      {{0, 1, 4, 8},   {0, 2, 5, 8},  {0, 2, 6, 8},  {0, 3, 7, 8},  {0, 3, 8, 8},   {0, 4, 1, 0},  {0, 4, 9, 8},
       {0, 4, 10, 8},  {0, 5, 2, 0},  {0, 5, 11, 8}, {0, 5, 12, 8}, {0, 6, 2, 8},   {0, 6, 13, 8}, {0, 6, 14, 9},
       {0, 7, 3, 0},   {0, 7, 15, 8}, {0, 8, 3, 0},  {0, 9, 4, 0},  {0, 10, 4, 0},  {0, 11, 5, 0}, {0, 12, 5, 0},
       {0, 13, 6, 0},  {0, 14, 6, 8}, {0, 15, 7, 0}, {1, 0, 8, 0},  {1, 1, 10, 0},  {1, 2, 11, 0}, {1, 3, 11, 0},
       {1, 4, 10, 0},  {1, 5, 12, 0}, {1, 6, 9, 1},  {1, 7, 9, 1},  {1, 8, 0, 9},   {1, 8, 12, 0}, {1, 9, 6, 9},
       {1, 9, 7, 9},   {1, 9, 14, 9}, {1, 10, 1, 9}, {1, 10, 4, 9}, {1, 10, 15, 0}, {1, 11, 2, 9}, {1, 11, 3, 9},
       {1, 11, 15, 0}, {1, 12, 5, 9}, {1, 12, 8, 9}, {1, 14, 9, 9}, {1, 15, 10, 9}, {1, 15, 11, 9}});
  const JobHangs job = analyseTree(dir);
  ASSERT_FALSE(job.causes.empty());
  const RootCause& nic = job.causes[0];
  EXPECT_EQ(nic.kind, CauseKind::Nic);
  EXPECT_EQ(nic.nicRank, 14);
  EXPECT_EQ(nic.hca, "mlx5_2");
  EXPECT_EQ(nic.nicHost, "r000-t03");
  EXPECT_EQ(nic.nicPid, 114);
  for (const RootCause& cause : job.causes) EXPECT_NE(cause.kind, CauseKind::Link) << cause.text;
}

TEST(HangsTree, AStoppedUpLinkIsNamedThoughTheStarvedBroadcastTiesWithIt) {
  TempDir dir;
  // 6 -> 2 (up) stopped after 1 step: the broadcast links 1 -> 4, 2 -> 5, 2 -> 6 and 3 -> 7 wait with as
  // many steps outstanding (the root could reduce 1 step), 1 -> 4 and 3 -> 7 fed over NVLink by the
  // starving root's host, so they too are explained by no link in the records.
  writeStalledTree(dir, 8,
                   {{0, 1, 4, 8},
                    {0, 2, 5, 8},
                    {0, 2, 6, 8},
                    {0, 3, 7, 8},
                    {0, 4, 1, 0},
                    {0, 5, 2, 0},
                    {0, 6, 2, 8},
                    {0, 7, 3, 0},
                    {1, 0, 4, 0},
                    {1, 1, 6, 0},
                    {1, 2, 7, 0},
                    {1, 3, 7, 0},
                    {1, 4, 0, 0},
                    {1, 6, 1, 0},
                    {1, 7, 2, 0},
                    {1, 7, 3, 0}});
  const JobHangs job = analyseTree(dir);
  ASSERT_EQ(job.causes.size(), 1u);
  const RootCause& link = job.causes[0];
  EXPECT_EQ(link.kind, CauseKind::Link);
  ASSERT_TRUE(link.linkFrom && link.linkTo);
  EXPECT_EQ(link.linkFrom->rank, 6);
  EXPECT_EQ(link.linkTo->rank, 2);
  EXPECT_EQ(link.fromPid, 106);
  EXPECT_EQ(link.toPid, 102);
}

TEST(HangsTree, TiedUnexplainedLinksNameNothing) {
  TempDir dir;
  // The same broadcast links stuck with no link up stuck behind them: nothing tells which one stopped.
  writeStalledTree(dir, 8, {{0, 1, 4, 8}, {0, 3, 7, 8}, {0, 4, 1, 0}, {0, 7, 3, 0}});
  const JobHangs job = analyseTree(dir);
  ASSERT_EQ(job.hung.size(), 1u);
  EXPECT_TRUE(job.causes.empty());
}

}  // namespace
}  // namespace railtune::analysis::profile
