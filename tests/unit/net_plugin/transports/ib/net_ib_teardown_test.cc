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

namespace railtune::net::ib {
namespace {

using Clock = std::chrono::steady_clock;

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
    setenv("RAILTUNE_VERBS_SIM_DIR", simDir().c_str(), 1);
    setenv("RAILTUNE_VERBS_SIM_FABRIC", "gb300", 1);
    setenv("RAILTUNE_VERBS_SIM_HOST", "host0", 1);
    IbTransportSetup setup;
    setup.verbs = loadVerbs({VERBS_SIM_LIBRARY});
    ASSERT_TRUE(setup.verbs.ok()) << setup.verbs.reason;
    realDestroyQp = setup.verbs.table.destroyQp;
    setup.verbs.table.destroyQp = destroyQpThatReportsBusy;
    refuseDestroy = false;
    setup.options.connection.policy.qpsPerConnection = GetParam().qps;
    setup.options.connection.policy.splitDataOnQps = GetParam().qps > 1;
    setup.options.peerMemory = GetParam().flush;  // GPU memory reachable: the receiver makes its flush QP
    setup.options.note = [this](bool warn, const std::string& line) {
      if (warn) warnings_.push_back(line);
    };
    IbDevice device{"mlx5_0", 1, "127.0.0.1", "", 0, -1, std::vector<std::byte>(kPreambleBytes)};
    engine_ = std::make_unique<IbEngine>(std::move(setup.verbs), std::vector<IbDevice>{device}, setup.options);
    std::array<std::byte, kHandleBytes> handle{};
    listen_ = engine_->listen(0, CommConfig{}, handle);
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    while ((send_ == nullptr || recv_ == nullptr) && Clock::now() < deadline) {
      if (send_ == nullptr) send_ = engine_->connect(0, CommConfig{}, handle);
      if (recv_ == nullptr) recv_ = engine_->accept(listen_);
    }
    ASSERT_NE(send_, nullptr);
    ASSERT_NE(recv_, nullptr);
  }
  void TearDown() override {
    refuseDestroy = false;
    if (!engine_) return;
    if (send_ != nullptr && !sendClosed_) engine_->closeSend(send_);
    if (recv_ != nullptr && !recvClosed_) engine_->closeRecv(recv_);
    engine_->closeListen(listen_);
    engine_.reset();
  }
  // One per process: the simulator reads RAILTUNE_VERBS_SIM_DIR once.
  static std::string simDir() {
    static char dir[] = "/tmp/railtune-ib-edges-XXXXXX";
    static const bool made = [] {
      if (mkdtemp(dir) == nullptr) return false;
      std::atexit([] {
        std::error_code ignored;
        std::filesystem::remove_all(dir, ignored);
      });
      return true;
    }();
    return made ? dir : "";
  }
  // The send and receive depths of a QP as the library created it.
  int depthOf(IbvQp* qp) {
    IbvQpAttr attr{};
    IbvQpInitAttr init{};
    EXPECT_EQ(verbsOf().queryQp(qp, &attr, kIbvQpState, &init), 0);
    return static_cast<int>(init.cap.maxSendWr + init.cap.maxRecvWr);
  }
  const VerbsTable& verbsOf() { return table_; }
  IbSendComm& sendComm() { return *static_cast<IbSendComm*>(reinterpret_cast<IbCommBase*>(send_)->object); }
  IbRecvComm& recvComm() { return *static_cast<IbRecvComm*>(reinterpret_cast<IbCommBase*>(recv_)->object); }

  std::unique_ptr<IbEngine> engine_;
  VerbsTable table_ = loadVerbs({VERBS_SIM_LIBRARY}).table;  // the same library, for ibv_query_qp
  ListenComm* listen_ = nullptr;
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
