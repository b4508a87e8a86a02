// The emulated job's schedule (emulator/net_job/schedule.h): ring and tree neighbours, rails kept
// between hosts, segments, edges per collective.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "emulator/net_job/schedule.h"

namespace railtune::emu::netjob {
namespace {

// `hosts` hosts of `gpus` GPUs, `perDomain` hosts per NVLink domain; rank r on host r / gpus.
std::vector<RankPlace> cluster(int hosts, int gpus, int perDomain) {
  std::vector<RankPlace> ranks;
  for (int r = 0; r < hosts * gpus; ++r)
    ranks.push_back(RankPlace{r, r / gpus, r % gpus, "mlx5_" + std::to_string(r % gpus), r % gpus,
                              "rack" + std::to_string(r / gpus / perDomain)});
  return ranks;
}

// Every rank once; every hop between hosts joins GPUs of the same index (hence rail).
void expectRailAlignedRing(const std::vector<RankPlace>& ranks, int allowedCrossings) {
  const std::vector<int> ring = ringOrder(ranks);
  ASSERT_EQ(ring.size(), ranks.size());
  EXPECT_EQ(std::set<int>(ring.begin(), ring.end()).size(), ranks.size());
  int crossings = 0;
  for (size_t i = 0; i < ring.size(); ++i) {
    const RankPlace& a = ranks[static_cast<size_t>(ring[i])];
    const RankPlace& b = ranks[static_cast<size_t>(ring[(i + 1) % ring.size()])];
    if (a.hostIndex != b.hostIndex && a.gpu != b.gpu) ++crossings;
  }
  EXPECT_EQ(crossings, allowedCrossings);
}

TEST(NetJobRing, HopsBetweenHostsStayOnOneRail) {
  expectRailAlignedRing(cluster(1, 4, 1), 0);
  expectRailAlignedRing(cluster(2, 4, 1), 0);
  expectRailAlignedRing(cluster(4, 4, 2), 0);
  expectRailAlignedRing(cluster(3, 4, 1), 0);  // odd host count: a third entry GPU closes the ring
  expectRailAlignedRing(cluster(5, 3, 5), 0);
  expectRailAlignedRing(cluster(3, 2, 1), 1);  // odd hosts of two GPUs: the closing hop must cross
}

TEST(NetJobRing, FourHostsOfFourGpus) {
  const std::vector<int> expected = {0, 2, 3, 1, 5, 6, 7, 4, 8, 10, 11, 9, 13, 14, 15, 12};
  EXPECT_EQ(ringOrder(cluster(4, 4, 2)), expected);
}

TEST(NetJobTree, ChainInsideNodesBinaryTreeBetweenHeads) {
  const auto ranks = cluster(4, 2, 1);  // 4 nodes without MNNVL: heads 0, 2, 4, 6
  const auto tree = treeLinks(ranks, false);
  EXPECT_EQ(tree[0].parent, -1);
  EXPECT_EQ(tree[1].parent, 0);
  EXPECT_EQ(tree[2].parent, 0);
  EXPECT_EQ(tree[4].parent, 0);
  EXPECT_EQ(tree[6].parent, 2);
  EXPECT_EQ(tree[7].parent, 6);
  EXPECT_EQ(tree[0].children, (std::vector<int>{1, 2, 4}));
  for (size_t r = 0; r < tree.size(); ++r) {
    if (tree[r].parent < 0) continue;
    const RankPlace& p = ranks[static_cast<size_t>(tree[r].parent)];
    if (p.hostIndex != ranks[r].hostIndex) {
      EXPECT_EQ(p.gpu, ranks[r].gpu) << "tree edge " << r << " crosses rails";
    }
  }
}

TEST(NetJobTree, MnnvlMakesADomainOneNode) {
  const auto tree = treeLinks(cluster(4, 2, 2), true);  // two domains: ranks 0-3 and 4-7
  EXPECT_EQ(tree[3].parent, 2);
  EXPECT_EQ(tree[4].parent, 0);
  EXPECT_EQ(tree[0].children, (std::vector<int>{1, 4}));
}

TEST(NetJobSegments, CoverTheBufferWithoutGaps) {
  for (size_t bytes : {0ul, 1ul, 7ul, 1001ul, 65536ul}) {
    for (int parts : {1, 3, 8, 16}) {
      size_t next = 0;
      for (int i = 0; i < parts; ++i) {
        const Segment s = segment(bytes, parts, i);
        EXPECT_EQ(s.offset, next) << bytes << " / " << parts << " part " << i;
        EXPECT_LE(s.size, bytes / static_cast<size_t>(parts) + 1);
        next = s.offset + s.size;
      }
      EXPECT_EQ(next, bytes);
    }
  }
}

TEST(NetJobEdges, NvlinkInsideNodesPluginBetween) {
  const auto ranks = cluster(4, 2, 2);
  EXPECT_TRUE(overNvlink(ranks[0], ranks[1], false));
  EXPECT_FALSE(overNvlink(ranks[0], ranks[2], false));
  EXPECT_TRUE(overNvlink(ranks[0], ranks[2], true));
  EXPECT_FALSE(overNvlink(ranks[0], ranks[4], true));
  EXPECT_EQ(edgesFor({Collective::AllToAll}, ranks, true).size(), 8u * 7u);
  EXPECT_EQ(edgesFor({Collective::AllReduce, Collective::AllGather}, ranks, true).size(), 8u);
  EXPECT_EQ(edgesFor({Collective::TreeAllReduce}, ranks, true).size(), 14u);
}

TEST(NetJobCollectives, ParsesListsAndRejectsUnknownNames) {
  EXPECT_EQ(parseCollectiveList("all").size(), 5u);
  EXPECT_EQ(parseCollectiveList("tree,all-reduce"),
            (std::vector<Collective>{Collective::TreeAllReduce, Collective::AllReduce}));
  try {
    parseCollectiveList("all-reduce,broadcast");
    FAIL() << "accepted broadcast";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'broadcast'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parseCollectiveList(""), std::invalid_argument);
}

}  // namespace
}  // namespace railtune::emu::netjob
