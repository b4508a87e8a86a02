// The configuration digest (common/config_digest.h): a pure function of bytes and the decision
// environment; what differs per rank by design does not change it.
#include <gtest/gtest.h>

#include <map>

#include "common/config_digest.h"
#include "tests/support/fake_env.h"

namespace railtune {
namespace {

using testing::fakeEnv;
using testing::fakeEnvVars;

TEST(ConfigDigest, EveryPartCounts) {
  const DigestInputs base{"allreduce,0,65536,tree,ll,-1,-1,-1\n", "{\"schema\":\"railtune.rail_map.v1\"}", {}};
  const uint64_t d = configDigest(base);
  EXPECT_EQ(configDigest(base), d);
  DigestInputs other = base;
  other.rules += " ";
  EXPECT_NE(configDigest(other), d);
  other = base;
  other.railMap.clear();
  EXPECT_NE(configDigest(other), d);
  other = base;
  other.environment.emplace_back("NCCL_ALGO", "ring");
  EXPECT_NE(configDigest(other), d);
  other = base;
  other.tunerModel = "{\"schema\":\"railtune.tuner-model/1\"}";  // a fitted model: ranks with different files differ
  EXPECT_NE(configDigest(other), d);
  // Bytes moved from one part to the next are a different configuration.
  EXPECT_NE(configDigest({"ab", "c", {}}), configDigest({"a", "bc", {}}));
}

TEST(ConfigDigest, HexIsSixteenDigits) {
  EXPECT_EQ(digestHex(0x1ULL), "0000000000000001");
  EXPECT_EQ(digestHex(configDigest({})).size(), 16u);
  EXPECT_EQ(digestHex(configDigest({})), "88201fb960ff6465");  // FNV-1a 64 over two zero lengths
}

TEST(ConfigDigest, PerRankVariablesAreNotPartOfIt) {
  fakeEnvVars() = {
      {"NCCL_IB_HCA", "=mlx5_0:1"}, {"LOCAL_RANK", "3"}, {"RAILTUNE_HOST", "tray07"}, {"NCCL_PROTO", "^LL"}};
  const auto env = decisionEnvironment(fakeEnv);
  ASSERT_EQ(env.size(), 1u);
  EXPECT_EQ(env[0].first, "NCCL_PROTO");
  fakeEnvVars()["NCCL_ALGO"] = "";  // set but empty counts as unset, as everywhere in railtune
  EXPECT_EQ(decisionEnvironment(fakeEnv).size(), 1u);
}

}  // namespace
}  // namespace railtune
