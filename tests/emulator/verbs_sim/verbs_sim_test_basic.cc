// The simulator's library surface: exports and version nodes, devices and ports of the gb300 preset, the
// RC state machine of ibv_modify_qp(3), posting rules and limits, and wrong ABI use.
#include <sys/mman.h>

#include <cerrno>

#include "tests/emulator/verbs_sim/verbs_sim_test_util.h"

namespace railtune::verbs_sim::test {
namespace {

TEST(VerbsSimLibrary, LoadsThroughTheTransportsLoaderWithEveryOptionalSymbol) {
  SimLib& lib = SimLib::get();
  ASSERT_TRUE(lib.verbs.ok()) << lib.verbs.reason;
  EXPECT_NE(lib.t().regMrIova2, nullptr);
  EXPECT_NE(lib.t().regDmabufMr, nullptr);
  EXPECT_NE(lib.t().queryPortSpeed, nullptr);
  ASSERT_NE(lib.control, nullptr);
  ASSERT_NE(lib.stats, nullptr);
}

TEST(VerbsSimLibrary, PutsEachSymbolInRdmaCoresVersionNode) {
  void* h = SimLib::get().verbs.handle;
  for (const char* name : {"ibv_get_device_list", "ibv_open_device", "ibv_query_port", "ibv_modify_qp",
                           "ibv_get_async_event", "ibv_wc_status_str", "ibv_query_pkey", "ibv_get_device_guid"}) {
    EXPECT_NE(dlvsym(h, name, "IBVERBS_1.1"), nullptr) << name;
  }
  EXPECT_NE(dlvsym(h, "ibv_reg_mr_iova2", "IBVERBS_1.8"), nullptr);
  EXPECT_NE(dlvsym(h, "ibv_query_ece", "IBVERBS_1.10"), nullptr);
  EXPECT_NE(dlvsym(h, "ibv_set_ece", "IBVERBS_1.10"), nullptr);
  EXPECT_NE(dlvsym(h, "ibv_reg_dmabuf_mr", "IBVERBS_1.12"), nullptr);
  EXPECT_NE(dlvsym(h, "ibv_query_port_speed", "IBVERBS_1.16"), nullptr);
  EXPECT_EQ(dlvsym(h, "ibv_reg_mr_iova2", "IBVERBS_1.1"), nullptr);  // a symbol lives in one node only
  EXPECT_EQ(dlsym(h, "mlx5dv_is_supported"), nullptr);               // mlx5dv: not supported
  auto ece = reinterpret_cast<int (*)(IbvQp*, void*)>(dlsym(h, "ibv_query_ece"));
  EXPECT_EQ(ece(nullptr, nullptr), EOPNOTSUPP);
}

TEST(VerbsSimDevices, Gb300HostHasFourConnectX8PortsAt800G) {
  int n = 0;
  IbvDevice** list = V().getDeviceList(&n);
  ASSERT_NE(list, nullptr);
  ASSERT_EQ(n, 4);
  EXPECT_EQ(list[4], nullptr);
  for (int i = 0; i < n; ++i) EXPECT_EQ(std::string(V().getDeviceName(list[i])), "mlx5_" + std::to_string(i));
  IbvContext* ctx = V().openDevice(list[0]);
  V().freeDeviceList(list);
  ASSERT_NE(ctx, nullptr);
  EXPECT_NE(ctx->ops.pollCq, nullptr);
  EXPECT_NE(ctx->ops.postSend, nullptr);
  EXPECT_NE(ctx->ops.postRecv, nullptr);
  EXPECT_EQ(ctx->abiCompat, nullptr);
  EXPECT_GE(ctx->numCompVectors, 1);
  IbvDeviceAttr dev{};
  ASSERT_EQ(V().queryDevice(ctx, &dev), 0);
  EXPECT_EQ(dev.physPortCnt, 1);
  EXPECT_EQ(dev.vendorPartId, 4131u);
  EXPECT_GT(dev.maxQp, 0);
  // Only 48 bytes from the exported compat ibv_query_port: the rest of the caller's buffer is untouched.
  IbvPortAttr port;
  std::memset(&port, 0xaa, sizeof port);
  ASSERT_EQ(V().queryPort(ctx, 1, &port), 0);
  EXPECT_EQ(port.state, kIbvPortActive);
  EXPECT_EQ(port.linkLayer, kIbvLinkLayerInfiniband);
  EXPECT_EQ(port.activeMtu, kIbvMtu4096);
  EXPECT_EQ(port.activeWidth, 2);  // 4X
  EXPECT_EQ(port.activeSpeed, 0);  // XDR does not fit 8 bits
  EXPECT_EQ(port.lid, 1);          // host0, device 0
  EXPECT_EQ(port.gidTblLen, 1);
  EXPECT_EQ(port.portCapFlags2, 0xaaaa);
  EXPECT_EQ(port.activeSpeedEx, 0xaaaaaaaau);
  uint64_t speed = 0;
  ASSERT_EQ(V().queryPortSpeed(ctx, 1, &speed), 0);
  EXPECT_EQ(speed, 8000u);  // 800 Gb/s in 100 Mb/s
  IbvGid gid{};
  ASSERT_EQ(V().queryGid(ctx, 1, 0, &gid), 0);
  EXPECT_EQ(gid.raw[0], 0xfe);
  EXPECT_EQ(gid.raw[1], 0x80);
  EXPECT_EQ(std::memcmp(&gid.raw[8], &dev.nodeGuid, 8), 0);  // interface id = the GUID, both big-endian
  EXPECT_EQ(V().queryGid(ctx, 1, 1, &gid), EINVAL);
  EXPECT_EQ(V().queryPort(ctx, 2, &port), EINVAL);
  EXPECT_EQ(V().closeDevice(ctx), 0);
}

TEST(VerbsSimDevices, DmabufIsMappedWhenItCanBeAndRefusedOtherwise) {
  IbvContext* ctx = openByName("mlx5_0");
  IbvPd* pd = V().allocPd(ctx);
  errno = 0;
  EXPECT_EQ(V().regDmabufMr(pd, 0, 4096, 0, -1, kIbvAccessLocalWrite), nullptr);
  EXPECT_EQ(errno, EBADF);
  int fd = memfd_create("vsim-dmabuf", 0);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 8192), 0);
  IbvMr* mr = V().regDmabufMr(pd, 4096, 4096, 0x10000, fd, kAllAccess);
  ASSERT_NE(mr, nullptr) << errno;
  EXPECT_EQ(addrOf(mr->addr), 4096u);
  EXPECT_NE(mr->lkey, 0u);
  EXPECT_EQ(V().deregMr(mr), 0);
  close(fd);
  int pipeFds[2];
  ASSERT_EQ(pipe(pipeFds), 0);
  errno = 0;
  EXPECT_EQ(V().regDmabufMr(pd, 0, 4096, 0, pipeFds[0], kIbvAccessLocalWrite), nullptr);
  EXPECT_EQ(errno, EOPNOTSUPP);
  close(pipeFds[0]);
  close(pipeFds[1]);
  EXPECT_EQ(V().deallocPd(pd), 0);
  EXPECT_EQ(V().closeDevice(ctx), 0);
}

class VerbsSimQpStates : public ::testing::Test {
 protected:
  void SetUp() override { e = makeEndpoint("mlx5_0"); }
  void TearDown() override { closeEndpoint(e); }
  int state() {
    IbvQpAttr a{};
    IbvQpInitAttr init{};
    EXPECT_EQ(V().queryQp(e.qp, &a, kIbvQpState, &init), 0);
    return a.qpState;
  }
  Endpoint e;
};

TEST_F(VerbsSimQpStates, EachTransitionTakesExactlyItsRequiredMask) {
  EXPECT_EQ(state(), kIbvQpsReset);
  ASSERT_EQ(toInit(e.qp), 0);
  EXPECT_EQ(e.qp->state, kIbvQpsInit);
  ASSERT_EQ(toRtr(e.qp, e.qp->qpNum, e.lid), 0);
  EXPECT_EQ(state(), kIbvQpsRtr);
  ASSERT_EQ(toRts(e.qp), 0);
  EXPECT_EQ(state(), kIbvQpsRts);
  IbvQpAttr a{};
  a.qpState = kIbvQpsErr;
  ASSERT_EQ(V().modifyQp(e.qp, &a, kIbvQpState), 0);
  EXPECT_EQ(state(), kIbvQpsErr);
  a.qpState = kIbvQpsReset;
  ASSERT_EQ(V().modifyQp(e.qp, &a, kIbvQpState), 0);
  EXPECT_EQ(state(), kIbvQpsReset);
  ASSERT_EQ(toInit(e.qp), 0);  // a reset QP starts over
}

TEST_F(VerbsSimQpStates, AMissingRequiredBitOrAnExtraBitIsEinvalAndChangesNothing) {
  IbvQpAttr a{};
  a.qpState = kIbvQpsInit;
  a.portNum = 1;
  const int init = kIbvQpState | kIbvQpPkeyIndex | kIbvQpPort | kIbvQpAccessFlags;
  for (int bit : {kIbvQpPkeyIndex, kIbvQpPort, kIbvQpAccessFlags})
    EXPECT_EQ(V().modifyQp(e.qp, &a, init & ~bit), EINVAL);
  EXPECT_EQ(V().modifyQp(e.qp, &a, init | kIbvQpQkey), EINVAL);
  EXPECT_EQ(V().modifyQp(e.qp, &a, init | kIbvQpRateLimit), EINVAL);
  EXPECT_EQ(state(), kIbvQpsReset);
  ASSERT_EQ(toInit(e.qp), 0);

  IbvQpAttr r{};
  r.qpState = kIbvQpsRtr;
  r.pathMtu = kIbvMtu4096;
  r.destQpNum = e.qp->qpNum;
  r.ahAttr.dlid = e.lid;
  r.ahAttr.portNum = 1;
  const int rtr =
      kIbvQpState | kIbvQpAv | kIbvQpPathMtu | kIbvQpDestQpn | kIbvQpRqPsn | kIbvQpMaxDestRdAtomic | kIbvQpMinRnrTimer;
  for (int bit : {kIbvQpAv, kIbvQpPathMtu, kIbvQpDestQpn, kIbvQpRqPsn, kIbvQpMaxDestRdAtomic, kIbvQpMinRnrTimer}) {
    EXPECT_EQ(V().modifyQp(e.qp, &r, rtr & ~bit), EINVAL) << bit;
  }
  EXPECT_EQ(V().modifyQp(e.qp, &r, rtr | kIbvQpTimeout), EINVAL);
  EXPECT_EQ(V().modifyQp(e.qp, &r, rtr | kIbvQpCurState), EINVAL);  // CUR_STATE only from RTR on
  EXPECT_EQ(state(), kIbvQpsInit);
  EXPECT_EQ(V().modifyQp(e.qp, &r, rtr | kIbvQpAccessFlags), 0);  // optional
  const int rts = kIbvQpState | kIbvQpTimeout | kIbvQpRetryCnt | kIbvQpRnrRetry | kIbvQpSqPsn | kIbvQpMaxQpRdAtomic;
  IbvQpAttr s{};
  s.qpState = kIbvQpsRts;
  s.timeout = 14;
  s.retryCnt = 7;
  s.rnrRetry = 7;
  for (int bit : {kIbvQpTimeout, kIbvQpRetryCnt, kIbvQpRnrRetry, kIbvQpSqPsn, kIbvQpMaxQpRdAtomic}) {
    EXPECT_EQ(V().modifyQp(e.qp, &s, rts & ~bit), EINVAL) << bit;
  }
  EXPECT_EQ(V().modifyQp(e.qp, &s, rts | kIbvQpDestQpn), EINVAL);
  s.retryCnt = 8;
  EXPECT_EQ(V().modifyQp(e.qp, &s, rts), EINVAL);  // a 3-bit field
  s.retryCnt = 7;
  EXPECT_EQ(V().modifyQp(e.qp, &s, rts), 0);
  IbvQpAttr errAttr{};
  errAttr.qpState = kIbvQpsErr;
  EXPECT_EQ(V().modifyQp(e.qp, &errAttr, kIbvQpState | kIbvQpTimeout), EINVAL);  // to ERR: STATE only
}

TEST_F(VerbsSimQpStates, SkippingAStateIsEinval) {
  IbvQpAttr a{};
  a.qpState = kIbvQpsRts;
  a.timeout = 14;
  const int rts = kIbvQpState | kIbvQpTimeout | kIbvQpRetryCnt | kIbvQpRnrRetry | kIbvQpSqPsn | kIbvQpMaxQpRdAtomic;
  EXPECT_EQ(V().modifyQp(e.qp, &a, rts), EINVAL);  // RESET->RTS
  a.qpState = kIbvQpsErr;
  EXPECT_EQ(V().modifyQp(e.qp, &a, kIbvQpState), EINVAL);  // RESET->ERR (current kernels)
  ASSERT_EQ(toInit(e.qp), 0);
  a.qpState = kIbvQpsRts;
  EXPECT_EQ(V().modifyQp(e.qp, &a, rts), EINVAL);  // INIT->RTS
  a.qpState = kIbvQpsSqd;
  EXPECT_EQ(V().modifyQp(e.qp, &a, kIbvQpState), EINVAL);
  EXPECT_EQ(state(), kIbvQpsInit);
}

TEST_F(VerbsSimQpStates, ValuesTheHardwareRejectsAreEinval) {
  IbvQpAttr a{};
  a.qpState = kIbvQpsInit;
  a.portNum = 2;  // one port
  EXPECT_EQ(V().modifyQp(e.qp, &a, kIbvQpState | kIbvQpPkeyIndex | kIbvQpPort | kIbvQpAccessFlags), EINVAL);
  a.portNum = 1;
  a.pkeyIndex = 5;  // no P_Key there
  EXPECT_EQ(V().modifyQp(e.qp, &a, kIbvQpState | kIbvQpPkeyIndex | kIbvQpPort | kIbvQpAccessFlags), EINVAL);
  a.pkeyIndex = 0;
  a.qpAccessFlags = kIbvAccessLocalWrite | kIbvAccessRemoteWrite;  // LOCAL_WRITE is accepted (NCCL sets it)
  EXPECT_EQ(V().modifyQp(e.qp, &a, kIbvQpState | kIbvQpPkeyIndex | kIbvQpPort | kIbvQpAccessFlags), 0);
}

TEST_F(VerbsSimQpStates, PostingBeforeRtsFailsAndReceivesNeedInit) {
  char buf[64];
  IbvSge sge{addrOf(buf), 8, 0};
  IbvSendWr wr = writeWr(1, &sge, 1, 0, 0);
  IbvSendWr* bad = nullptr;
  EXPECT_EQ(postSend(e.qp, &wr, &bad), ENOMEM);  // mlx5: no send before RTS
  EXPECT_EQ(bad, &wr);
  EXPECT_EQ(postEmptyRecv(e.qp, 1), EINVAL);  // RESET
  ASSERT_EQ(toInit(e.qp), 0);
  EXPECT_EQ(postEmptyRecv(e.qp, 1), 0);  // INIT accepts receives
  EXPECT_EQ(postSend(e.qp, &wr, &bad), ENOMEM);
  ASSERT_EQ(toRtr(e.qp, e.qp->qpNum, e.lid), 0);
  EXPECT_EQ(postSend(e.qp, &wr, &bad), ENOMEM);
}

TEST(VerbsSimLimits, SgeInlineAndQueueLimitsAreEnforced) {
  QpCaps caps;
  caps.sendWr = 4;
  caps.recvWr = 2;
  caps.sendSge = 1;
  caps.recvSge = 1;
  caps.inlineData = 16;
  Endpoint e = makeEndpoint("mlx5_0", caps);
  ASSERT_NO_FATAL_FAILURE(connectSelf(e));  // loopback, as NCCL's flush QP
  std::vector<uint8_t> buf(256, 7);
  IbvMr* mr = V().regMr(e.pd, buf.data(), buf.size(), kAllAccess);
  ASSERT_NE(mr, nullptr);
  IbvSge two[2] = {{addrOf(buf.data()), 8, mr->lkey}, {addrOf(buf.data() + 8), 8, mr->lkey}};
  IbvSendWr wr = writeWr(1, two, 2, addrOf(buf.data() + 128), mr->rkey);
  IbvSendWr* bad = nullptr;
  EXPECT_EQ(postSend(e.qp, &wr, &bad), ENOMEM);  // 2 SGEs > max_send_sge 1
  IbvSge big{addrOf(buf.data()), 17, 0};
  wr = writeWr(1, &big, 1, addrOf(buf.data() + 128), mr->rkey, kIbvWrRdmaWrite, kIbvSendSignaled | kIbvSendInline);
  EXPECT_EQ(postSend(e.qp, &wr, &bad), ENOMEM);  // 17 > max_inline_data 16
  wr.opcode = 9;
  wr.sendFlags = kIbvSendSignaled;
  EXPECT_EQ(postSend(e.qp, &wr, &bad), EINVAL);  // no such opcode
  IbvRecvWr r{};
  r.numSge = 2;
  r.sgList = two;
  IbvRecvWr* badRecv = nullptr;
  EXPECT_EQ(postRecv(e.qp, &r, &badRecv), EINVAL);  // 2 SGEs > max_recv_sge 1
  EXPECT_EQ(postEmptyRecv(e.qp, 1), 0);
  EXPECT_EQ(postEmptyRecv(e.qp, 2), 0);
  EXPECT_EQ(postEmptyRecv(e.qp, 3), ENOMEM);  // RQ full

  // Unsignaled WRs keep their slots until a later signaled completion is polled.
  IbvSge one{addrOf(buf.data()), 8, mr->lkey};
  IbvSendWr ws[4];
  for (int i = 0; i < 4; ++i) {
    ws[i] = writeWr(100 + i, &one, 1, addrOf(buf.data() + 128), mr->rkey, kIbvWrRdmaWrite,
                    i == 3 ? static_cast<unsigned>(kIbvSendSignaled) : 0u);
    ws[i].next = i < 3 ? &ws[i + 1] : nullptr;
  }
  ws[2].sendFlags = 0;
  ASSERT_EQ(postSend(e.qp, &ws[0], &bad), 0);
  IbvSendWr extra = writeWr(200, &one, 1, addrOf(buf.data() + 128), mr->rkey);
  // All four done on the wire soon, but none polled: the queue stays full.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(postSend(e.qp, &extra, &bad), ENOMEM);
  EXPECT_EQ(bad, &extra);
  auto wcs = pollFor(e.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].wrId, 103u);  // only the signaled one completes
  EXPECT_EQ(wcs[0].status, kIbvWcSuccess);
  EXPECT_EQ(wcs[0].opcode, kIbvWcRdmaWrite);
  EXPECT_EQ(postSend(e.qp, &extra, &bad), 0);  // all four slots freed by that one poll
  EXPECT_EQ(pollFor(e.cq, 1).size(), 1u);
  EXPECT_EQ(V().deregMr(mr), 0);
  closeEndpoint(e);
}

TEST(VerbsSimAbi, WrongUseFailsWithAnErrnoNeverACrash) {
  EXPECT_EQ(V().openDevice(nullptr), nullptr);
  EXPECT_EQ(V().allocPd(nullptr), nullptr);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(V().deallocPd(nullptr), EINVAL);
  EXPECT_EQ(V().destroyQp(nullptr), EINVAL);
  EXPECT_EQ(V().destroyCq(nullptr), EINVAL);
  EXPECT_EQ(V().deregMr(nullptr), EINVAL);
  EXPECT_EQ(V().queryPort(nullptr, 1, nullptr), EINVAL);
  Endpoint a = makeEndpoint("mlx5_0");
  Endpoint b = makeEndpoint("mlx5_1");
  char buf[64];
  EXPECT_EQ(V().regMr(a.pd, buf, sizeof buf, kIbvAccessRemoteWrite), nullptr);  // remote write needs local write
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(V().regMr(a.pd, buf, 0, kIbvAccessLocalWrite), nullptr);
  IbvMr* mr = V().regMr(a.pd, buf, sizeof buf, kIbvAccessLocalWrite);
  ASSERT_NE(mr, nullptr);
  EXPECT_EQ(V().deallocPd(a.pd), EBUSY);  // MRs and a QP
  EXPECT_EQ(V().destroyCq(a.cq), EBUSY);  // a QP uses it
  IbvQpInitAttr init{};
  init.sendCq = b.cq;  // another context's CQ
  init.recvCq = b.cq;
  init.qpType = kIbvQptRc;
  init.cap = {1, 1, 1, 1, 0};
  EXPECT_EQ(V().createQp(a.pd, &init), nullptr);
  EXPECT_EQ(errno, EINVAL);
  init.sendCq = a.cq;
  init.recvCq = a.cq;
  init.cap.maxSendWr = 1 << 20;
  EXPECT_EQ(V().createQp(a.pd, &init), nullptr);
  init.cap.maxSendWr = 1;
  init.qpType = 4;  // UD
  EXPECT_EQ(V().createQp(a.pd, &init), nullptr);
  EXPECT_EQ(V().closeDevice(a.ctx), -1);  // PDs and CQs open
  EXPECT_EQ(errno, EBUSY);
  EXPECT_EQ(V().deregMr(mr), 0);
  EXPECT_EQ(V().deregMr(mr), EINVAL);  // double deregistration
  IbvQp* qp = a.qp;
  EXPECT_EQ(V().destroyQp(qp), 0);
  EXPECT_EQ(V().destroyQp(qp), EINVAL);  // double destroy
  a.qp = nullptr;
  closeEndpoint(a);
  closeEndpoint(b);
}

}  // namespace
}  // namespace railtune::verbs_sim::test
