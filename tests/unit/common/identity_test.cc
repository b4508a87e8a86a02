#include "common/identity.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/support/fake_env.h"

namespace railtune {
namespace {

using testing::fakeEnv;
using testing::fakeEnvVars;

class IdentityTest : public ::testing::Test {
 protected:
  void SetUp() override { fakeEnvVars().clear(); }
  void TearDown() override { fakeEnvVars().clear(); }
};

TEST_F(IdentityTest, HostPrefersRailtuneHostThenNcclHostIdThenHostname) {
  char hostname[256] = {};
  ASSERT_EQ(gethostname(hostname, sizeof(hostname) - 1), 0);
  EXPECT_EQ(resolveIdentity(fakeEnv).host, hostname);
  fakeEnvVars()["NCCL_HOSTID"] = "pod-a";
  EXPECT_EQ(resolveIdentity(fakeEnv).host, "pod-a");
  fakeEnvVars()["RAILTUNE_HOST"] = "tray-3";
  EXPECT_EQ(resolveIdentity(fakeEnv).host, "tray-3");
}

TEST_F(IdentityTest, JobPrefersRailtuneJobIdThenSlurmThenKubernetesThenUnknown) {
  EXPECT_EQ(resolveIdentity(fakeEnv).job, "unknown");
  fakeEnvVars()["RAILTUNE_K8S_JOB"] = "train-llm";
  EXPECT_EQ(resolveIdentity(fakeEnv).job, "train-llm");
  fakeEnvVars()["SLURM_JOB_ID"] = "81234";
  EXPECT_EQ(resolveIdentity(fakeEnv).job, "81234");
  fakeEnvVars()["RAILTUNE_JOB_ID"] = "run-9";
  EXPECT_EQ(resolveIdentity(fakeEnv).job, "run-9");
}

TEST_F(IdentityTest, EmptyVariablesCountAsUnset) {
  fakeEnvVars()["RAILTUNE_HOST"] = "";
  fakeEnvVars()["NCCL_HOSTID"] = "pod-b";
  fakeEnvVars()["RAILTUNE_JOB_ID"] = "";
  fakeEnvVars()["SLURM_JOB_ID"] = "";
  EXPECT_EQ(resolveIdentity(fakeEnv).host, "pod-b");
  EXPECT_EQ(resolveIdentity(fakeEnv).job, "unknown");
}

TEST_F(IdentityTest, PidIsThisProcess) {
  EXPECT_EQ(resolveIdentity(fakeEnv).pid, static_cast<int>(getpid()));
}

}  // namespace
}  // namespace railtune
