// Faults and adversarial delivery: port down (a dead link without ACKs is in verbs_sim_test_clock.cc), a fatal
// QP, completion order per QP when the agent shuffles across QPs, and a WRITE whose bytes land in shuffled
// 64-byte pieces.
#include <arpa/inet.h>

#include <atomic>
#include <cerrno>
#include <map>

#include "tests/emulator/verbs_sim/verbs_sim_test_util.h"

namespace railtune::verbs_sim::test {
namespace {

int stateOf(IbvQp* qp) {
  IbvQpAttr attr{};
  IbvQpInitAttr init{};
  EXPECT_EQ(V().queryQp(qp, &attr, kIbvQpState, &init), 0);
  return attr.qpState;
}

TEST(VerbsSimFaults, PortDownRaisesPortErrAndTrafficEndsInRetryExceeded) {
  Endpoint a = makeEndpoint("mlx5_2");
  Endpoint b = makeEndpoint("mlx5_3");
  RtsParams p;
  p.timeout = 8;  // ~1 ms per try
  p.retry = 2;
  ASSERT_NO_FATAL_FAILURE(connectPair(a, b, p));
  ASSERT_EQ(simControl("port_down mlx5_2 1"), 0);
  pollfd pfd{a.ctx->asyncFd, POLLIN, 0};
  ASSERT_EQ(poll(&pfd, 1, 1000), 1);
  IbvAsyncEvent event{};
  ASSERT_EQ(V().getAsyncEvent(a.ctx, &event), 0);
  EXPECT_EQ(event.eventType, kIbvEventPortErr);
  EXPECT_EQ(event.element.portNum, 1);
  V().ackAsyncEvent(&event);
  IbvPortAttr port{};
  ASSERT_EQ(V().queryPort(a.ctx, 1, &port), 0);
  EXPECT_EQ(port.state, kIbvPortDown);
  {
    // On the test's clock: every try is lost on the down port, each ACK timeout (1.05 ms) is one retry, and
    // the third timeout (retry_cnt 2) ends the WR, however slow the machine.
    StoppedClock clock;
    IbvSendWr wr = writeWr(1, nullptr, 0, 0, 0, kIbvWrRdmaWrite);
    IbvSendWr* bad = nullptr;
    ASSERT_EQ(postSend(a.qp, &wr, &bad), 0);
    ASSERT_EQ(awaitCounters(a, [](const QpCounters& c) { return c.packetsSent >= 1; }).packetsSent, 1u);
    for (uint64_t retry = 1; retry <= 2; ++retry) {
      StoppedClock::step(1.1);
      EXPECT_EQ(countersOf(a).retries, retry);
      IbvWc none[1];
      EXPECT_EQ(pollCq(a.cq, 1, none), 0) << "retry " << retry;
    }
    StoppedClock::step(1.1);
    IbvWc wc[2];
    ASSERT_EQ(pollCq(a.cq, 2, wc), 1);  // there as soon as the step returns
    EXPECT_EQ(wc[0].status, kIbvWcRetryExcErr);
    EXPECT_EQ(countersOf(a).packetsSent, 3u);
  }
  ASSERT_EQ(simControl("port_up mlx5_2 1"), 0);
  ASSERT_EQ(V().getAsyncEvent(a.ctx, &event), 0);
  EXPECT_EQ(event.eventType, kIbvEventPortActive);
  V().ackAsyncEvent(&event);
  closeEndpoint(a);
  closeEndpoint(b);
}

TEST(VerbsSimFaults, QpFatalMovesTheQpToErrWithAnEvent) {
  Endpoint e = makeEndpoint("mlx5_1");
  ASSERT_NO_FATAL_FAILURE(connectSelf(e));
  ASSERT_EQ(postEmptyRecv(e.qp, 3), 0);
  std::string command = "qp_fatal " + std::to_string(e.qp->qpNum);
  ASSERT_EQ(simControl(command.c_str()), 0);
  IbvAsyncEvent event{};
  ASSERT_EQ(V().getAsyncEvent(e.ctx, &event), 0);
  EXPECT_EQ(event.eventType, kIbvEventQpFatal);
  EXPECT_EQ(event.element.qp, e.qp);
  EXPECT_EQ(e.qp->state, kIbvQpsRts);  // the caller's copy changes only through ibv_query_qp
  EXPECT_EQ(stateOf(e.qp), kIbvQpsErr);
  EXPECT_EQ(e.qp->state, kIbvQpsErr);
  auto wcs = pollFor(e.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, kIbvWcWrFlushErr);
  V().ackAsyncEvent(&event);
  closeEndpoint(e);
}

class VerbsSimAdversarial : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(simControl("adversarial on"), 0); }
  void TearDown() override { EXPECT_EQ(simControl("adversarial off"), 0); }
};

TEST_F(VerbsSimAdversarial, CompletionsStayInOrderPerQpOnASharedCq) {
  // Two QP pairs whose requesters share one CQ.
  Endpoint a1 = makeEndpoint("mlx5_0");
  Endpoint b1 = makeEndpoint("mlx5_1");
  IbvQpInitAttr init{};
  init.sendCq = a1.cq;
  init.recvCq = a1.cq;
  init.cap = {64, 1, 1, 1, 0};
  init.qpType = kIbvQptRc;
  Endpoint a2 = a1;
  a2.qp = V().createQp(a1.pd, &init);
  ASSERT_NE(a2.qp, nullptr);
  Endpoint b2 = makeEndpoint("mlx5_1");
  ASSERT_NO_FATAL_FAILURE(connectPair(a1, b1));
  ASSERT_NO_FATAL_FAILURE(connectPair(a2, b2));
  std::vector<uint8_t> src(256, 1), dst(1 << 16);
  IbvMr* srcMr = V().regMr(a1.pd, src.data(), src.size(), kAllAccess);
  IbvMr* dst1 = V().regMr(b1.pd, dst.data(), dst.size(), kAllAccess);
  IbvMr* dst2 = V().regMr(b2.pd, dst.data(), dst.size(), kAllAccess);
  constexpr int kPerQp = 60;
  std::map<uint32_t, uint64_t> next;
  int total = 0;
  bool interleaved = false;
  uint32_t lastQp = 0;
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < kPerQp; ++i) {
      IbvSge sge{addrOf(src.data()), 128, srcMr->lkey};
      IbvSendWr w1 =
          writeWr(static_cast<uint64_t>(round * kPerQp + i), &sge, 1, addrOf(dst.data() + i * 128), dst1->rkey);
      IbvSendWr w2 =
          writeWr(static_cast<uint64_t>(round * kPerQp + i), &sge, 1, addrOf(dst.data() + i * 128), dst2->rkey);
      IbvSendWr* bad = nullptr;
      ASSERT_EQ(postSend(a1.qp, &w1, &bad), 0);
      ASSERT_EQ(postSend(a2.qp, &w2, &bad), 0);
    }
    auto wcs = pollFor(a1.cq, 2 * kPerQp);
    ASSERT_EQ(wcs.size(), 2u * kPerQp);
    for (const IbvWc& wc : wcs) {
      ASSERT_EQ(wc.status, kIbvWcSuccess);
      EXPECT_EQ(wc.wrId, next[wc.qpNum]++) << "qp " << wc.qpNum;  // in posting order per QP
      if (lastQp != 0 && wc.qpNum != lastQp) ++total;
      lastQp = wc.qpNum;
    }
  }
  interleaved = total > 2;
  EXPECT_TRUE(interleaved);  // and no order across QPs
  EXPECT_EQ(V().deregMr(srcMr), 0);
  EXPECT_EQ(V().deregMr(dst1), 0);
  EXPECT_EQ(V().deregMr(dst2), 0);
  EXPECT_EQ(V().destroyQp(a2.qp), 0);
  closeEndpoint(a1);
  closeEndpoint(b1);
  closeEndpoint(b2);
}

TEST_F(VerbsSimAdversarial, AWritesLastByteCanLandBeforeTheRest) {
  Endpoint a = makeEndpoint("mlx5_0");
  Endpoint b = makeEndpoint("mlx5_1");
  ASSERT_NO_FATAL_FAILURE(connectPair(a, b));
  alignas(64) static uint8_t src[4096];
  alignas(64) static uint8_t dst[4096];
  std::memset(src, 0xff, sizeof src);
  IbvMr* srcMr = V().regMr(a.pd, src, sizeof src, kAllAccess);
  IbvMr* dstMr = V().regMr(b.pd, dst, sizeof dst, kAllAccess);
  // A reader that takes the last byte as "the data is there" is wrong: it sees the flag while earlier
  // pieces are missing. Several tries, as the flag's piece may by chance come last.
  bool flagBeforeData = false;
  for (int attempt = 0; attempt < 20 && !flagBeforeData; ++attempt) {
    for (auto& byte : dst) __atomic_store_n(&byte, 0, __ATOMIC_RELAXED);
    IbvSge sge{addrOf(src), sizeof src, srcMr->lkey};
    IbvSendWr wr = writeWr(1, &sge, 1, addrOf(dst), dstMr->rkey);
    IbvSendWr* bad = nullptr;
    ASSERT_EQ(postSend(a.qp, &wr, &bad), 0);
    while (__atomic_load_n(&dst[sizeof dst - 1], __ATOMIC_ACQUIRE) == 0) std::this_thread::yield();
    for (size_t i = 0; i + 1 < sizeof dst; i += 64) {
      if (__atomic_load_n(&dst[i], __ATOMIC_RELAXED) == 0) flagBeforeData = true;
    }
    auto wcs = pollFor(a.cq, 1);
    ASSERT_EQ(wcs.size(), 1u);
    ASSERT_EQ(wcs[0].status, kIbvWcSuccess);
    for (size_t i = 0; i < sizeof dst; ++i) ASSERT_EQ(dst[i], 0xff);  // all there once completed
  }
  EXPECT_TRUE(flagBeforeData);
  EXPECT_EQ(V().deregMr(srcMr), 0);
  EXPECT_EQ(V().deregMr(dstMr), 0);
  closeEndpoint(a);
  closeEndpoint(b);
}

TEST_F(VerbsSimAdversarial, AReceiveCompletionStillMeansEveryEarlierByteLanded) {
  Endpoint a = makeEndpoint("mlx5_2");
  Endpoint b = makeEndpoint("mlx5_3");
  ASSERT_NO_FATAL_FAILURE(connectPair(a, b));
  std::vector<uint8_t> src(1 << 16), dst(1 << 16, 0);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i % 251 + 1);
  IbvMr* srcMr = V().regMr(a.pd, src.data(), src.size(), kAllAccess);
  IbvMr* dstMr = V().regMr(b.pd, dst.data(), dst.size(), kAllAccess);
  for (int i = 0; i < 8; ++i) ASSERT_EQ(postEmptyRecv(b.qp, static_cast<uint64_t>(i)), 0);
  for (int i = 0; i < 8; ++i) {
    size_t chunk = src.size() / 8;
    IbvSge sge{addrOf(src.data() + i * chunk), static_cast<uint32_t>(chunk), srcMr->lkey};
    IbvSendWr data = writeWr(1, &sge, 1, addrOf(dst.data() + i * chunk), dstMr->rkey, kIbvWrRdmaWrite, 0);
    IbvSendWr done = writeWr(2, nullptr, 0, 0, 0, kIbvWrRdmaWriteWithImm);
    done.immData = htonl(static_cast<uint32_t>(i));
    data.next = &done;
    IbvSendWr* bad = nullptr;
    ASSERT_EQ(postSend(a.qp, &data, &bad), 0);
    auto wcs = pollFor(b.cq, 1);
    ASSERT_EQ(wcs.size(), 1u);
    EXPECT_EQ(ntohl(wcs[0].immData), static_cast<uint32_t>(i));
    EXPECT_EQ(std::memcmp(dst.data() + i * chunk, src.data() + i * chunk, chunk), 0);
    ASSERT_EQ(pollFor(a.cq, 1).size(), 1u);
  }
  EXPECT_EQ(V().deregMr(srcMr), 0);
  EXPECT_EQ(V().deregMr(dstMr), 0);
  closeEndpoint(a);
  closeEndpoint(b);
}

}  // namespace
}  // namespace railtune::verbs_sim::test
