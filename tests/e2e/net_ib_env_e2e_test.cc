// NCCL's IB variables through the real net .so (RAILTUNE_NET_TRANSPORT=ib, the verbs simulator): each malformed or
// out-of-range value reaches NCCL's logger as exactly one WARN naming the variable, the value and the value used,
// the plugin still takes the traffic, and NCCL_IB_PCI_RELAXED_ORDERING=0 turns relaxed ordering off as in NCCL.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/e2e/net_ib_harness.h"

namespace railtune::testing::netfault {
namespace {

class NetIbEnvTest : public NetFaultTest {
 protected:
  // The plugin's init with the variables set; its log lines and WARNs.
  void initWith(const std::vector<std::pair<std::string, std::string>>& vars, std::string& lines,
                std::vector<std::string>& warnings) {
    lines.clear();  // takeWarnings appends
    SimFabric fabric(env, SimFabricSetup{});
    for (const auto& [name, value] : vars) env.set(name, value);
    NetEndpoint endpoint(kVersion);
    ASSERT_TRUE(endpoint.bound());
    const ncclResult_t init = endpoint.init();
    warnings = takeWarnings(&lines);
    ASSERT_EQ(init, ncclSuccess) << lines;
    EXPECT_EQ(endpoint.finalize(), ncclSuccess);
    for (const auto& [name, value] : vars) env.unset(name);
  }
};

size_t count(const std::vector<std::string>& warnings, const std::string& text) {
  size_t n = 0;
  for (const std::string& w : warnings) n += w.find(text) != std::string::npos ? 1 : 0;
  return n;
}

TEST_F(NetIbEnvTest, EachBadValueIsOneWarnAndThePluginStillTakesTheTraffic) {
  std::string lines;
  std::vector<std::string> warnings;
  initWith({{"NCCL_IB_SL", "16"}, {"NCCL_IB_TIMEOUT", "99"}, {"NCCL_IB_RETRY_CNT", "x"}}, lines, warnings);
  ASSERT_EQ(warnings.size(), 3u) << lines;
  EXPECT_EQ(count(warnings, "NCCL_IB_SL='16' is outside -1 or 0..15"), 1u) << lines;
  EXPECT_EQ(count(warnings, "railtune uses the QP policy's choice (NCCL's default: -1"), 1u) << lines;
  EXPECT_EQ(count(warnings, "NCCL_IB_TIMEOUT='99' is outside 0..31"), 1u) << lines;
  EXPECT_EQ(count(warnings, "railtune uses NCCL's default 20"), 1u) << lines;
  EXPECT_EQ(count(warnings,
                  "NCCL_IB_RETRY_CNT='x' is not an integer (NCCL would read 0); railtune uses NCCL's "
                  "default 7, as if unset"),
            1u)
      << lines;
  EXPECT_NE(lines.find("QP policy: NCCL_IB_SL=-1"), std::string::npos) << lines;
  EXPECT_NE(lines.find("verbs transport"), std::string::npos) << lines;
}

TEST_F(NetIbEnvTest, RelaxedOrderingIsOnByDefaultAndOffWithZero) {
  std::string lines;
  std::vector<std::string> warnings;
  initWith({}, lines, warnings);
  EXPECT_TRUE(warnings.empty()) << lines;
  EXPECT_NE(lines.find("QPs per connection, relaxed ordering"), std::string::npos) << lines;
  initWith({{"NCCL_IB_PCI_RELAXED_ORDERING", "0"}}, lines, warnings);
  EXPECT_TRUE(warnings.empty()) << lines;
  EXPECT_NE(lines.find("verbs transport"), std::string::npos) << lines;
  EXPECT_EQ(lines.find("relaxed ordering"), std::string::npos) << lines;
}

// NCCL 2.29's port failover needs a connection over several devices; railtune's have one port. Set, it is one
// WARN saying it has no effect, and the transport still carries the traffic; 0 says nothing.
TEST_F(NetIbEnvTest, PortFailoverSetIsOneWarningThatItHasNoEffect) {
  std::string lines;
  std::vector<std::string> warnings;
  initWith({{"NCCL_IB_RESILIENCY_PORT_FAILOVER", "1"}}, lines, warnings);
  ASSERT_EQ(warnings.size(), 1u) << lines;
  EXPECT_EQ(count(warnings, "NCCL_IB_RESILIENCY_PORT_FAILOVER=1 has no effect on railtune's verbs transport"), 1u)
      << lines;
  EXPECT_NE(lines.find("verbs transport"), std::string::npos) << lines;
  initWith({{"NCCL_IB_RESILIENCY_PORT_FAILOVER", "0"}}, lines, warnings);
  EXPECT_TRUE(warnings.empty()) << lines;
}

}  // namespace
}  // namespace railtune::testing::netfault
