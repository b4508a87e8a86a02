// ModelInputs: communicator-wide values only. Two rail maps whose host sections differ for one host give
// the cluster-wide minimum, and so the same advice as a uniform map at that minimum, on every rank.
#include <gtest/gtest.h>

#include <cstring>

#include "tests/unit/tuner_plugin/model/tuner_model_support.h"
#include "tuner_plugin/model/advise.h"
#include "tuner_plugin/model/cost_model.h"

namespace railtune::tuner::model {
namespace {

using testing::comm;
using testing::kAllCollectives;
using testing::railMap;
using testing::Table;

ModelInputs withMap(const CommInfo& c, const formats::RailMap& map, BuildMessages& messages) {
  return makeModelInputs(c, nullptr, &map, FabricDefaults{}, messages);
}

// Advice over collectives x sizes, flattened for comparison.
std::vector<std::tuple<int, int, double>> adviceGrid(const ModelInputs& in) {
  std::vector<std::tuple<int, int, double>> grid;
  Table table;
  for (Collective c : kAllCollectives)
    for (int log = 3; log <= 34; ++log) {
      CollQuery q;
      q.collective = c;
      q.nBytes = size_t{1} << log;
      const auto a = advise(in, q, table.view()).value();
      grid.emplace_back(static_cast<int>(a.algorithm), static_cast<int>(a.protocol), a.predictedUs);
    }
  return grid;
}

TEST(TunerModelInputs, OneHostWithFewerRailsGivesTheClusterMinimumWhicheverHostItIs) {
  // Without MNNVL: 8 trays of 4 GPUs are 8 NCCL nodes, so the network bounds Ring and Tree.
  const CommInfo trays = comm(32, 8);
  BuildMessages uniformMsgs, firstMsgs, lastMsgs, reducedMsgs;
  const ModelInputs uniform = withMap(trays, railMap(std::vector<int>(8, 4), 4), uniformMsgs);
  std::vector<int> firstShort(8, 4), lastShort(8, 4);
  firstShort.front() = 2;
  lastShort.back() = 2;
  const ModelInputs first = withMap(trays, railMap(firstShort, 4), firstMsgs);
  const ModelInputs last = withMap(trays, railMap(lastShort, 4), lastMsgs);
  const ModelInputs reduced = withMap(trays, railMap(std::vector<int>(8, 2), 4), reducedMsgs);
  EXPECT_FALSE(uniform.fabric.hostsDiffer);
  EXPECT_TRUE(first.fabric.hostsDiffer);
  EXPECT_EQ(first.fabric.railsPerHost, 2);
  EXPECT_DOUBLE_EQ(first.fabric.netBwPerGpu, 25.0);  // 2 rails x 50 GB/s / 4 GPUs
  EXPECT_DOUBLE_EQ(uniform.fabric.netBwPerGpu, 50.0);
  ASSERT_EQ(firstMsgs.notes.size(), 2u);
  EXPECT_NE(firstMsgs.notes[0].find("minimum over all hosts"), std::string::npos);
  EXPECT_TRUE(firstMsgs.errors.empty());
  // The inputs are the same bytes whichever host is short, and advise as the uniform 2-rail map does.
  EXPECT_EQ(std::memcmp(&first.constants, &last.constants, sizeof first.constants), 0);
  EXPECT_EQ(adviceGrid(first), adviceGrid(last));
  EXPECT_EQ(adviceGrid(first), adviceGrid(reduced));
  EXPECT_NE(adviceGrid(first), adviceGrid(uniform));  // the rails do matter to the model
}

TEST(TunerModelInputs, NvlDomainInfoFromNcclElseTheFallback) {
  CommInfo c = comm(144, 2);
  BuildMessages messages;
  ModelInputs fallback = makeModelInputs(c, nullptr, nullptr, FabricDefaults{}, messages);
  EXPECT_FALSE(fallback.nvlFromNccl);
  EXPECT_EQ(fallback.nDomains, 2);
  EXPECT_EQ(fallback.ranksPerDomain, 72);
  c.nvl = NvlDomainInfo{2, 70, 74};
  ModelInputs fromNccl = makeModelInputs(c, nullptr, nullptr, FabricDefaults{}, messages);
  EXPECT_TRUE(fromNccl.nvlFromNccl);
  EXPECT_EQ(fromNccl.ranksPerDomain, 70);  // the smallest domain
}

TEST(TunerModelInputs, ImpossibleNodeCountsAreClampedNotTrusted) {
  BuildMessages messages;
  const ModelInputs moreNodes = makeModelInputs(comm(4, 8), nullptr, nullptr, FabricDefaults{}, messages);
  EXPECT_EQ(moreNodes.nNodes, 4);
  const ModelInputs noNodes = makeModelInputs(comm(4, 0), nullptr, nullptr, FabricDefaults{}, messages);
  EXPECT_EQ(noNodes.nNodes, 1);
  for (const ModelInputs& in : {moreNodes, noNodes}) EXPECT_EQ(adviceGrid(in).size(), 5u * 32);
}

TEST(TunerModelInputs, NcclConstantsAreUsedWhenPassed) {
  CostModelConstants constants{};
  constants.baseLatencies[static_cast<int>(Algorithm::Ring)][2] = 100.0;
  BuildMessages messages;
  const ModelInputs passed = makeModelInputs(comm(4, 1), &constants, nullptr, FabricDefaults{}, messages);
  const ModelInputs defaults = makeModelInputs(comm(4, 1), nullptr, nullptr, FabricDefaults{}, messages);
  EXPECT_TRUE(passed.constantsFromNccl);
  EXPECT_FALSE(defaults.constantsFromNccl);
  CollQuery q;
  q.nBytes = 8;
  // Only the base latency is left in the passed constants; the defaults add 6 NVLink steps of 3.4 us.
  EXPECT_NEAR(predictTimeUs(passed, q, Algorithm::Ring, Protocol::Simple), 100.0, 0.001);
  EXPECT_NEAR(predictTimeUs(defaults, q, Algorithm::Ring, Protocol::Simple), 8.4 + 6 * 3.4, 0.001);
}

TEST(TunerModelInputs, UnreadableRailMapIsOneErrorNamingItAndTheDefaultsApply) {
  BuildMessages messages;
  const ModelInputs in = fromRailMapFile("no-such-rail-map.json", comm(8, 2), nullptr, FabricDefaults{}, messages);
  ASSERT_EQ(messages.errors.size(), 1u);
  EXPECT_NE(messages.errors[0].find("no-such-rail-map.json"), std::string::npos);
  EXPECT_FALSE(in.fabric.fromRailMap);
  EXPECT_DOUBLE_EQ(in.fabric.netBwPerGpu, 50.0);
  BuildMessages none;
  const ModelInputs noPath = fromRailMapFile("", comm(8, 2), nullptr, FabricDefaults{}, none);
  EXPECT_TRUE(none.errors.empty());
  EXPECT_EQ(adviceGrid(in), adviceGrid(noPath));
}

TEST(TunerModelInputs, DescriptionNamesInputsAndCorrections) {
  BuildMessages messages;
  const ModelInputs in = makeModelInputs(comm(72, 1), nullptr, nullptr, FabricDefaults{}, messages);
  const std::string text = describeModel(in);
  EXPECT_NE(text.find("nRanks 72, nNodes 1, NVLink domains 1 x 72 ranks"), std::string::npos) << text;
  EXPECT_NE(text.find("NVLS efficiency 0.677 (NCCL 0.74), applied"), std::string::npos) << text;
  EXPECT_NE(text.find("defaults, no rail map"), std::string::npos) << text;
}

}  // namespace
}  // namespace railtune::tuner::model

namespace railtune::tuner::model {
namespace {

TEST(TunerModelInputs, ADomainSpansHostsWhenItHasMoreRanksThanTheLargestHostHasGpus) {
  // 8 ranks of one NVL72 under MNNVL on trays of 4 GPUs (the defaults): multi-node NVLink, NVLS corrected.
  BuildMessages messages;
  EXPECT_TRUE(domainSpansHosts(testing::inputs(8, 1)));
  EXPECT_FALSE(domainSpansHosts(testing::inputs(4, 1)));  // one tray
  EXPECT_FALSE(domainSpansHosts(testing::inputs(8, 2)));  // a tray per node, no MNNVL
  // Hosts of 8 GPUs in the rail map (an HGX chassis): 8 ranks fit in one; trays of 4 in the rail map: 8 ranks span two.
  const formats::RailMap chassis = testing::railMap({8, 8}, 8), trays = testing::railMap({4, 4}, 4);
  EXPECT_FALSE(domainSpansHosts(makeModelInputs(testing::comm(8, 1), nullptr, &chassis, FabricDefaults{}, messages)));
  const ModelInputs onTrays = makeModelInputs(testing::comm(8, 1), nullptr, &trays, FabricDefaults{}, messages);
  EXPECT_EQ(onTrays.fabric.largestHostGpus, 4);
  EXPECT_TRUE(domainSpansHosts(onTrays));
}

}  // namespace
}  // namespace railtune::tuner::model
