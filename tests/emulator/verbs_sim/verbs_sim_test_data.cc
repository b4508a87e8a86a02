// Data movement between two QPs of this process (mlx5_0 <-> mlx5_1 of host0): WRITE, WRITE_WITH_IMM, READ,
// SEND, inline, zero-length, and the error completions of bad keys, bounds, access and missing receives.
#include <arpa/inet.h>

#include <atomic>
#include <cerrno>
#include <numeric>

#include "tests/emulator/verbs_sim/verbs_sim_test_util.h"

namespace railtune::verbs_sim::test {
namespace {

class VerbsSimData : public TwoEndpoints {
 protected:
  VerbsSimData() : TwoEndpoints(1 << 20) {}
  int qpState(IbvQp* qp) {
    IbvQpAttr attr{};
    IbvQpInitAttr init{};
    EXPECT_EQ(V().queryQp(qp, &attr, kIbvQpState, &init), 0);
    return attr.qpState;
  }
};

TEST_F(VerbsSimData, WriteThenWriteWithImmDeliversEveryByteAndTheImmediate) {
  ASSERT_NO_FATAL_FAILURE(connectPair(a, b));
  ASSERT_EQ(postEmptyRecv(b.qp, 77), 0);
  IbvSge big{addrOf(src.data()), 1 << 19, srcMr->lkey};
  IbvSge tail{addrOf(src.data() + (1 << 19)), 4096, srcMr->lkey};
  IbvSendWr w1 = writeWr(1, &big, 1, addrOf(dst.data()), dstMr->rkey, kIbvWrRdmaWrite, 0);
  IbvSendWr w2 = writeWr(2, &tail, 1, addrOf(dst.data() + (1 << 19)), dstMr->rkey, kIbvWrRdmaWriteWithImm);
  w2.immData = htonl(0x12345678);
  w1.next = &w2;
  IbvSendWr* bad = nullptr;
  ASSERT_EQ(postSend(a.qp, &w1, &bad), 0);
  auto wcs = pollFor(b.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, kIbvWcSuccess);
  EXPECT_EQ(wcs[0].opcode, kIbvWcRecvRdmaWithImm);
  EXPECT_EQ(wcs[0].wrId, 77u);
  EXPECT_EQ(wcs[0].byteLen, 4096u);
  EXPECT_EQ(ntohl(wcs[0].immData), 0x12345678u);
  EXPECT_EQ(wcs[0].wcFlags & kIbvWcWithImm, kIbvWcWithImm);
  EXPECT_EQ(wcs[0].qpNum, b.qp->qpNum);
  EXPECT_EQ(wcs[0].srcQp, a.qp->qpNum);
  // The receive's completion means every byte before it on the QP has landed.
  EXPECT_EQ(std::memcmp(dst.data(), src.data(), (1 << 19) + 4096), 0);
  wcs = pollFor(a.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].wrId, 2u);
  EXPECT_EQ(wcs[0].opcode, kIbvWcRdmaWrite);
  // What the counters guarantee whatever the timers did (a slow machine may resend: bytes_sent and retries are
  // the clock's, see VerbsSimClock).
  const QpCounters requester = countersOf(a);
  ASSERT_TRUE(requester.found);
  EXPECT_EQ(requester.state, kIbvQpsRts);
  EXPECT_EQ(requester.wrsPosted, 2u);
  EXPECT_EQ(requester.wrsCompleted, 2u);
  EXPECT_GE(requester.bytesSent, (1u << 19) + 4096u);
  const QpCounters responder = countersOf(b);
  ASSERT_TRUE(responder.found);
  EXPECT_EQ(responder.bytesReceived, (1u << 19) + 4096u);  // a resent duplicate is ACKed, not applied again
}

TEST_F(VerbsSimData, ReadFetchesTheRemoteBytes) {
  ASSERT_NO_FATAL_FAILURE(connectPair(a, b));
  std::memcpy(dst.data(), src.data() + 1000, 65536);
  std::vector<uint8_t> local(65536, 0);
  IbvMr* localMr = V().regMr(a.pd, local.data(), local.size(), kIbvAccessLocalWrite);
  IbvSge sge{addrOf(local.data()), 65536, localMr->lkey};
  ASSERT_EQ(post(writeWr(5, &sge, 1, addrOf(dst.data()), dstMr->rkey, kIbvWrRdmaRead)), 0);
  auto wcs = pollFor(a.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, kIbvWcSuccess);
  EXPECT_EQ(wcs[0].opcode, kIbvWcRdmaRead);
  EXPECT_EQ(wcs[0].byteLen, 65536u);
  EXPECT_EQ(std::memcmp(local.data(), src.data() + 1000, 65536), 0);
  EXPECT_EQ(V().deregMr(localMr), 0);
}

TEST_F(VerbsSimData, ZeroLengthWriteWithImmNeedsNoSgeNorKey) {
  ASSERT_NO_FATAL_FAILURE(connectPair(a, b));
  ASSERT_EQ(postEmptyRecv(b.qp, 9), 0);
  IbvSendWr wr = writeWr(3, nullptr, 0, 0, 0, kIbvWrRdmaWriteWithImm);
  wr.immData = htonl(42);
  ASSERT_EQ(post(wr), 0);
  auto wcs = pollFor(b.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, kIbvWcSuccess);
  EXPECT_EQ(wcs[0].byteLen, 0u);
  EXPECT_EQ(ntohl(wcs[0].immData), 42u);
  EXPECT_EQ(pollFor(a.cq, 1).size(), 1u);
}

TEST_F(VerbsSimData, InlineDataIsCopiedAtPostTimeWithoutAKey) {
  ASSERT_NO_FATAL_FAILURE(connectPair(a, b));
  uint8_t scratch[32];
  std::memset(scratch, 0x5a, sizeof scratch);
  IbvSge sge{addrOf(scratch), 32, 0xdeadbeef};
  ASSERT_EQ(post(writeWr(4, &sge, 1, addrOf(dst.data() + 64), dstMr->rkey, kIbvWrRdmaWrite,
                         kIbvSendSignaled | kIbvSendInline)),
            0);
  std::memset(scratch, 0, sizeof scratch);  // reusable at once
  auto wcs = pollFor(a.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, kIbvWcSuccess);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(dst[64 + static_cast<size_t>(i)], 0x5a);
}

TEST_F(VerbsSimData, SendScattersIntoTheReceive) {
  ASSERT_NO_FATAL_FAILURE(connectPair(a, b));
  IbvSge rsge{addrOf(dst.data()), 100, dstMr->lkey};
  IbvRecvWr r{};
  r.wrId = 11;
  r.sgList = &rsge;
  r.numSge = 1;
  IbvRecvWr* badRecv = nullptr;
  ASSERT_EQ(postRecv(b.qp, &r, &badRecv), 0);
  IbvSge sge{addrOf(src.data()), 60, srcMr->lkey};
  ASSERT_EQ(post(writeWr(6, &sge, 1, 0, 0, kIbvWrSend)), 0);
  auto wcs = pollFor(b.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].opcode, kIbvWcRecv);
  EXPECT_EQ(wcs[0].byteLen, 60u);
  EXPECT_EQ(std::memcmp(dst.data(), src.data(), 60), 0);
  wcs = pollFor(a.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].opcode, kIbvWcSend);
}

TEST_F(VerbsSimData, ABadLkeyOrBoundsIsLocProtErrAndTheRestFlush) {
  ASSERT_NO_FATAL_FAILURE(connectPair(a, b));
  IbvSge good{addrOf(src.data()), 64, srcMr->lkey};
  IbvSge outside{addrOf(src.data() + src.size() - 8), 64, srcMr->lkey};
  IbvSendWr w1 = writeWr(1, &good, 1, addrOf(dst.data()), dstMr->rkey);
  IbvSendWr w2 = writeWr(2, &outside, 1, addrOf(dst.data()), dstMr->rkey, kIbvWrRdmaWrite, 0);  // unsignaled
  IbvSendWr w3 = writeWr(3, &good, 1, addrOf(dst.data()), dstMr->rkey);
  w1.next = &w2;
  w2.next = &w3;
  IbvSendWr* bad = nullptr;
  ASSERT_EQ(postSend(a.qp, &w1, &bad), 0);
  auto wcs = pollFor(a.cq, 3);
  ASSERT_EQ(wcs.size(), 3u);
  EXPECT_EQ(wcs[0].wrId, 1u);
  EXPECT_EQ(wcs[0].status, kIbvWcSuccess);
  EXPECT_EQ(wcs[1].wrId, 2u);  // an error always completes, signaled or not
  EXPECT_EQ(wcs[1].status, kIbvWcLocProtErr);
  EXPECT_EQ(wcs[2].wrId, 3u);
  EXPECT_EQ(wcs[2].status, kIbvWcWrFlushErr);
  EXPECT_EQ(qpState(a.qp), kIbvQpsErr);
  // A key of another PD is a protection error too.
  EXPECT_EQ(qpState(b.qp), kIbvQpsRts);
}

TEST_F(VerbsSimData, ARemoteAccessErrorMovesBothQpsToErr) {
  ASSERT_NO_FATAL_FAILURE(connectPair(a, b));
  ASSERT_EQ(postEmptyRecv(b.qp, 50), 0);
  IbvSge sge{addrOf(src.data()), 128, srcMr->lkey};
  ASSERT_EQ(post(writeWr(1, &sge, 1, addrOf(dst.data() + dst.size() - 64), dstMr->rkey)), 0);  // past the end
  auto wcs = pollFor(a.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, kIbvWcRemAccessErr);
  EXPECT_EQ(qpState(a.qp), kIbvQpsErr);
  wcs = pollFor(b.cq, 1);  // the responder's posted receive is flushed
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].wrId, 50u);
  EXPECT_EQ(wcs[0].status, kIbvWcWrFlushErr);
  EXPECT_EQ(qpState(b.qp), kIbvQpsErr);
  pollfd pfd{b.ctx->asyncFd, POLLIN, 0};
  ASSERT_EQ(poll(&pfd, 1, 1000), 1);
  IbvAsyncEvent event{};
  ASSERT_EQ(V().getAsyncEvent(b.ctx, &event), 0);
  EXPECT_EQ(event.eventType, kIbvEventQpAccessErr);
  EXPECT_EQ(event.element.qp, b.qp);
  EXPECT_EQ(V().destroyQp(b.qp), EBUSY);  // not acked yet: fails loudly instead of hanging
  V().ackAsyncEvent(&event);
}

TEST_F(VerbsSimData, WithoutRemoteWriteAccessTheWriteFails) {
  ASSERT_EQ(toInit(a.qp), 0);
  ASSERT_EQ(toInit(b.qp, kIbvAccessRemoteRead), 0);  // the responder QP allows no remote write
  ASSERT_EQ(toRtr(a.qp, b.qp->qpNum, b.lid), 0);
  ASSERT_EQ(toRtr(b.qp, a.qp->qpNum, a.lid), 0);
  ASSERT_EQ(toRts(a.qp), 0);
  ASSERT_EQ(toRts(b.qp), 0);
  IbvSge sge{addrOf(src.data()), 128, srcMr->lkey};
  ASSERT_EQ(post(writeWr(1, &sge, 1, addrOf(dst.data()), dstMr->rkey)), 0);
  auto wcs = pollFor(a.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, kIbvWcRemAccessErr);
  IbvAsyncEvent event{};
  ASSERT_EQ(V().getAsyncEvent(b.ctx, &event), 0);
  V().ackAsyncEvent(&event);
}

TEST_F(VerbsSimData, AWrongRkeyIsRemAccessErr) {
  ASSERT_NO_FATAL_FAILURE(connectPair(a, b));
  IbvSge sge{addrOf(src.data()), 128, srcMr->lkey};
  ASSERT_EQ(post(writeWr(1, &sge, 1, addrOf(dst.data()), dstMr->rkey ^ 0x100)), 0);
  auto wcs = pollFor(a.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, kIbvWcRemAccessErr);
  EXPECT_EQ(wcs[0].opcode, 0xff);  // undefined in an error completion: poisoned
  IbvAsyncEvent event{};
  ASSERT_EQ(V().getAsyncEvent(b.ctx, &event), 0);
  V().ackAsyncEvent(&event);
}

TEST_F(VerbsSimData, NoReceiveGivesRnrRetryExceededWithFiniteRetries) {
  RtsParams p;
  p.rnrRetry = 2;
  p.minRnrTimer = 1;  // 10 us
  ASSERT_NO_FATAL_FAILURE(connectPair(a, b, p));
  IbvSendWr wr = writeWr(1, nullptr, 0, 0, 0, kIbvWrRdmaWriteWithImm);
  ASSERT_EQ(post(wr), 0);
  auto wcs = pollFor(a.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, kIbvWcRnrRetryExcErr);
  EXPECT_EQ(qpState(a.qp), kIbvQpsErr);
  EXPECT_EQ(qpState(b.qp), kIbvQpsRts);  // an RNR is no error at the responder
}

TEST_F(VerbsSimData, NoReceiveWaitsForOneWithInfiniteRnrRetry) {
  RtsParams p;
  p.rnrRetry = 7;
  p.minRnrTimer = 1;
  ASSERT_NO_FATAL_FAILURE(connectPair(a, b, p));
  IbvSge sge{addrOf(src.data()), 256, srcMr->lkey};
  ASSERT_EQ(post(writeWr(1, &sge, 1, addrOf(dst.data()), dstMr->rkey, kIbvWrRdmaWriteWithImm)), 0);
  EXPECT_TRUE(pollFor(a.cq, 1, 0.05).empty());
  ASSERT_EQ(postEmptyRecv(b.qp, 5), 0);
  auto wcs = pollFor(b.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].byteLen, 256u);
  wcs = pollFor(a.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, kIbvWcSuccess);
  EXPECT_EQ(std::memcmp(dst.data(), src.data(), 256), 0);
}

TEST_F(VerbsSimData, ErrFlushesOutstandingAndLaterWorkRequests) {
  ASSERT_NO_FATAL_FAILURE(connectPair(a, b));
  ASSERT_EQ(postEmptyRecv(a.qp, 70), 0);
  IbvQpAttr attr{};
  attr.qpState = kIbvQpsErr;
  ASSERT_EQ(V().modifyQp(a.qp, &attr, kIbvQpState), 0);
  IbvSge sge{addrOf(src.data()), 8, srcMr->lkey};
  ASSERT_EQ(post(writeWr(71, &sge, 1, addrOf(dst.data()), dstMr->rkey, kIbvWrRdmaWrite, 0)), 0);  // allowed in ERR
  ASSERT_EQ(postEmptyRecv(a.qp, 72), 0);
  auto wcs = pollFor(a.cq, 3);
  ASSERT_EQ(wcs.size(), 3u);
  for (const IbvWc& wc : wcs) {
    EXPECT_EQ(wc.status, kIbvWcWrFlushErr);
    EXPECT_EQ(wc.qpNum, a.qp->qpNum);
  }
  EXPECT_EQ(wcs[0].wrId, 70u);
}

TEST_F(VerbsSimData, AGrhAddressResolvesThePeerByGid) {
  ASSERT_EQ(toInit(a.qp), 0);
  ASSERT_EQ(toInit(b.qp), 0);
  auto rtrByGid = [](IbvQp* qp, uint32_t destQpn, const IbvGid& dgid, uint8_t sgidIndex) {
    IbvQpAttr attr{};
    attr.qpState = kIbvQpsRtr;
    attr.pathMtu = kIbvMtu4096;
    attr.destQpNum = destQpn;
    attr.maxDestRdAtomic = 1;
    attr.minRnrTimer = 12;
    attr.ahAttr.isGlobal = 1;
    attr.ahAttr.grh.dgid = dgid;
    attr.ahAttr.grh.sgidIndex = sgidIndex;
    attr.ahAttr.grh.hopLimit = 255;
    attr.ahAttr.portNum = 1;
    return V().modifyQp(qp, &attr,
                        kIbvQpState | kIbvQpAv | kIbvQpPathMtu | kIbvQpDestQpn | kIbvQpRqPsn | kIbvQpMaxDestRdAtomic |
                            kIbvQpMinRnrTimer);
  };
  EXPECT_EQ(rtrByGid(a.qp, b.qp->qpNum, b.gid, 1), EINVAL);  // no GID index 1 on this port
  ASSERT_EQ(rtrByGid(a.qp, b.qp->qpNum, b.gid, 0), 0);
  ASSERT_EQ(rtrByGid(b.qp, a.qp->qpNum, a.gid, 0), 0);
  ASSERT_EQ(toRts(a.qp), 0);
  ASSERT_EQ(toRts(b.qp), 0);
  IbvSge sge{addrOf(src.data()), 4096, srcMr->lkey};
  ASSERT_EQ(post(writeWr(1, &sge, 1, addrOf(dst.data()), dstMr->rkey)), 0);
  auto wcs = pollFor(a.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, kIbvWcSuccess);
  EXPECT_EQ(std::memcmp(dst.data(), src.data(), 4096), 0);
}

TEST_F(VerbsSimData, AnIova2RegionIsAddressedByItsIova) {
  ASSERT_NO_FATAL_FAILURE(connectPair(a, b));
  std::vector<uint8_t> target(8192, 0);
  IbvMr* mr = V().regMrIova2(b.pd, target.data(), target.size(), 0x7000000000ULL, kAllAccess);
  ASSERT_NE(mr, nullptr);
  EXPECT_EQ(mr->addr, target.data());
  IbvSge sge{addrOf(src.data()), 100, srcMr->lkey};
  ASSERT_EQ(post(writeWr(1, &sge, 1, 0x7000000000ULL + 4096, mr->rkey)), 0);
  auto wcs = pollFor(a.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, kIbvWcSuccess);
  EXPECT_EQ(std::memcmp(target.data() + 4096, src.data(), 100), 0);
  ASSERT_EQ(post(writeWr(2, &sge, 1, addrOf(target.data()), mr->rkey)), 0);  // the host address is not the iova
  wcs = pollFor(a.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, kIbvWcRemAccessErr);
  IbvAsyncEvent event{};
  ASSERT_EQ(V().getAsyncEvent(b.ctx, &event), 0);
  V().ackAsyncEvent(&event);
  EXPECT_EQ(V().deregMr(mr), 0);
}

TEST(VerbsSimCq, AnOverrunRaisesCqErrAndTheCqIsUnusable) {
  QpCaps caps;
  caps.cqe = 2;
  Endpoint e = makeEndpoint("mlx5_2", caps);
  ASSERT_NO_FATAL_FAILURE(connectSelf(e));
  std::vector<uint8_t> buf(4096);
  IbvMr* mr = V().regMr(e.pd, buf.data(), buf.size(), kAllAccess);
  IbvSge sge{addrOf(buf.data()), 8, mr->lkey};
  for (int i = 0; i < 4; ++i) {
    IbvSendWr wr = writeWr(static_cast<uint64_t>(i), &sge, 1, addrOf(buf.data() + 1024), mr->rkey);
    IbvSendWr* bad = nullptr;
    ASSERT_EQ(postSend(e.qp, &wr, &bad), 0);
  }
  pollfd pfd{e.ctx->asyncFd, POLLIN, 0};
  ASSERT_EQ(poll(&pfd, 1, 5000), 1);
  IbvAsyncEvent event{};
  ASSERT_EQ(V().getAsyncEvent(e.ctx, &event), 0);
  EXPECT_EQ(event.eventType, kIbvEventCqErr);
  EXPECT_EQ(event.element.cq, e.cq);
  IbvWc wc[4];
  EXPECT_EQ(pollCq(e.cq, 4, wc), -1);
  V().ackAsyncEvent(&event);
  EXPECT_EQ(V().deregMr(mr), 0);
  closeEndpoint(e);
}

}  // namespace
}  // namespace railtune::verbs_sim::test
