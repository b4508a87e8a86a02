// The protocol clock a test controls (`clock stop|step|run`): what depends on the ACK timeout and the RNR
// wait (resends, retries, RNR NAKs) counted exactly, one step at a time, whatever the machine's speed; and
// `reset`, which lets one process use another rendezvous folder, host and fabric once nothing is live.
#include <arpa/inet.h>

#include <cerrno>

#include "tests/emulator/verbs_sim/verbs_sim_test_util.h"

namespace railtune::verbs_sim::test {
namespace {

// A QP connected to itself over RoCE, where the address needs a GRH (GID index 0 of port 1).
void connectSelfByGid(Endpoint& e) {
  ASSERT_EQ(toInit(e.qp), 0);
  IbvQpAttr attr{};
  attr.qpState = kIbvQpsRtr;
  attr.pathMtu = kIbvMtu4096;
  attr.destQpNum = e.qp->qpNum;
  attr.maxDestRdAtomic = 1;
  attr.minRnrTimer = 12;
  attr.ahAttr.isGlobal = 1;
  attr.ahAttr.grh.dgid = e.gid;
  attr.ahAttr.grh.hopLimit = 255;
  attr.ahAttr.portNum = 1;
  ASSERT_EQ(V().modifyQp(e.qp, &attr,
                         kIbvQpState | kIbvQpAv | kIbvQpPathMtu | kIbvQpDestQpn | kIbvQpRqPsn | kIbvQpMaxDestRdAtomic |
                             kIbvQpMinRnrTimer),
            0);
  ASSERT_EQ(toRts(e.qp), 0);
}

class VerbsSimClock : public TwoEndpoints {
 protected:
  VerbsSimClock() : TwoEndpoints(1 << 16) {}
  // Completions already in a's CQ: after a synchronous `clock step`, whatever the step fired is there.
  std::vector<IbvWc> completionsNow() {
    IbvWc wc[4];
    const int got = pollCq(a.cq, 4, wc);
    return got > 0 ? std::vector<IbvWc>(wc, wc + got) : std::vector<IbvWc>{};
  }
};

TEST_F(VerbsSimClock, WithTheClockStoppedNothingIsResentHoweverSlowTheMachine) {
  StoppedClock clock;
  ASSERT_NO_FATAL_FAILURE(connectPair(a, b));
  ASSERT_EQ(postEmptyRecv(b.qp, 1), 0);
  IbvSge big{addrOf(src.data()), 60000, srcMr->lkey};
  IbvSge tail{addrOf(src.data() + 60000), 4096, srcMr->lkey};
  IbvSendWr w1 = writeWr(1, &big, 1, addrOf(dst.data()), dstMr->rkey, kIbvWrRdmaWrite, 0);
  IbvSendWr w2 = writeWr(2, &tail, 1, addrOf(dst.data() + 60000), dstMr->rkey, kIbvWrRdmaWriteWithImm);
  w1.next = &w2;
  IbvSendWr* bad = nullptr;
  ASSERT_EQ(postSend(a.qp, &w1, &bad), 0);
  ASSERT_EQ(pollFor(a.cq, 1).size(), 1u);
  ASSERT_EQ(pollFor(b.cq, 1).size(), 1u);
  const QpCounters requester = countersOf(a);
  EXPECT_EQ(requester.packetsSent, 2u);
  EXPECT_EQ(requester.bytesSent, 64096u);
  EXPECT_EQ(requester.retries, 0u);
  const QpCounters responder = countersOf(b);
  EXPECT_EQ(responder.packetsReceived, 2u);
  EXPECT_EQ(responder.bytesReceived, 64096u);
}

// NCCL's timeout 20 at time scale 0.002: 4.096 us x 2^20 x 0.002 = 8.59 ms a try. Each step is one timer
// decision, counted at once: no retry before the timeout, one per timeout after, RETRY_EXC_ERR at the
// (retry_cnt + 1)th.
TEST_F(VerbsSimClock, LostAcksRetryOncePerAckTimeoutAndEndInRetryExceeded) {
  RtsParams p;
  p.timeout = 20;
  p.retry = 3;
  ASSERT_NO_FATAL_FAILURE(connectPair(a, b, p));
  ASSERT_EQ(simControl("time_scale 0.002"), 0);
  ASSERT_EQ(simControl("drop_acks on"), 0);
  {
    StoppedClock clock;
    ASSERT_EQ(post(writeWr(1, nullptr, 0, 0, 0, kIbvWrRdmaWrite, 0)), 0);
    ASSERT_EQ(awaitCounters(a, [](const QpCounters& c) { return c.packetsSent >= 1; }).packetsSent, 1u);
    StoppedClock::step(8.5);  // just short of the timeout
    EXPECT_EQ(countersOf(a).retries, 0u);
    EXPECT_EQ(countersOf(a).packetsSent, 1u);
    StoppedClock::step(0.2);
    EXPECT_EQ(countersOf(a).retries, 1u);
    EXPECT_EQ(countersOf(a).packetsSent, 2u);  // went back and resent
    for (uint64_t retry = 2; retry <= 3; ++retry) {
      StoppedClock::step(8.7);
      EXPECT_EQ(countersOf(a).retries, retry);
      EXPECT_TRUE(completionsNow().empty()) << "retry " << retry;
    }
    StoppedClock::step(8.7);
    const std::vector<IbvWc> wcs = completionsNow();
    ASSERT_EQ(wcs.size(), 1u);
    EXPECT_EQ(wcs[0].status, kIbvWcRetryExcErr);  // unsignaled: an error completes anyway
    EXPECT_EQ(wcs[0].wrId, 1u);
    EXPECT_EQ(countersOf(a).state, kIbvQpsErr);
  }
  EXPECT_EQ(simControl("drop_acks off"), 0);
  EXPECT_EQ(simControl("time_scale 1"), 0);
}

// min_rnr_timer 1 is 10 us, raised to the simulator's floor of 20 us: the requester resends only once the
// stepped clock passes the wait, and with rnr_retry 2 the third NAK ends the WR.
TEST_F(VerbsSimClock, RnrNaksResendOnlyAfterTheRnrWaitAndEndInRnrRetryExceeded) {
  RtsParams p;
  p.rnrRetry = 2;
  p.minRnrTimer = 1;
  ASSERT_NO_FATAL_FAILURE(connectPair(a, b, p));
  StoppedClock clock;
  IbvSendWr wr = writeWr(1, nullptr, 0, 0, 0, kIbvWrRdmaWriteWithImm);  // b posted no receive
  ASSERT_EQ(post(wr), 0);
  for (uint64_t nak = 1; nak <= 2; ++nak) {
    ASSERT_EQ(awaitCounters(a, [nak](const QpCounters& c) { return c.rnrNaks >= nak; }).rnrNaks, nak);
    StoppedClock::step(0.01);
    EXPECT_EQ(countersOf(a).packetsSent, nak) << "resent before the RNR wait ended";
    StoppedClock::step(0.02);
    EXPECT_EQ(countersOf(a).packetsSent, nak + 1);
  }
  ASSERT_EQ(awaitCounters(a, [](const QpCounters& c) { return c.rnrNaks >= 3; }).rnrNaks, 3u);
  const std::vector<IbvWc> wcs = pollFor(a.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, kIbvWcRnrRetryExcErr);
  EXPECT_EQ(countersOf(a).packetsSent, 3u);
  EXPECT_EQ(countersOf(b).state, kIbvQpsRts);  // an RNR is no error at the responder
}

TEST(VerbsSimClockCommands, StepNeedsAStoppedClockAndMilliseconds) {
  EXPECT_EQ(simControl("clock step 1"), -1);  // running
  EXPECT_EQ(simControl("clock sideways"), -1);
  ASSERT_EQ(simControl("clock stop"), 0);
  EXPECT_EQ(simControl("clock stop"), 0);  // idempotent
  EXPECT_EQ(simControl("clock step -1"), -1);
  EXPECT_EQ(simControl("clock step soon"), -1);
  EXPECT_EQ(simControl("clock step 0.5"), 0);
  EXPECT_EQ(simControl("clock run"), 0);
  EXPECT_EQ(simControl("clock run"), 0);
}

// reset: the next call reads the environment again. The test moves this process to host1 of another fabric
// in another folder and back to what SimLib set up, so the tests after it find the simulator as before.
class VerbsSimReset : public ::testing::Test {
 protected:
  void TearDown() override {
    setenv("RAILTUNE_VERBS_SIM_DIR", SimLib::get().dir.c_str(), 1);
    setenv("RAILTUNE_VERBS_SIM_HOST", "host0", 1);
    setenv("RAILTUNE_VERBS_SIM_FABRIC", "gb300", 1);
    EXPECT_EQ(simControl("reset"), 0);
    if (!otherDir.empty()) std::filesystem::remove_all(otherDir);
  }
  std::string otherDir;
};

TEST_F(VerbsSimReset, IsRefusedWhileObjectsAreLiveNamingHowManyOfEach) {
  Endpoint e = makeEndpoint("mlx5_0");
  IbvContext* second = openByName("mlx5_1");
  ASSERT_NE(second, nullptr);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(simControl("reset"), -1);
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("reset: the process still holds 2 contexts, 1 PD, 1 CQ, 1 QP"), std::string::npos) << said;
  EXPECT_EQ(V().closeDevice(second), 0);
  closeEndpoint(e);
  EXPECT_EQ(simControl("reset"), 0);
}

TEST_F(VerbsSimReset, TheNextCallReadsFolderHostFabricAndSettingsAfresh) {
  {
    Endpoint e = makeEndpoint("mlx5_0");  // an agent runs in SimLib's folder
    closeEndpoint(e);
  }
  int n = 0;
  IbvDevice** before = V().getDeviceList(&n);
  ASSERT_EQ(n, 4);
  IbvDevice* oldDevice = before[0];
  V().freeDeviceList(before);
  ASSERT_EQ(simControl("drop_acks on"), 0);
  ASSERT_EQ(simControl("clock stop"), 0);
  char pattern[] = "/tmp/vsim-reset-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  otherDir = pattern;
  setenv("RAILTUNE_VERBS_SIM_DIR", otherDir.c_str(), 1);
  setenv("RAILTUNE_VERBS_SIM_HOST", "host1", 1);
  setenv("RAILTUNE_VERBS_SIM_FABRIC", "dgx-h100-roce", 1);
  ASSERT_EQ(simControl("reset"), 0);

  IbvDevice** after = V().getDeviceList(&n);
  ASSERT_EQ(n, 8);  // dgx-h100-roce: 8 ConnectX-7
  V().freeDeviceList(after);
  errno = 0;
  EXPECT_EQ(V().openDevice(oldDevice), nullptr);  // a device of the forgotten fabric
  EXPECT_EQ(errno, EINVAL);
  Endpoint e = makeEndpoint("mlx5_7");
  ASSERT_NE(e.qp, nullptr);
  IbvPortAttr port{};
  ASSERT_EQ(V().queryPort(e.ctx, 1, &port), 0);
  EXPECT_EQ(port.linkLayer, kIbvLinkLayerEthernet);
  bool socketInNewFolder = false;
  for (const auto& entry : std::filesystem::directory_iterator(otherDir))
    socketInNewFolder |= entry.path().filename().string().starts_with("agent-");
  EXPECT_TRUE(socketInNewFolder) << "the agent did not start in " << otherDir;
  // drop_acks and the stopped clock were forgotten: a write to itself completes.
  std::vector<uint8_t> buf(256, 7);
  IbvMr* mr = V().regMr(e.pd, buf.data(), buf.size(), kAllAccess);
  ASSERT_NO_FATAL_FAILURE(connectSelfByGid(e));
  IbvSge sge{addrOf(buf.data()), 64, mr->lkey};
  IbvSendWr wr = writeWr(9, &sge, 1, addrOf(buf.data() + 128), mr->rkey);
  IbvSendWr* bad = nullptr;
  ASSERT_EQ(postSend(e.qp, &wr, &bad), 0);
  const std::vector<IbvWc> wcs = pollFor(e.cq, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, kIbvWcSuccess);
  EXPECT_EQ(V().deregMr(mr), 0);
  closeEndpoint(e);
}

}  // namespace
}  // namespace railtune::verbs_sim::test
