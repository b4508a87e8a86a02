#include "common/qp_policy.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "tests/support/fake_env.h"

namespace railtune::qp {
namespace {

using railtune::testing::fakeEnv;
using railtune::testing::fakeEnvVars;

class QpPolicyTest : public ::testing::Test {
 protected:
  void SetUp() override { fakeEnvVars().clear(); }
  void TearDown() override { fakeEnvVars().clear(); }
};

const Decision& decisionFor(const QpPolicy& policy, const std::string& variable) {
  for (const Decision& d : policy.why)
    if (d.variable == variable) return d;
  static const Decision none{"<none>", "", "", false};
  return none;
}

int changedCount(const QpPolicy& policy) {
  int n = 0;
  for (const Decision& d : policy.why) n += d.changed ? 1 : 0;
  return n;
}

FabricShape roce() {
  FabricShape shape;
  shape.linkLayer = LinkLayer::Ethernet;
  shape.rails = 8;
  shape.speedMbps = 400000;
  return shape;
}

TEST_F(QpPolicyTest, InfiniBandKeepsEveryNcclDefault) {
  FabricShape shape;
  shape.rails = 4;
  shape.speedMbps = 800000;
  const QpPolicy policy = chooseQpPolicy(shape, fakeEnv);
  EXPECT_EQ(policy.qpsPerConnection, 1);
  EXPECT_FALSE(policy.splitDataOnQps);
  EXPECT_TRUE(policy.adaptiveRouting);
  EXPECT_EQ(policy.arThresholdBytes, 8192u);
  EXPECT_EQ(policy.gidIndex, -1);
  EXPECT_EQ(policy.trafficClass, -1);
  EXPECT_EQ(policy.serviceLevel, -1);
  EXPECT_EQ(policy.why.size(), 7u);
  EXPECT_EQ(changedCount(policy), 0);
  EXPECT_TRUE(policy.warnings.empty());
  EXPECT_NE(decisionFor(policy, "NCCL_IB_QPS_PER_CONNECTION").source.find("connect.cc:60"), std::string::npos);
  EXPECT_NE(decisionFor(policy, "NCCL_IB_ADAPTIVE_ROUTING").source.find("init.cc:441"), std::string::npos);
}

TEST_F(QpPolicyTest, InfiniBandWithAdaptiveRoutingAndTwoPlanesStaysAtOneQp) {
  FabricShape shape;
  shape.planes = 2;
  shape.adaptiveRouting = true;
  const QpPolicy policy = chooseQpPolicy(shape, fakeEnv);
  EXPECT_EQ(policy.qpsPerConnection, 1);
  EXPECT_TRUE(policy.adaptiveRouting);
  EXPECT_EQ(changedCount(policy), 0);  // AR on is NCCL's own IB default
}

TEST_F(QpPolicyTest, InfiniBandWithoutAdaptiveRoutingKeepsNcclsDefaultForWantOfAMeasurement) {
  FabricShape shape;
  shape.adaptiveRouting = false;
  const QpPolicy policy = chooseQpPolicy(shape, fakeEnv);
  EXPECT_TRUE(policy.adaptiveRouting);
  const Decision& ar = decisionFor(policy, "NCCL_IB_ADAPTIVE_ROUTING");
  EXPECT_FALSE(ar.changed);
  EXPECT_EQ(ar.value, "1");
  EXPECT_NE(ar.source.find("no measurement"), std::string::npos) << ar.source;
  EXPECT_EQ(changedCount(policy), 0);
}

TEST_F(QpPolicyTest, RoceWithEcmpGetsFourQpsRoundRobin) {
  const QpPolicy policy = chooseQpPolicy(roce(), fakeEnv);
  EXPECT_EQ(policy.qpsPerConnection, 4);
  EXPECT_FALSE(policy.splitDataOnQps);
  EXPECT_FALSE(policy.adaptiveRouting);  // NCCL's RoCE default
  const Decision& qps = decisionFor(policy, "NCCL_IB_QPS_PER_CONNECTION");
  EXPECT_TRUE(qps.changed);
  EXPECT_EQ(qps.value, "4");
  EXPECT_NE(qps.source.find("SIGCOMM 2024"), std::string::npos);
  EXPECT_NE(qps.source.find("up to 40%"), std::string::npos);
  EXPECT_FALSE(decisionFor(policy, "NCCL_IB_ADAPTIVE_ROUTING").changed);
  // Split: Meta kept round-robin, issue #1401 wanted split on an unstated fabric; the default is kept, and said so.
  const Decision& split = decisionFor(policy, "NCCL_IB_SPLIT_DATA_ON_QPS");
  EXPECT_EQ(split.value, "0");
  EXPECT_NE(split.source.find("issue #1401"), std::string::npos);
  EXPECT_NE(split.source.find("disagree"), std::string::npos);
  EXPECT_EQ(changedCount(policy), 1);
}

TEST_F(QpPolicyTest, RoceWithoutAdaptiveRoutingAndTwoPlanesGetsFourQps) {
  FabricShape shape = roce();
  shape.planes = 2;
  shape.adaptiveRouting = false;
  const QpPolicy policy = chooseQpPolicy(shape, fakeEnv);
  EXPECT_EQ(policy.qpsPerConnection, 4);  // per port: NCCL multiplies by the merged ports itself
  EXPECT_FALSE(decisionFor(policy, "NCCL_IB_ADAPTIVE_ROUTING").changed);  // off is RoCE's default
}

TEST_F(QpPolicyTest, RoceWithAdaptiveRoutingTakesWhatOciGb300Measured) {
  FabricShape shape = roce();
  shape.adaptiveRouting = true;
  const QpPolicy policy = chooseQpPolicy(shape, fakeEnv);
  EXPECT_EQ(policy.qpsPerConnection, 4);
  EXPECT_TRUE(policy.splitDataOnQps);
  EXPECT_TRUE(policy.adaptiveRouting);
  for (const char* variable : {"NCCL_IB_QPS_PER_CONNECTION", "NCCL_IB_SPLIT_DATA_ON_QPS", "NCCL_IB_ADAPTIVE_ROUTING"}) {
    const Decision& d = decisionFor(policy, variable);
    EXPECT_TRUE(d.changed) << variable;
    EXPECT_NE(d.source.find("cluster-readiness-engine PR #287 measured OCI GB300 (4 x 800 Gb/s RoCE rails"),
              std::string::npos)
        << variable << ": " << d.source;
    EXPECT_NE(d.source.find("about 70%"), std::string::npos) << variable;
    EXPECT_NE(d.source.find("8 QPs did no better than 4"), std::string::npos) << variable;
  }
  EXPECT_EQ(decisionFor(policy, "NCCL_IB_SPLIT_DATA_ON_QPS").value, "1");
  EXPECT_EQ(changedCount(policy), 3);
}

// Every value that tunes the transport either names the measurement it took from or says there is none.
TEST_F(QpPolicyTest, EveryTuningValueNamesAMeasurementOrSaysThereIsNone) {
  std::vector<FabricShape> shapes;
  for (const LinkLayer link : {LinkLayer::InfiniBand, LinkLayer::Ethernet})
    for (const std::optional<bool> ar :
         {std::optional<bool>(), std::optional<bool>(true), std::optional<bool>(false)}) {
      FabricShape shape;
      shape.linkLayer = link;
      shape.adaptiveRouting = ar;
      shapes.push_back(shape);
    }
  for (const FabricShape& shape : shapes) {
    const QpPolicy policy = chooseQpPolicy(shape, nullptr);
    for (const char* variable : {"NCCL_IB_QPS_PER_CONNECTION", "NCCL_IB_SPLIT_DATA_ON_QPS", "NCCL_IB_ADAPTIVE_ROUTING",
                                 "NCCL_IB_AR_THRESHOLD"}) {
      const Decision& d = decisionFor(policy, variable);
      const bool measured = d.source.find("measured") != std::string::npos;
      const bool none =
          d.source.rfind("NCCL's default", 0) == 0 && d.source.find("no measurement") != std::string::npos;
      EXPECT_TRUE(measured || none) << variable << ": " << d.source;
      if (d.changed) {
        EXPECT_TRUE(measured) << variable << ": " << d.source;
      }
    }
  }
}

TEST_F(QpPolicyTest, RoceGidIndexTrafficClassAndServiceLevelFromTheFabric) {
  FabricShape shape = roce();
  shape.gidIndex = 3;
  shape.trafficClass = 106;
  shape.serviceLevel = 3;
  const QpPolicy policy = chooseQpPolicy(shape, fakeEnv);
  EXPECT_EQ(policy.gidIndex, 3);
  EXPECT_EQ(policy.trafficClass, 106);
  EXPECT_EQ(policy.serviceLevel, 3);
  EXPECT_TRUE(decisionFor(policy, "NCCL_IB_GID_INDEX").changed);
  EXPECT_EQ(decisionFor(policy, "NCCL_IB_TC").value, "106");
  EXPECT_EQ(decisionFor(policy, "NCCL_IB_SL").value, "3");
}

TEST_F(QpPolicyTest, InfiniBandIgnoresGidIndexAndTrafficClassButKeepsServiceLevel) {
  FabricShape shape;
  shape.gidIndex = 0;
  shape.trafficClass = 106;
  shape.serviceLevel = 1;
  const QpPolicy policy = chooseQpPolicy(shape, fakeEnv);
  EXPECT_EQ(policy.gidIndex, -1);
  EXPECT_EQ(policy.trafficClass, -1);
  EXPECT_EQ(policy.serviceLevel, 1);
  EXPECT_NE(decisionFor(policy, "NCCL_IB_TC").source.find("RoCE only"), std::string::npos);
}

TEST_F(QpPolicyTest, NullEnvironmentReadsNothing) {
  fakeEnvVars()["RAILTUNE_NET_QPS"] = "8";
  const QpPolicy policy = chooseQpPolicy(roce(), nullptr);
  EXPECT_EQ(policy.qpsPerConnection, 4);
  EXPECT_TRUE(policy.warnings.empty());
}

TEST_F(QpPolicyTest, RailtuneNetQpsOverridesThePolicy) {
  fakeEnvVars()["RAILTUNE_NET_QPS"] = "8";
  const QpPolicy policy = chooseQpPolicy(FabricShape{}, fakeEnv);
  EXPECT_EQ(policy.qpsPerConnection, 8);
  const Decision& qps = decisionFor(policy, "NCCL_IB_QPS_PER_CONNECTION");
  EXPECT_TRUE(qps.changed);
  EXPECT_EQ(qps.source, "RAILTUNE_NET_QPS");
}

TEST_F(QpPolicyTest, RailtuneNetQpsZeroLeavesThePolicy) {
  fakeEnvVars()["RAILTUNE_NET_QPS"] = "0";
  const QpPolicy policy = chooseQpPolicy(roce(), fakeEnv);
  EXPECT_EQ(policy.qpsPerConnection, 4);
  EXPECT_TRUE(policy.warnings.empty());
}

TEST_F(QpPolicyTest, MalformedRailtuneNetQpsIsAWarningAndThePolicyStays) {
  for (const char* bad : {"129", "-1", "four", "2x"}) {
    fakeEnvVars()["RAILTUNE_NET_QPS"] = bad;
    const QpPolicy policy = chooseQpPolicy(roce(), fakeEnv);
    EXPECT_EQ(policy.qpsPerConnection, 4) << bad;
    ASSERT_EQ(policy.warnings.size(), 1u) << bad;
    EXPECT_NE(policy.warnings[0].find("RAILTUNE_NET_QPS='" + std::string(bad) + "'"), std::string::npos);
  }
}

TEST_F(QpPolicyTest, ExplicitNcclVariablesWinForTheirField) {
  fakeEnvVars()["NCCL_IB_QPS_PER_CONNECTION"] = "2";
  fakeEnvVars()["NCCL_IB_SPLIT_DATA_ON_QPS"] = "1";
  fakeEnvVars()["NCCL_IB_ADAPTIVE_ROUTING"] = "1";
  fakeEnvVars()["NCCL_IB_AR_THRESHOLD"] = "0x4000";  // NCCL reads base 0
  fakeEnvVars()["NCCL_IB_GID_INDEX"] = "5";
  fakeEnvVars()["NCCL_IB_TC"] = "41";
  fakeEnvVars()["NCCL_IB_SL"] = "0";
  const QpPolicy policy = chooseQpPolicy(roce(), fakeEnv);
  EXPECT_EQ(policy.qpsPerConnection, 2);
  EXPECT_TRUE(policy.splitDataOnQps);
  EXPECT_TRUE(policy.adaptiveRouting);
  EXPECT_EQ(policy.arThresholdBytes, 16384u);
  EXPECT_EQ(policy.gidIndex, 5);
  EXPECT_EQ(policy.trafficClass, 41);
  EXPECT_EQ(policy.serviceLevel, 0);
  EXPECT_TRUE(policy.warnings.empty());
  for (const Decision& d : policy.why)
    EXPECT_NE(d.source.find("set in the environment (" + d.variable + ")"), std::string::npos) << d.variable;
  EXPECT_TRUE(decisionFor(policy, "NCCL_IB_SL").changed);  // 0 differs from NCCL's unset -1
}

TEST_F(QpPolicyTest, NcclQpsWinsOverRailtuneNetQpsWithAWarning) {
  fakeEnvVars()["RAILTUNE_NET_QPS"] = "8";
  fakeEnvVars()["NCCL_IB_QPS_PER_CONNECTION"] = "2";
  const QpPolicy policy = chooseQpPolicy(roce(), fakeEnv);
  EXPECT_EQ(policy.qpsPerConnection, 2);
  ASSERT_EQ(policy.warnings.size(), 1u);
  EXPECT_NE(policy.warnings[0].find("disagree"), std::string::npos);
}

TEST_F(QpPolicyTest, MalformedNcclVariablesAreWarningsAndThePolicyStays) {
  fakeEnvVars()["NCCL_IB_QPS_PER_CONNECTION"] = "0";
  fakeEnvVars()["NCCL_IB_SPLIT_DATA_ON_QPS"] = "2";
  fakeEnvVars()["NCCL_IB_ADAPTIVE_ROUTING"] = "yes";
  fakeEnvVars()["NCCL_IB_SL"] = "16";
  fakeEnvVars()["NCCL_IB_TC"] = "";  // empty is unset, as for NCCL
  const QpPolicy policy = chooseQpPolicy(roce(), fakeEnv);
  EXPECT_EQ(policy.qpsPerConnection, 4);
  EXPECT_FALSE(policy.splitDataOnQps);
  EXPECT_FALSE(policy.adaptiveRouting);
  EXPECT_EQ(policy.serviceLevel, -1);
  EXPECT_EQ(policy.warnings.size(), 4u);
  EXPECT_NE(describe(policy, false).find("warning: NCCL_IB_SL='16'"), std::string::npos);
}

TEST_F(QpPolicyTest, DescribeListsChangedOrAllDecisions) {
  const QpPolicy policy = chooseQpPolicy(roce(), fakeEnv);
  const std::string changed = describe(policy, true);
  EXPECT_EQ(changed.rfind("NCCL_IB_QPS_PER_CONNECTION=4: RoCE with ECMP", 0), 0u) << changed;
  EXPECT_EQ(changed.find("NCCL_IB_SPLIT"), std::string::npos);
  EXPECT_NE(describe(policy, false).find("NCCL_IB_SPLIT_DATA_ON_QPS=0: NCCL's default (common.cc:22)"),
            std::string::npos);
  fakeEnvVars()["NCCL_IB_SPLIT_DATA_ON_QPS"] = "0";
  EXPECT_NE(
      describe(chooseQpPolicy(roce(), fakeEnv), false).find("NCCL_IB_SPLIT_DATA_ON_QPS=0 (as NCCL's default): set"),
      std::string::npos);
}

TEST_F(QpPolicyTest, ChunkBytesAreCeilingPerQpRoundedTo128) {
  EXPECT_EQ(chunkBytesFor(0, 4), 0u);
  EXPECT_EQ(chunkBytesFor(1, 1), 128u);
  EXPECT_EQ(chunkBytesFor(1, 4), 128u);
  EXPECT_EQ(chunkBytesFor(128, 1), 128u);
  EXPECT_EQ(chunkBytesFor(129, 1), 256u);
  EXPECT_EQ(chunkBytesFor(1000, 4), 256u);  // ceil(1000/4) = 250
  EXPECT_EQ(chunkBytesFor(1000, 7), 256u);  // ceil(1000/7) = 143
  EXPECT_EQ(chunkBytesFor(1 << 20, 4), 262144u);
  EXPECT_EQ(chunkBytesFor(1000, 0), 1024u);              // below 1 counts as 1
  EXPECT_EQ(chunkBytesFor((1u << 20) + 1, 128), 8320u);  // ceil(1048577/128) = 8193 -> 8320
}

TEST_F(QpPolicyTest, WithoutSplitEveryMessageTravelsOnOneQp) {
  QpPolicy policy;
  policy.qpsPerConnection = 4;
  EXPECT_EQ(qpsPerMessage(policy), 1);
  EXPECT_EQ(dataQpsFor(policy, 0), 1);
  EXPECT_EQ(dataQpsFor(policy, 1), 1);
  EXPECT_EQ(dataQpsFor(policy, 1 << 30), 1);
}

TEST_F(QpPolicyTest, SplitSpreadsAsManyQpsAsAlignedChunksFill) {
  QpPolicy policy;
  policy.qpsPerConnection = 4;
  policy.splitDataOnQps = true;
  EXPECT_EQ(qpsPerMessage(policy), 4);
  EXPECT_EQ(dataQpsFor(policy, 0), 1);    // one zero-length WRITE_WITH_IMM
  EXPECT_EQ(dataQpsFor(policy, 1), 1);    // 128-byte chunk: the others get zero length
  EXPECT_EQ(dataQpsFor(policy, 300), 3);  // chunks of 128: 128 + 128 + 44
  EXPECT_EQ(dataQpsFor(policy, 512), 4);
  EXPECT_EQ(dataQpsFor(policy, 1 << 20), 4);
  policy.qpsPerConnection = 7;
  EXPECT_EQ(dataQpsFor(policy, 1000), 4);  // chunks of 256: 256 x 3 + 232, as NCCL's p2p.cc:116
  for (size_t bytes : {1u, 127u, 129u, 1000u, 4097u, 65536u, 1000003u}) {
    const int qps = dataQpsFor(policy, bytes);
    const size_t chunk = chunkBytesFor(bytes, qps);
    EXPECT_GE(chunk * static_cast<size_t>(qps), bytes) << bytes;
    EXPECT_LT(chunk * static_cast<size_t>(qps - 1), bytes) << bytes;         // every data QP carries bytes
    EXPECT_EQ(chunk, chunkBytesFor(bytes, qpsPerMessage(policy))) << bytes;  // same chunks as over all QPs
  }
}

TEST_F(QpPolicyTest, SplitMinBytesKeepsSmallMessagesOnOneQp) {
  QpPolicy policy;
  policy.qpsPerConnection = 8;
  policy.splitDataOnQps = true;
  policy.splitMinBytes = 65536;
  EXPECT_EQ(dataQpsFor(policy, 65535), 1);
  EXPECT_EQ(dataQpsFor(policy, 65536), 8);
  EXPECT_EQ(qpsPerMessage(policy), 8);  // the other 7 still get a zero-length WRITE_WITH_IMM
}

TEST_F(QpPolicyTest, ManyQps) {
  QpPolicy policy;
  policy.qpsPerConnection = 128;
  policy.splitDataOnQps = true;
  EXPECT_EQ(dataQpsFor(policy, 128 * 128), 128);
  EXPECT_EQ(dataQpsFor(policy, 128 * 128 - 1), 128);
  EXPECT_EQ(dataQpsFor(policy, 128 * 127), 127);
  policy.qpsPerConnection = 500;  // out of range: clamped to NCCL's 128
  EXPECT_EQ(qpsPerMessage(policy), 128);
}

// Measured settings (FabricShape::measured, from a railtune.net-env/1 entry) win over the policy's defaults; the
// user's variables win over them.
FabricShape measuredRoce() {
  FabricShape shape = roce();
  shape.measured.qps = 8;
  shape.measured.split = true;
  shape.measured.ar = true;
  shape.measured.arThreshold = 65536;
  shape.measured.source = "measured: net-env.json, allreduce on 16 ranks on 2 nodes, +60% median";
  return shape;
}

TEST_F(QpPolicyTest, MeasuredSettingsWinOverThePolicysDefaults) {
  const QpPolicy policy = chooseQpPolicy(measuredRoce(), fakeEnv);
  EXPECT_EQ(policy.qpsPerConnection, 8);
  EXPECT_TRUE(policy.splitDataOnQps);
  EXPECT_TRUE(policy.adaptiveRouting);
  EXPECT_EQ(policy.arThresholdBytes, 65536u);
  for (const char* name : {"NCCL_IB_QPS_PER_CONNECTION", "NCCL_IB_SPLIT_DATA_ON_QPS", "NCCL_IB_ADAPTIVE_ROUTING",
                           "NCCL_IB_AR_THRESHOLD"}) {
    const Decision& d = decisionFor(policy, name);
    EXPECT_EQ(d.source.rfind("measured: net-env.json", 0), 0u) << name << ": " << d.source;
    EXPECT_TRUE(d.changed) << name;
  }
  // What was not measured keeps the policy's source.
  EXPECT_EQ(decisionFor(policy, "NCCL_IB_GID_INDEX").source.find("measured"), std::string::npos);
  EXPECT_NE(describe(policy, true).find("NCCL_IB_QPS_PER_CONNECTION=8: measured: net-env.json"), std::string::npos);
}

TEST_F(QpPolicyTest, AMeasuredValueEqualToNcclsDefaultIsNotExportedButNamesItsSource) {
  FabricShape shape = roce();  // the policy's RoCE default is 4 QPs; the measurement says 1
  shape.measured.qps = 1;
  shape.measured.source = "measured: net-env.json";
  const QpPolicy policy = chooseQpPolicy(shape, fakeEnv);
  EXPECT_EQ(policy.qpsPerConnection, 1);
  EXPECT_FALSE(decisionFor(policy, "NCCL_IB_QPS_PER_CONNECTION").changed);
  EXPECT_EQ(decisionFor(policy, "NCCL_IB_QPS_PER_CONNECTION").source, "measured: net-env.json");
}

TEST_F(QpPolicyTest, TheUsersVariablesWinOverMeasuredSettings) {
  fakeEnvVars()["NCCL_IB_QPS_PER_CONNECTION"] = "2";
  fakeEnvVars()["NCCL_IB_SPLIT_DATA_ON_QPS"] = "0";
  const QpPolicy policy = chooseQpPolicy(measuredRoce(), fakeEnv);
  EXPECT_EQ(policy.qpsPerConnection, 2);
  EXPECT_FALSE(policy.splitDataOnQps);
  EXPECT_NE(decisionFor(policy, "NCCL_IB_QPS_PER_CONNECTION").source.find("set in the environment"), std::string::npos);
  EXPECT_NE(decisionFor(policy, "NCCL_IB_SPLIT_DATA_ON_QPS").source.find("set in the environment"), std::string::npos);
  // The ones the user left alone stay measured.
  EXPECT_TRUE(policy.adaptiveRouting);
  EXPECT_EQ(decisionFor(policy, "NCCL_IB_ADAPTIVE_ROUTING").source.rfind("measured:", 0), 0u);
}

TEST_F(QpPolicyTest, RailtunesQpVariableWinsOverTheMeasuredCount) {
  fakeEnvVars()["RAILTUNE_NET_QPS"] = "3";
  EXPECT_EQ(chooseQpPolicy(measuredRoce(), fakeEnv).qpsPerConnection, 3);
}

TEST_F(QpPolicyTest, NothingMeasuredLeavesThePolicyAsItWas) {
  FabricShape shape = roce();
  shape.measured.source = "measured: net-env.json";  // a source without values changes nothing
  const QpPolicy measured = chooseQpPolicy(shape, fakeEnv), plain = chooseQpPolicy(roce(), fakeEnv);
  EXPECT_EQ(describe(measured, false), describe(plain, false));
}

}  // namespace
}  // namespace railtune::qp
