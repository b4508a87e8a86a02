// NCCL's IB variables read by one rule (common/nccl_ib_env.h): every variable at NCCL's default, set to a valid
// value, at each boundary, out of range and malformed, each bad value one warning naming the variable, the value
// and the value used.
#include "common/nccl_ib_env.h"

#include <gtest/gtest.h>

#include <climits>
#include <string>

#include "tests/support/fake_env.h"

namespace railtune::ncclib {
namespace {

using railtune::testing::fakeEnv;
using railtune::testing::fakeEnvVars;

class NcclIbEnvTest : public ::testing::Test {
 protected:
  void SetUp() override { fakeEnvVars().clear(); }
  void TearDown() override { fakeEnvVars().clear(); }

  static NcclIbEnv readWith(const std::string& name, const std::string& value) {
    fakeEnvVars().clear();
    fakeEnvVars()[name] = value;
    return readNcclIbEnv(fakeEnv);
  }
};

// The field of NcclIbEnv a variable fills.
const Setting& field(const NcclIbEnv& env, const std::string& name) {
  static const std::pair<const char*, Setting NcclIbEnv::*> fields[] = {
      {"NCCL_IB_QPS_PER_CONNECTION", &NcclIbEnv::qpsPerConnection},
      {"NCCL_IB_SPLIT_DATA_ON_QPS", &NcclIbEnv::splitDataOnQps},
      {"NCCL_IB_ADAPTIVE_ROUTING", &NcclIbEnv::adaptiveRouting},
      {"NCCL_IB_AR_THRESHOLD", &NcclIbEnv::arThreshold},
      {"NCCL_IB_GID_INDEX", &NcclIbEnv::gidIndex},
      {"NCCL_IB_ROCE_VERSION_NUM", &NcclIbEnv::roceVersion},
      {"NCCL_IB_ROUTABLE_FLID_GID_INDEX", &NcclIbEnv::routableFlidGidIndex},
      {"NCCL_IB_TC", &NcclIbEnv::trafficClass},
      {"NCCL_IB_FIFO_TC", &NcclIbEnv::fifoTrafficClass},
      {"NCCL_IB_SL", &NcclIbEnv::serviceLevel},
      {"NCCL_IB_TIMEOUT", &NcclIbEnv::timeout},
      {"NCCL_IB_RETRY_CNT", &NcclIbEnv::retryCount},
      {"NCCL_IB_PKEY", &NcclIbEnv::pkeyIndex},
      {"NCCL_IB_USE_INLINE", &NcclIbEnv::useInline},
      {"NCCL_IB_PCI_RELAXED_ORDERING", &NcclIbEnv::pciRelaxedOrdering},
      {"NCCL_GDR_FLUSH_DISABLE", &NcclIbEnv::gdrFlushDisable},
      {"NCCL_IB_RESILIENCY_PORT_FAILOVER", &NcclIbEnv::resiliencyPortFailover},
  };
  for (const auto& [variable, member] : fields)
    if (name == variable) return env.*member;
  ADD_FAILURE() << "no field for " << name;
  static const Setting none{};
  return none;
}

// The value used when a variable is unset: NCCL's default, except the AR threshold's -2, which is 8192.
int64_t usedWhenUnset(const IntVariable& v) {
  return std::string(v.name) == "NCCL_IB_AR_THRESHOLD" ? kNcclArThresholdBytes : v.ncclDefault;
}

TEST_F(NcclIbEnvTest, EveryVariableHasNcclsDefaultWhenUnsetOrEmpty) {
  EXPECT_EQ(intVariables().size(), 17u);
  for (const NcclIbEnv& env : {readNcclIbEnv(nullptr), readNcclIbEnv(fakeEnv)}) {
    EXPECT_TRUE(env.warnings.empty());
    for (const IntVariable& v : intVariables()) {
      EXPECT_EQ(field(env, v.name).value, usedWhenUnset(v)) << v.name;
      EXPECT_FALSE(field(env, v.name).set) << v.name;
    }
    EXPECT_FALSE(env.railtuneQps.set);
    EXPECT_FALSE(env.addressFamilyIpv6);
    EXPECT_EQ(env.addressRange, "");
  }
  for (const IntVariable& v : intVariables()) {
    const NcclIbEnv empty = readWith(v.name, "");  // NCCL: an empty value is unset (param.cc:93)
    EXPECT_EQ(field(empty, v.name).value, usedWhenUnset(v)) << v.name;
    EXPECT_TRUE(empty.warnings.empty()) << v.name;
  }
}

TEST_F(NcclIbEnvTest, NcclsDefaultsAreNcclsLines) {
  // NCCL v2.30.7's NCCL_PARAM defaults (connect.cc:12-21, :60, :1354; common.cc:22; init.cc:11-12; p2p.cc:13).
  const std::pair<const char*, int64_t> defaults[] = {{"NCCL_IB_QPS_PER_CONNECTION", 1},
                                                      {"NCCL_IB_SPLIT_DATA_ON_QPS", 0},
                                                      {"NCCL_IB_ADAPTIVE_ROUTING", -2},
                                                      {"NCCL_IB_AR_THRESHOLD", -2},
                                                      {"NCCL_IB_GID_INDEX", -1},
                                                      {"NCCL_IB_ROCE_VERSION_NUM", 2},
                                                      {"NCCL_IB_ROUTABLE_FLID_GID_INDEX", 1},
                                                      {"NCCL_IB_TC", -1},
                                                      {"NCCL_IB_FIFO_TC", -1},
                                                      {"NCCL_IB_SL", -1},
                                                      {"NCCL_IB_TIMEOUT", 20},
                                                      {"NCCL_IB_RETRY_CNT", 7},
                                                      {"NCCL_IB_PKEY", 0},
                                                      {"NCCL_IB_USE_INLINE", 0},
                                                      {"NCCL_IB_PCI_RELAXED_ORDERING", 2},
                                                      {"NCCL_GDR_FLUSH_DISABLE", 0}};
  for (const auto& [name, value] : defaults) {
    bool found = false;
    for (const IntVariable& v : intVariables()) {
      if (std::string(v.name) != name) continue;
      found = true;
      EXPECT_EQ(v.ncclDefault, value) << name;
    }
    EXPECT_TRUE(found) << name;
  }
}

TEST_F(NcclIbEnvTest, EachBoundaryIsAcceptedAsSet) {
  for (const IntVariable& v : intVariables()) {
    for (const int64_t edge : {v.low, v.high}) {
      const NcclIbEnv env = readWith(v.name, std::to_string(edge));
      EXPECT_TRUE(env.warnings.empty()) << v.name << "=" << edge << ": " << env.warnings.front();
      EXPECT_EQ(field(env, v.name).value, edge) << v.name;
      EXPECT_TRUE(field(env, v.name).set) << v.name;
    }
  }
}

TEST_F(NcclIbEnvTest, NcclsUnsetSpellingIsAcceptedAsUnset) {
  for (const IntVariable& v : intVariables()) {
    if (!v.hasUnsetValue) continue;
    const NcclIbEnv env = readWith(v.name, std::to_string(v.ncclDefault));
    EXPECT_TRUE(env.warnings.empty()) << v.name;
    EXPECT_FALSE(field(env, v.name).set) << v.name;
    EXPECT_EQ(field(env, v.name).value, usedWhenUnset(v)) << v.name;
  }
}

TEST_F(NcclIbEnvTest, JustOutsideEitherEndIsOneWarningAndTheDefault) {
  for (const IntVariable& v : intVariables()) {
    std::vector<int64_t> outside = {v.low - 1};
    if (v.hasUnsetValue && v.low - 1 == v.ncclDefault) outside = {v.ncclDefault - 1};
    if (v.high != INT64_MAX) outside.push_back(v.high + 1);
    for (const int64_t bad : outside) {
      const NcclIbEnv env = readWith(v.name, std::to_string(bad));
      ASSERT_EQ(env.warnings.size(), 1u) << v.name << "=" << bad;
      const std::string& w = env.warnings.front();
      EXPECT_EQ(w.rfind(std::string(v.name) + "='" + std::to_string(bad) + "' is outside ", 0), 0u) << w;
      EXPECT_NE(w.find(std::string("railtune uses ") + v.whenUnset + ", as if unset"), std::string::npos) << w;
      EXPECT_EQ(field(env, v.name).value, usedWhenUnset(v)) << v.name;
      EXPECT_FALSE(field(env, v.name).set) << v.name;
    }
  }
}

TEST_F(NcclIbEnvTest, ServiceLevelSixteenIsTheIssuesExample) {
  const NcclIbEnv env = readWith("NCCL_IB_SL", "16");
  ASSERT_EQ(env.warnings.size(), 1u);
  EXPECT_EQ(env.warnings.front(),
            "NCCL_IB_SL='16' is outside -1 or 0..15 (the 4-bit IB service level; -1 is NCCL's default, the "
            "communicator's traffic class, else 0); railtune uses the QP policy's choice (NCCL's default: -1, the "
            "communicator's traffic class, else 0), as if unset");
  EXPECT_EQ(env.serviceLevel.value, -1);
  EXPECT_FALSE(env.serviceLevel.set);
}

TEST_F(NcclIbEnvTest, TimeoutNinetyNineIsNoLongerReplacedSilently) {
  const NcclIbEnv env = readWith("NCCL_IB_TIMEOUT", "99");
  ASSERT_EQ(env.warnings.size(), 1u);
  EXPECT_EQ(env.warnings.front(),
            "NCCL_IB_TIMEOUT='99' is outside 0..31 (the 5-bit IB local ACK timeout, 4.096 us x 2^value per try (0: "
            "wait forever)); railtune uses NCCL's default 20 (4.096 us x 2^20, about 4.3 s per try), as if unset");
  EXPECT_EQ(env.timeout.value, 20);
}

TEST_F(NcclIbEnvTest, MalformedValuesSayWhatNcclWouldReadAndUseTheDefault) {
  NcclIbEnv env = readWith("NCCL_IB_RETRY_CNT", "4x");
  ASSERT_EQ(env.warnings.size(), 1u);
  EXPECT_EQ(
      env.warnings.front(),
      "NCCL_IB_RETRY_CNT='4x' is not an integer (NCCL would read 4); railtune uses NCCL's default 7, as if unset");
  EXPECT_EQ(env.retryCount.value, 7);
  env = readWith("NCCL_IB_QPS_PER_CONNECTION", "four");
  ASSERT_EQ(env.warnings.size(), 1u);
  EXPECT_EQ(env.warnings.front(),
            "NCCL_IB_QPS_PER_CONNECTION='four' is not an integer (NCCL would read 0); railtune uses the QP policy's "
            "choice (NCCL's default: 1), as if unset");
  EXPECT_FALSE(env.qpsPerConnection.set);
  env = readWith("NCCL_IB_AR_THRESHOLD", "99999999999999999999");
  ASSERT_EQ(env.warnings.size(), 1u);
  EXPECT_NE(env.warnings.front().find("(NCCL would fall back to its default -2)"), std::string::npos);
  EXPECT_EQ(env.arThreshold.value, kNcclArThresholdBytes);
  env = readWith("NCCL_IB_TC", " ");  // not empty: NCCL reads 0
  ASSERT_EQ(env.warnings.size(), 1u);
  EXPECT_NE(env.warnings.front().find("NCCL_IB_TC=' ' is not an integer (NCCL would read 0)"), std::string::npos);
}

TEST_F(NcclIbEnvTest, NumbersAreReadAsNcclsStrtollBaseZero) {
  EXPECT_EQ(readWith("NCCL_IB_TC", "0x68").trafficClass.value, 104);
  EXPECT_EQ(readWith("NCCL_IB_TC", "010").trafficClass.value, 8);  // octal, as strtoll base 0
  EXPECT_EQ(readWith("NCCL_IB_AR_THRESHOLD", "1048576").arThreshold.value, 1048576);
  const NcclIbEnv valid = readWith("NCCL_IB_SL", "5");
  EXPECT_EQ(valid.serviceLevel.value, 5);
  EXPECT_TRUE(valid.serviceLevel.set);
  EXPECT_TRUE(valid.warnings.empty());
}

TEST_F(NcclIbEnvTest, WarningsComeOnePerBadValueInTableOrder) {
  fakeEnvVars() = {
      {"NCCL_IB_SL", "16"}, {"NCCL_IB_TIMEOUT", "99"}, {"NCCL_IB_QPS_PER_CONNECTION", "0"}, {"NCCL_IB_TC", "96"}};
  const NcclIbEnv env = readNcclIbEnv(fakeEnv);
  ASSERT_EQ(env.warnings.size(), 3u);
  EXPECT_EQ(env.warnings[0].rfind("NCCL_IB_QPS_PER_CONNECTION='0'", 0), 0u);
  EXPECT_EQ(env.warnings[1].rfind("NCCL_IB_SL='16'", 0), 0u);
  EXPECT_EQ(env.warnings[2].rfind("NCCL_IB_TIMEOUT='99'", 0), 0u);
  EXPECT_EQ(env.trafficClass.value, 96);
}

TEST_F(NcclIbEnvTest, RailtuneQpsFollowsRailtunesRules) {
  NcclIbEnv env = readWith("RAILTUNE_NET_QPS", "8");
  EXPECT_EQ(env.railtuneQps.value, 8);
  EXPECT_TRUE(env.railtuneQps.set);
  env = readWith("RAILTUNE_NET_QPS", "0");
  EXPECT_FALSE(env.railtuneQps.set);
  EXPECT_TRUE(env.warnings.empty());
  env = readWith("RAILTUNE_NET_QPS", "200");
  ASSERT_EQ(env.warnings.size(), 1u);
  EXPECT_EQ(env.warnings.front(),
            "RAILTUNE_NET_QPS='200': outside 0..128; railtune uses the QP policy's choice, as if unset");
  EXPECT_FALSE(env.railtuneQps.set);
}

TEST_F(NcclIbEnvTest, AddressFamilyAndRangeAsNccl) {
  NcclIbEnv env = readWith("NCCL_IB_ADDR_FAMILY", "AF_INET6");
  EXPECT_TRUE(env.addressFamilyIpv6);
  env = readWith("NCCL_IB_ADDR_FAMILY", "inet6");
  EXPECT_FALSE(env.addressFamilyIpv6);
  ASSERT_EQ(env.warnings.size(), 1u);
  EXPECT_EQ(env.warnings.front(),
            "NCCL_IB_ADDR_FAMILY='inet6' is neither AF_INET nor AF_INET6; railtune uses AF_INET, as NCCL does "
            "(connect.cc:110-114)");
  EXPECT_EQ(readWith("NCCL_IB_ADDR_RANGE", "fd00::/8").addressRange, "fd00::/8");
}

TEST_F(NcclIbEnvTest, RelaxedOrderingAsNcclsCapabilityCheck) {
  // init.cc:142-150: modes 1 and 2 use it where ibv_reg_mr_iova2 resolves; 0 never.
  EXPECT_TRUE(relaxedOrderingEnabled(readNcclIbEnv(nullptr), true));    // default 2
  EXPECT_FALSE(relaxedOrderingEnabled(readNcclIbEnv(nullptr), false));  // no IBVERBS_1.8
  EXPECT_FALSE(relaxedOrderingEnabled(readWith("NCCL_IB_PCI_RELAXED_ORDERING", "0"), true));
  EXPECT_TRUE(relaxedOrderingEnabled(readWith("NCCL_IB_PCI_RELAXED_ORDERING", "1"), true));
  EXPECT_FALSE(relaxedOrderingEnabled(readWith("NCCL_IB_PCI_RELAXED_ORDERING", "1"), false));
  EXPECT_TRUE(relaxedOrderingEnabled(readWith("NCCL_IB_PCI_RELAXED_ORDERING", "2"), true));
  const NcclIbEnv bad = readWith("NCCL_IB_PCI_RELAXED_ORDERING", "3");
  EXPECT_EQ(bad.warnings.size(), 1u);
  EXPECT_TRUE(relaxedOrderingEnabled(bad, true));  // NCCL's default 2, as if unset
}

TEST_F(NcclIbEnvTest, MarkdownListsEveryVariableWithItsFallback) {
  const std::string md = renderNcclIbMarkdown();
  for (const IntVariable& v : intVariables()) {
    EXPECT_NE(md.find(std::string("| `") + v.name + "` | `" + std::to_string(v.ncclDefault) + "` (`" + v.ncclSource),
              std::string::npos)
        << v.name;
    EXPECT_NE(md.find(v.whenUnset), std::string::npos) << v.name;
  }
}

}  // namespace
}  // namespace railtune::ncclib
