#include "tuner_plugin/engine.h"
#include "tuner_plugin/tuner_config.h"

#include <gtest/gtest.h>

#include <cstring>
#include <type_traits>

#include "nccl/tuner_common.h"

namespace railtune::tuner {
namespace {

using Table = float[kNumAlgorithms][kNumProtocols];

void fillTable(Table& t) {
  for (int a = 0; a < kNumAlgorithms; ++a) {
    for (int p = 0; p < kNumProtocols; ++p) t[a][p] = 10.0f + static_cast<float>(a * kNumProtocols + p);
  }
  t[NCCL_ALGO_NVLS][NCCL_PROTO_LL] = -1.0f;
}

TEST(TunerEngineTest, EnumsMatchNcclIndices) {
  EXPECT_EQ(static_cast<int>(Algorithm::Tree), NCCL_ALGO_TREE);
  EXPECT_EQ(static_cast<int>(Algorithm::NvlsTree), NCCL_ALGO_NVLS_TREE);
  EXPECT_EQ(static_cast<int>(Algorithm::Pat), NCCL_ALGO_PAT);
  EXPECT_EQ(static_cast<int>(Protocol::LL128), NCCL_PROTO_LL128);
  EXPECT_EQ(static_cast<int>(Collective::AllReduce), ncclFuncAllReduce);
  EXPECT_EQ(kNumAlgorithms, NCCL_NUM_ALGORITHMS);
  EXPECT_EQ(kNumProtocols, NCCL_NUM_PROTOCOLS);
}

TEST(TunerEngineTest, NamesUseNcclSpelling) {
  EXPECT_STREQ(algorithmName(Algorithm::NvlsTree), "NVLSTree");
  EXPECT_STREQ(algorithmName(Algorithm::CollNetDirect), "CollNetDirect");
  EXPECT_STREQ(protocolName(Protocol::Simple), "Simple");
  EXPECT_STREQ(collectiveName(Collective::ReduceScatter), "ReduceScatter");
  EXPECT_STREQ(algorithmName(static_cast<Algorithm>(9)), "unknown");
}

TEST(TunerEngineTest, PreferLowersOnlyEntriesNcclEnabled) {
  Table t;
  fillTable(t);
  CostTableView view(t);
  EXPECT_TRUE(view.prefer(Algorithm::Ring, Protocol::LL128));
  EXPECT_EQ(t[NCCL_ALGO_RING][NCCL_PROTO_LL128], 0.0f);
  EXPECT_FALSE(view.prefer(Algorithm::Nvls, Protocol::LL)) << "a disabled entry must stay disabled";
  EXPECT_EQ(t[NCCL_ALGO_NVLS][NCCL_PROTO_LL], -1.0f);
  view.exclude(Algorithm::Tree, Protocol::Simple);
  EXPECT_LT(t[NCCL_ALGO_TREE][NCCL_PROTO_SIMPLE], 0.0f);
  EXPECT_FALSE(view.available(Algorithm::Tree, Protocol::Simple));
  EXPECT_EQ(view.cost(Algorithm::Pat, Protocol::Simple), t[NCCL_ALGO_PAT][NCCL_PROTO_SIMPLE]);
}

TEST(TunerEngineTest, WithoutRulesTheEngineIsPassThroughAndChangesNothing) {
  const Log log("tuner");
  CommInfo comm;
  comm.nRanks = 16;
  comm.nNodes = 2;
  TunerConfig config{};
  config.model = ModelMode::Off;
  std::unique_ptr<Engine> engine = makeEngine(comm, config, nullptr, log);
  ASSERT_NE(engine, nullptr);
  EXPECT_STREQ(engine->name(), "pass-through");

  Table t, before;
  fillTable(t);
  std::memcpy(before, t, sizeof(t));
  CollDecision decision;
  engine->decide(CollQuery{Collective::AllReduce, 1 << 20, 1, false}, CostTableView(t), decision);
  EXPECT_EQ(std::memcmp(before, t, sizeof(t)), 0);
  EXPECT_EQ(decision.nChannels, 0);
  EXPECT_FALSE(engine->chunkSize(ChunkQuery{}).has_value());

  CostModelConstants constants{};
  constants.baseLatencies[1][2] = 8.4;
  engine->tuneConstants(constants);
  EXPECT_EQ(constants.baseLatencies[1][2], 8.4);
}

}  // namespace
}  // namespace railtune::tuner

namespace railtune::tuner {
namespace {

// Architecture rule 2: what an engine decides from is communicator-wide (and the configuration).
// Structured bindings compile only for exactly these members, so a new field (a hostname, a local
// rank, this host's HCAs) breaks this test and has to be argued for here.
TEST(TunerEngineInputs, HoldOnlyCommunicatorWideValues) {
  // abiVersion: the tuner ABI NCCL bound, the same on every rank (NCCL requires one NCCL build per job).
  const auto [commId, nRanks, nNodes, nvl, abiVersion] = CommInfo{};
  static_assert(std::is_same_v<decltype(commId), const std::optional<uint64_t>>);
  static_assert(std::is_same_v<decltype(abiVersion), const int>);
  EXPECT_EQ(abiVersion, 0);
  static_assert(std::is_same_v<decltype(nvl), const std::optional<NvlDomainInfo>>);
  const auto [nDomains, minRanksPerDomain, maxRanksPerDomain] = NvlDomainInfo{};
  const auto [collective, nBytes, numPipeOps, registeredBuffers] = CollQuery{};
  const auto [chunkCollective, chunkBytes, algorithm, protocol, nChannels] = ChunkQuery{};
  EXPECT_EQ(nRanks + nNodes + nBytes + chunkBytes, 0u);
  EXPECT_EQ(nDomains + minRanksPerDomain + maxRanksPerDomain + numPipeOps + nChannels, 1);  // numPipeOps = 1
  EXPECT_FALSE(registeredBuffers);
  EXPECT_EQ(collective, chunkCollective);
  EXPECT_EQ(algorithm, Algorithm::Ring);
  EXPECT_EQ(protocol, Protocol::Simple);
}

}  // namespace
}  // namespace railtune::tuner
