// The env plugin's calls in both behaviours: NCCL's version numbers, v2's logger, getEnv, finalize.
#include "emulator/env_driver.h"
#include "emulator/logger.h"
#include "tests/emulator/test_support.h"

namespace railtune::emu::test {
namespace {

class EnvEchoTest : public BehaviourTest {};
RAILTUNE_BOTH_BEHAVIOURS(EnvEchoTest);

TEST_P(EnvEchoTest, InitGetEnvFinalize) {
  Binding b = loader({{"NCCL_ENV_PLUGIN", "both"}}).openEnv();
  ASSERT_TRUE(b) << joined(b.log);
  resetEcho(b);
  EnvDriver d(b);
  const NcclVersionNumbers v = ncclVersionNumbers(behaviour());
  ASSERT_EQ(d.init(v), ncclSuccess);
  const rtEchoCall* c = findCall(echoOf(b), "env.init");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->version, is230() ? 2 : 1);
  ASSERT_EQ(c->nArgs, is230() ? 5 : 4);
  EXPECT_EQ(c->args[0], 2u);
  EXPECT_EQ(c->args[1], is231() ? 31u : is230() ? 30u : 28u);
  EXPECT_EQ(c->args[2], is231() ? 2u : is230() ? 7u : 9u);
  EXPECT_EQ(c->args[3], bits(v.suffix));
  if (is230()) {
    EXPECT_EQ(c->args[4], bits(reinterpret_cast<void*>(pluginLogger())));
  }
  EXPECT_EQ(d.getEnv("RT_ENV_ECHO"), "echoed");
  EXPECT_FALSE(d.getEnv("NCCL_OTHER"));
  const rtEchoCall* get = findCall(echoOf(b), "env.getEnv", 1);
  ASSERT_NE(get, nullptr);
  EXPECT_NE(get->args[0], 0u);
  EXPECT_EQ(d.finalize(), ncclSuccess);
  EXPECT_EQ(countCalls(echoOf(b), "env.finalize"), 1);
}

}  // namespace
}  // namespace railtune::emu::test
