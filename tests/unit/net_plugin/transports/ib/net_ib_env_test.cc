// The verbs transport takes NCCL's variables from the one reading (common/nccl_ib_env.h) and nowhere else: its QP
// options and the QP policy come from that reading, so a value the reader rejects never reaches a QP (NCCL_IB_SL=16
// gives SL 0 in the address vector, checked with ibv_query_qp over the verbs simulator), and
// NCCL_IB_PCI_RELAXED_ORDERING decides IBV_ACCESS_RELAXED_ORDERING on registrations as NCCL's reg.cc does.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "common/nccl_ib_env.h"
#include "common/qp_policy.h"
#include "net_plugin/transports/ib/ib_engine.h"
#include "tests/support/fake_env.h"
#include "tests/unit/net_plugin/transports/ib/sim_engine_pair.h"

namespace railtune::net::ib {
namespace {

using railtune::testing::fakeEnv;
using railtune::testing::fakeEnvVars;

struct Reading {
  ncclib::NcclIbEnv env;
  qp::QpPolicy policy;
};

Reading readWith(std::map<std::string, std::string> vars, const qp::FabricShape& shape = {}) {
  fakeEnvVars() = std::move(vars);
  Reading r;
  r.env = ncclib::readNcclIbEnv(fakeEnv);
  fakeEnvVars().clear();
  r.policy = qp::chooseQpPolicy(shape, r.env);
  return r;
}

TEST(NetIbEnv, QpOptionsAreNcclsDefaultsWhenNothingIsSet) {
  const Reading r = readWith({});
  const QpOptions o = qpOptionsFrom(r.env, r.policy);
  EXPECT_EQ(o.timeout, 20);
  EXPECT_EQ(o.retryCnt, 7);
  EXPECT_EQ(o.pkey, 0);
  EXPECT_EQ(o.sl, -1);
  EXPECT_EQ(o.tc, -1);
  EXPECT_EQ(o.fifoTc, -1);
  EXPECT_FALSE(o.useInline);
}

TEST(NetIbEnv, QpOptionsTakeValidValues) {
  const Reading r = readWith({{"NCCL_IB_TIMEOUT", "14"},
                              {"NCCL_IB_RETRY_CNT", "3"},
                              {"NCCL_IB_PKEY", "2"},
                              {"NCCL_IB_SL", "5"},
                              {"NCCL_IB_TC", "106"},
                              {"NCCL_IB_FIFO_TC", "96"},
                              {"NCCL_IB_USE_INLINE", "1"}});
  EXPECT_TRUE(r.env.warnings.empty());
  const QpOptions o = qpOptionsFrom(r.env, r.policy);
  EXPECT_EQ(o.timeout, 14);
  EXPECT_EQ(o.retryCnt, 3);
  EXPECT_EQ(o.pkey, 2);
  EXPECT_EQ(o.sl, 5);
  EXPECT_EQ(o.tc, 106);
  EXPECT_EQ(o.fifoTc, 96);
  EXPECT_TRUE(o.useInline);
}

TEST(NetIbEnv, RejectedValuesNeverReachTheQpOptions) {
  const Reading r = readWith({{"NCCL_IB_SL", "16"},
                              {"NCCL_IB_TC", "256"},
                              {"NCCL_IB_TIMEOUT", "99"},
                              {"NCCL_IB_RETRY_CNT", "8"},
                              {"NCCL_IB_PKEY", "-1"},
                              {"NCCL_IB_USE_INLINE", "2"}});
  EXPECT_EQ(r.env.warnings.size(), 6u);
  EXPECT_TRUE(r.policy.warnings.empty()) << "the reader warns once; the policy does not repeat it";
  const QpOptions o = qpOptionsFrom(r.env, r.policy);
  EXPECT_EQ(o.sl, -1);  // the comm's traffic class, else 0: what NCCL does with NCCL_IB_SL unset
  EXPECT_EQ(o.tc, -1);
  EXPECT_EQ(o.timeout, 20);
  EXPECT_EQ(o.retryCnt, 7);
  EXPECT_EQ(o.pkey, 0);
  EXPECT_FALSE(o.useInline);
}

TEST(NetIbEnv, ARejectedServiceLevelLeavesTheFabricsOne) {
  qp::FabricShape shape;
  shape.serviceLevel = 3;
  const Reading r = readWith({{"NCCL_IB_SL", "16"}}, shape);
  EXPECT_EQ(qpOptionsFrom(r.env, r.policy).sl, 3);
  const Reading set = readWith({{"NCCL_IB_SL", "1"}}, shape);
  EXPECT_EQ(qpOptionsFrom(set.env, set.policy).sl, 1);  // the user's wins over the fabric's
}

TEST(NetIbEnv, TheConnectionsQpLayoutIsThePolicysNumbers) {
  qp::FabricShape roce;
  roce.linkLayer = qp::LinkLayer::Ethernet;
  const Reading r = readWith({{"NCCL_IB_QPS_PER_CONNECTION", "6"}, {"NCCL_IB_AR_THRESHOLD", "65536"}}, roce);
  const QpLayout layout = qpLayoutOf(r.policy);
  EXPECT_EQ(layout.qpsPerConnection, 6);
  EXPECT_EQ(layout.qpsPerConnection, r.policy.qpsPerConnection);
  EXPECT_EQ(layout.splitDataOnQps, r.policy.splitDataOnQps);
  EXPECT_EQ(layout.splitMinBytes, r.policy.splitMinBytes);
  EXPECT_EQ(layout.adaptiveRouting, r.policy.adaptiveRouting);
  EXPECT_EQ(layout.arThresholdBytes, 65536u);
  // A layout nobody filled in is what the policy gives by default: one QP, no split, NCCL's adaptive routing.
  const QpLayout unset;
  const qp::QpPolicy defaults;
  EXPECT_EQ(unset.qpsPerConnection, defaults.qpsPerConnection);
  EXPECT_EQ(unset.splitDataOnQps, defaults.splitDataOnQps);
  EXPECT_EQ(unset.adaptiveRouting, defaults.adaptiveRouting);
  EXPECT_EQ(unset.arThresholdBytes, defaults.arThresholdBytes);
}

TEST(NetIbEnv, AdaptiveRoutingAndItsThresholdReachTheConnectionOptions) {
  qp::FabricShape roce;
  roce.linkLayer = qp::LinkLayer::Ethernet;
  Reading r = readWith({}, roce);
  EXPECT_FALSE(r.policy.adaptiveRouting);  // NCCL's RoCE default (init.cc:441)
  EXPECT_EQ(r.policy.arThresholdBytes, 8192u);
  r = readWith({});
  EXPECT_TRUE(r.policy.adaptiveRouting);  // NCCL's InfiniBand default
  r = readWith({{"NCCL_IB_ADAPTIVE_ROUTING", "1"}, {"NCCL_IB_AR_THRESHOLD", "65536"}}, roce);
  EXPECT_TRUE(r.policy.adaptiveRouting);
  EXPECT_EQ(r.policy.arThresholdBytes, 65536u);
  r = readWith({{"NCCL_IB_ADAPTIVE_ROUTING", "-2"}, {"NCCL_IB_AR_THRESHOLD", "-2"}});  // NCCL's "unset"
  EXPECT_TRUE(r.policy.adaptiveRouting);
  EXPECT_EQ(r.policy.arThresholdBytes, 8192u);
  EXPECT_TRUE(r.env.warnings.empty());
}

// A verbs table whose registrations record the access flags they were asked for.
struct RecordedRegistration {
  int calls = 0;
  unsigned access = 0;
  bool iova2 = false;
};
RecordedRegistration gRecorded;
IbvMr gMr{};

IbvMr* recordRegMr(IbvPd*, void*, size_t, int access) {
  ++gRecorded.calls;
  gRecorded.access = static_cast<unsigned>(access);
  gRecorded.iova2 = false;
  return &gMr;
}
IbvMr* recordRegMrIova2(IbvPd*, void*, size_t, uint64_t, unsigned access) {
  ++gRecorded.calls;
  gRecorded.access = access;
  gRecorded.iova2 = true;
  return &gMr;
}
int recordDeregMr(IbvMr*) {
  return 0;
}

RecordedRegistration registerWith(const char* mode, bool haveIova2) {
  VerbsTable table;
  table.regMr = recordRegMr;
  table.deregMr = recordDeregMr;
  if (haveIova2) table.regMrIova2 = recordRegMrIova2;
  fakeEnvVars().clear();
  if (mode != nullptr) fakeEnvVars()["NCCL_IB_PCI_RELAXED_ORDERING"] = mode;
  const ncclib::NcclIbEnv env = ncclib::readNcclIbEnv(fakeEnv);
  fakeEnvVars().clear();
  gRecorded = {};
  MrCache cache(table, nullptr, ncclib::relaxedOrderingEnabled(env, table.regMrIova2 != nullptr));
  std::vector<char> buffer(100);
  cache.release(cache.acquire(buffer.data(), buffer.size()));
  return gRecorded;
}

TEST(NetIbEnv, RelaxedOrderingFlagFollowsNcclIbPciRelaxedOrdering) {
  for (const char* mode : {static_cast<const char*>(nullptr), "1", "2"}) {
    const RecordedRegistration on = registerWith(mode, true);
    EXPECT_EQ(on.calls, 1);
    EXPECT_TRUE(on.iova2) << (mode ? mode : "unset");
    EXPECT_EQ(on.access, static_cast<unsigned>(kRegistrationAccess | kIbvAccessRelaxedOrdering))
        << (mode ? mode : "unset");
  }
  const RecordedRegistration off = registerWith("0", true);
  EXPECT_FALSE(off.iova2);
  EXPECT_EQ(off.access, static_cast<unsigned>(kRegistrationAccess));
  const RecordedRegistration old = registerWith("1", false);  // no IBVERBS_1.8: NCCL does without (init.cc:146-149)
  EXPECT_FALSE(old.iova2);
  EXPECT_EQ(old.access, static_cast<unsigned>(kRegistrationAccess));
}

// Over the simulator: what the transport hands ibv_modify_qp, read back with ibv_query_qp.
class NetIbEnvOverSimulator : public ::testing::Test {
 protected:
  // Connects one send and one receive comm with the options NCCL's variables `vars` give, and reads back the
  // attributes of the first QP of each.
  void connectWith(std::map<std::string, std::string> vars) {
    testing::useSimulatedHost();
    const Reading r = readWith(std::move(vars));
    LoadedVerbs verbs = loadVerbs({VERBS_SIM_LIBRARY});
    ASSERT_TRUE(verbs.ok()) << verbs.reason;
    query_ = loadVerbs({VERBS_SIM_LIBRARY});
    ASSERT_TRUE(query_.ok());
    IbEngineOptions options;
    options.connection.layout = qpLayoutOf(r.policy);
    options.connection.qp = qpOptionsFrom(r.env, r.policy);
    testing::EnginePair pair = testing::connectedPair(std::move(verbs), options);
    readBack(pair.sendComm().set.qps[0], sender_);
    readBack(pair.recvComm().set.qps[0], receiver_);
    pair.close();
    unloadVerbs(query_);
  }

  void readBack(IbvQp* qp, IbvQpAttr& attr) {
    IbvQpInitAttr init{};
    ASSERT_EQ(query_.table.queryQp(qp, &attr, kIbvQpAv | kIbvQpTimeout | kIbvQpRetryCnt, &init), 0);
  }

  LoadedVerbs query_;
  IbvQpAttr sender_{}, receiver_{};
};

TEST_F(NetIbEnvOverSimulator, AnOutOfRangeServiceLevelAndTimeoutNeverReachTheQps) {
  connectWith({{"NCCL_IB_SL", "16"}, {"NCCL_IB_TIMEOUT", "99"}, {"NCCL_IB_RETRY_CNT", "9"}});
  EXPECT_EQ(sender_.ahAttr.sl, 0);  // NCCL's unset SL: the comm's traffic class (none), else 0
  EXPECT_EQ(receiver_.ahAttr.sl, 0);
  EXPECT_EQ(sender_.timeout, 20);
  EXPECT_EQ(receiver_.timeout, 20);
  EXPECT_EQ(sender_.retryCnt, 7);
}

TEST_F(NetIbEnvOverSimulator, ValidValuesReachTheQpsOfBothEnds) {
  connectWith({{"NCCL_IB_SL", "5"}, {"NCCL_IB_TIMEOUT", "14"}, {"NCCL_IB_RETRY_CNT", "3"}});
  EXPECT_EQ(sender_.ahAttr.sl, 5);
  EXPECT_EQ(receiver_.ahAttr.sl, 5);  // the receiver takes the sender's (connect.cc:1249)
  EXPECT_EQ(sender_.timeout, 14);
  EXPECT_EQ(receiver_.timeout, 14);
  EXPECT_EQ(sender_.retryCnt, 3);
}

}  // namespace
}  // namespace railtune::net::ib
