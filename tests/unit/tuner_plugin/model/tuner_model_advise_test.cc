// advise(): IGNORE cells, the collective/algorithm conditions, monotonic time, and zero heap
// allocations per call (operator new is replaced in this test binary to count them).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "tests/support/allocation_counter.h"
#include "tests/unit/tuner_plugin/model/tuner_model_support.h"
#include "tuner_plugin/model/advise.h"
#include "tuner_plugin/model/cost_model.h"

using railtune::testing::gAllocations;

namespace railtune::tuner::model {
namespace {

using testing::inputs;
using testing::kAllCollectives;
using testing::Table;

constexpr Algorithm kAlgorithms[] = {Algorithm::Tree,         Algorithm::Ring, Algorithm::CollNetDirect,
                                     Algorithm::CollNetChain, Algorithm::Nvls, Algorithm::NvlsTree,
                                     Algorithm::Pat};
constexpr Protocol kProtocols[] = {Protocol::LL, Protocol::LL128, Protocol::Simple};

// (nRanks, nNodes): one tray, one rack, two and eight racks under MNNVL, trays without it, one GPU per node.
const std::pair<size_t, size_t> kShapes[] = {{4, 1}, {72, 1}, {144, 2}, {576, 8}, {8, 2}, {72, 18}, {16, 16}, {1, 1}};

CollQuery query(Collective c, size_t nBytes) {
  CollQuery q;
  q.collective = c;
  q.nBytes = nBytes;
  return q;
}

TEST(TunerModelAdvise, NeverPicksAnIgnoredCellAndKeepsLookingElsewhere) {
  const ModelInputs rack = inputs(72, 1);
  Table table;
  const auto first = advise(rack, query(Collective::AllReduce, 1 << 30), table.view());
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->algorithm, Algorithm::Nvls);
  table.view().exclude(Algorithm::Nvls, Protocol::Simple);
  const auto second = advise(rack, query(Collective::AllReduce, 1 << 30), table.view());
  ASSERT_TRUE(second.has_value());
  EXPECT_NE(second->algorithm, Algorithm::Nvls);
  // Every cell IGNORE: no advice at all.
  Table none(-1.0f);
  EXPECT_FALSE(advise(rack, query(Collective::AllReduce, 1 << 20), none.view()).has_value());
}

TEST(TunerModelAdvise, RandomIgnoreMasksAreRespected) {
  for (const auto& [nRanks, nNodes] : kShapes) {
    const ModelInputs in = inputs(nRanks, nNodes);
    for (unsigned mask = 0; mask < (1u << 15); mask += 97) {
      Table table;
      for (int i = 0; i < 15; ++i)  // 5 modelled algorithms x 3 protocols, in index order of kAlgorithms
        if (mask & (1u << i)) table.cells[i / 3 < 2 ? i / 3 : i / 3 + 2][i % 3] = -1.0f;
      for (Collective c : kAllCollectives) {
        const auto advice = advise(in, query(c, size_t{1} << (mask % 34)), table.view());
        EXPECT_TRUE(!advice || table.view().available(advice->algorithm, advice->protocol));
      }
    }
  }
}

// NCCL's algorithm conditions, written out independently of cellUsable: true where the cell must not be used.
bool forbidden(Collective c, Algorithm a, Protocol p, size_t nRanks, size_t nNodes) {
  const bool allGatherOrReduceScatter = c == Collective::AllGather || c == Collective::ReduceScatter;
  const bool simpleOnly = a == Algorithm::Nvls || a == Algorithm::NvlsTree || a == Algorithm::Pat;
  if (nRanks == 1) return !(a == Algorithm::Ring && p == Protocol::Simple);
  return a == Algorithm::CollNetDirect || a == Algorithm::CollNetChain ||
         ((c == Collective::Broadcast || c == Collective::Reduce) && a != Algorithm::Ring) ||
         (allGatherOrReduceScatter && (a == Algorithm::Tree || a == Algorithm::NvlsTree)) ||
         (c == Collective::AllReduce && a == Algorithm::Pat) || (simpleOnly && p != Protocol::Simple) ||
         (a == Algorithm::NvlsTree && nNodes == 1) || (a == Algorithm::Nvls && nNodes > 1) ||
         (a == Algorithm::Pat && nRanks != nNodes) ||
         (a == Algorithm::Nvls && c != Collective::AllReduce && nRanks / nNodes > 32);  // NCCL_MAX_NVLS_ARITY
}

TEST(TunerModelAdvise, AlgorithmConditionsPerCollective) {
  for (const auto& [nRanks, nNodes] : kShapes) {
    const ModelInputs in = inputs(nRanks, nNodes);
    for (Collective c : kAllCollectives) {
      for (Algorithm a : kAlgorithms) {
        for (Protocol p : kProtocols) {
          SCOPED_TRACE(std::to_string(nRanks) + "/" + std::to_string(nNodes) + " " + collectiveName(c) + " " +
                       algorithmName(a) + " " + protocolName(p));
          const bool usable = cellUsable(in, c, a, p);
          EXPECT_FALSE(usable && forbidden(c, a, p, nRanks, nNodes));
          EXPECT_EQ(usable, predictTimeUs(in, query(c, 4096), a, p) >= 0.0);
        }
      }
    }
  }
  // And the cells NCCL's rules allow are offered: Ring everywhere, NVLS on one rack, PAT at one GPU per node.
  EXPECT_TRUE(cellUsable(inputs(4, 1), Collective::AllGather, Algorithm::Nvls, Protocol::Simple));
  EXPECT_TRUE(cellUsable(inputs(144, 2), Collective::AllReduce, Algorithm::NvlsTree, Protocol::Simple));
  EXPECT_TRUE(cellUsable(inputs(16, 16), Collective::ReduceScatter, Algorithm::Pat, Protocol::Simple));
  EXPECT_TRUE(cellUsable(inputs(8, 2), Collective::Broadcast, Algorithm::Ring, Protocol::LL));
  EXPECT_FALSE(cellUsable(inputs(72, 1), Collective::AllGather, Algorithm::Nvls, Protocol::Simple));  // > 32 ranks
}

TEST(TunerModelAdvise, CollNetIsNeverAdvisedEvenWhenNcclOffersItAtZero) {
  Table table;
  table.cells[static_cast<int>(Algorithm::CollNetDirect)][2] = 0.0f;
  table.cells[static_cast<int>(Algorithm::CollNetChain)][2] = 0.0f;
  for (const auto& [nRanks, nNodes] : kShapes) {
    const auto advice = advise(inputs(nRanks, nNodes), query(Collective::AllReduce, 1 << 26), table.view());
    ASSERT_TRUE(advice.has_value());
    EXPECT_NE(advice->algorithm, Algorithm::CollNetDirect);
    EXPECT_NE(advice->algorithm, Algorithm::CollNetChain);
  }
}

TEST(TunerModelAdvise, MoreBytesNeverTakeLessTime) {
  for (const auto& [nRanks, nNodes] : kShapes) {
    const ModelInputs in = inputs(nRanks, nNodes);
    for (Collective c : kAllCollectives)
      for (Algorithm a : kAlgorithms)
        for (Protocol p : kProtocols) {
          double previous = -1.0;
          for (int log = 0; log <= 36; ++log) {
            const double t = predictTimeUs(in, query(c, size_t{1} << log), a, p);
            if (t < 0) break;
            EXPECT_GE(t, previous) << algorithmName(a) << "/" << protocolName(p) << " at 2^" << log;
            previous = t;
          }
        }
    Table table;
    for (Collective c : kAllCollectives) {
      double previous = -1.0;
      for (int log = 0; log <= 36; ++log) {
        const auto advice = advise(in, query(c, size_t{1} << log), table.view());
        ASSERT_TRUE(advice.has_value());
        EXPECT_GE(advice->predictedUs, previous);
        previous = advice->predictedUs;
      }
    }
  }
}

TEST(TunerModelAdvise, ReasonIsStaticTextAndChannelsAreLeftToNccl) {
  Table table;
  const auto advice = advise(inputs(72, 1), query(Collective::AllReduce, 1 << 30), table.view());
  ASSERT_TRUE(advice.has_value());
  EXPECT_STREQ(advice->reason, "model: NVLS fastest, with the NVLS efficiency measured on an NVL72 rack");
  EXPECT_EQ(advice->nChannels, 0);
}

TEST(TunerModelAdvise, NoHeapAllocationPerCall) {
  if (!railtune::testing::kCountsAllocations) GTEST_SKIP() << "operator new cannot be replaced under TSan";
  std::vector<ModelInputs> all;
  for (const auto& [nRanks, nNodes] : kShapes) all.push_back(inputs(nRanks, nNodes));
  Table table;
  table.cells[0][0] = -1.0f;
  const size_t before = gAllocations.load();
  size_t advised = 0;
  for (const ModelInputs& in : all)
    for (Collective c : kAllCollectives)
      for (int log = 0; log <= 34; ++log) advised += advise(in, query(c, size_t{1} << log), table.view()).has_value();
  EXPECT_EQ(gAllocations.load(), before);
  EXPECT_EQ(advised, all.size() * 5 * 35);
}

}  // namespace
}  // namespace railtune::tuner::model
