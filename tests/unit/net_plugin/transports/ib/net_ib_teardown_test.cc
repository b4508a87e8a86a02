// The verbs transport's connections at their edges, on the strict verbs simulator in this process:
//   - each completion queue holds every completion an error flush can produce: a QP in error completes every
//     outstanding work request, unsignaled ones too, so the CQ must hold the sum of its QPs' queue depths (read
//     back from the simulator with ibv_query_qp), for 1, 4 and 128 QPs, with and without the flush QP;
//   - teardown calls that fail (a destroy the library refuses with EBUSY) are one WARN per close, naming the
//     connection and every call, and the comm is closed all the same;
//   - testing a flush after closeRecv is an error, not a read of a destroyed CQ.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "net_plugin/transports/ib/ib_engine.h"
#include "tests/unit/net_plugin/transports/ib/sim_engine_pair.h"

namespace railtune::net::ib {
namespace {

// The library's destroy_qp, and whether the wrapper below reports EBUSY after calling it.
int (*realDestroyQp)(IbvQp*) = nullptr;
bool refuseDestroy = false;
int destroyQpThatReportsBusy(IbvQp* qp) {
  const int rc = realDestroyQp(qp);
  return refuseDestroy ? EBUSY : rc;
}

struct Param {
  int qps = 1;
  bool flush = false;
};

class NetIbEdges : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    testing::useSimulatedHost();
    LoadedVerbs verbs = loadVerbs({VERBS_SIM_LIBRARY});
    ASSERT_TRUE(verbs.ok()) << verbs.reason;
    realDestroyQp = verbs.table.destroyQp;
    verbs.table.destroyQp = destroyQpThatReportsBusy;
    refuseDestroy = false;
    IbEngineOptions options;
    options.connection.layout.qpsPerConnection = GetParam().qps;
    options.connection.layout.splitDataOnQps = GetParam().qps > 1;
    options.peerMemory = GetParam().flush;  // GPU memory reachable: the receiver makes its flush QP
    options.note = [this](bool warn, const std::string& line) {
      if (warn) warnings_.push_back(line);
    };
    pair_ = testing::connectedPair(std::move(verbs), options);
    engine_ = pair_.engine.get();
    send_ = pair_.send;
    recv_ = pair_.recv;
  }
  void TearDown() override {
    refuseDestroy = false;
    if (sendClosed_) pair_.send = nullptr;
    if (recvClosed_) pair_.recv = nullptr;
    pair_.close();
  }
  // The send and receive depths of a QP as the library created it.
  int depthOf(IbvQp* qp) {
    IbvQpAttr attr{};
    IbvQpInitAttr init{};
    EXPECT_EQ(verbsOf().queryQp(qp, &attr, kIbvQpState, &init), 0);
    return static_cast<int>(init.cap.maxSendWr + init.cap.maxRecvWr);
  }
  const VerbsTable& verbsOf() { return table_; }
  IbSendComm& sendComm() { return pair_.sendComm(); }
  IbRecvComm& recvComm() { return pair_.recvComm(); }

  testing::EnginePair pair_;
  IbEngine* engine_ = nullptr;
  VerbsTable table_ = loadVerbs({VERBS_SIM_LIBRARY}).table;  // the same library, for ibv_query_qp
  SendComm* send_ = nullptr;
  RecvComm* recv_ = nullptr;
  bool sendClosed_ = false, recvClosed_ = false;
  std::vector<std::string> warnings_;
};

TEST_P(NetIbEdges, EachCqHoldsEveryCompletionAnErrorFlushCanProduce) {
  int sendSide = 0;
  for (int q = 0; q < sendComm().set.count; ++q) sendSide += depthOf(sendComm().set.qps[static_cast<size_t>(q)]);
  int recvSide = 0;
  for (int q = 0; q < recvComm().set.count; ++q) recvSide += depthOf(recvComm().set.qps[static_cast<size_t>(q)]);
  if (recvComm().flushQp != nullptr) recvSide += depthOf(recvComm().flushQp);
  EXPECT_EQ(sendComm().set.count, GetParam().qps);
  EXPECT_EQ(recvComm().flushQp != nullptr, GetParam().flush);
  EXPECT_GE(sendComm().set.cq->cqe, sendSide);
  EXPECT_GE(recvComm().set.cq->cqe, recvSide);
}

TEST_P(NetIbEdges, TeardownFailuresAreOneWarningPerCloseAndTheCommIsClosed) {
  refuseDestroy = true;
  engine_->closeSend(send_);
  sendClosed_ = true;
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_NE(warnings_[0].find("closeSend of the connection to"), std::string::npos) << warnings_[0];
  size_t named = 0;
  for (size_t at = warnings_[0].find("ibv_destroy_qp(QP "); at != std::string::npos;
       at = warnings_[0].find("ibv_destroy_qp(QP ", at + 1))
    ++named;
  EXPECT_EQ(named, static_cast<size_t>(GetParam().qps)) << warnings_[0];
  EXPECT_NE(warnings_[0].find(std::strerror(EBUSY)), std::string::npos) << warnings_[0];
  EXPECT_THROW(engine_->isend(send_, nullptr, 0, 0, nullptr, nullptr), NetError) << "the comm is closed";
  refuseDestroy = false;
  engine_->closeRecv(recv_);
  recvClosed_ = true;
  EXPECT_EQ(warnings_.size(), 1u) << "a teardown that succeeds says nothing";
}

TEST_P(NetIbEdges, TestingAFlushAfterCloseRecvIsAnError) {
  std::vector<std::byte> in(4096);
  MemoryRegion* region = engine_->registerMemory(recv_, in.data(), in.size(), MemoryType::Host);
  const RecvBuffer buffer{in.data(), in.size(), 0, region, nullptr};
  Request* flush = engine_->iflush(recv_, std::span<const RecvBuffer>(&buffer, 1));
  ASSERT_NE(flush, nullptr);
  engine_->deregisterMemory(recv_, region);
  engine_->closeRecv(recv_);
  recvClosed_ = true;
  try {
    engine_->test(flush);
    FAIL() << "test of a flush after closeRecv succeeded";
  } catch (const NetError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidUsage);
    EXPECT_NE(std::string(e.what()).find("after closeRecv"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Qps, NetIbEdges,
                         ::testing::Values(Param{1, false}, Param{1, true}, Param{4, true}, Param{128, false},
                                           Param{128, true}),
                         [](const ::testing::TestParamInfo<Param>& param) {
                           return std::to_string(param.param.qps) + "qps" + (param.param.flush ? "_flush" : "");
                         });

}  // namespace
}  // namespace railtune::net::ib
