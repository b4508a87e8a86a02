// The capture driven with NCCL's event order for one rank of a ring AllReduce over 2 channels (ProxyOps,
// ProxySteps, NetPlugin events and KernelCh), then the same rules on P2p operations and misorderings.
#include <gtest/gtest.h>

#include "formats/net_event.h"
#include "profiler_plugin/capture/mask.h"
#include "profiler_plugin/capture/net_decode.h"
#include "tests/unit/profiler_plugin/capture/profiler_capture_support.h"

namespace railtune::profiler {
namespace {

using namespace railtune::profiler::testing;

constexpr EventMask kAll = kAllProfileMask;
constexpr size_t kStepBytes = 1 << 20;

// One send step as NCCL's net proxy records it: GPU wait 10 ns, peer wait 20 ns, send wait 30 ns.
void sendStep(CaptureEngine& engine, Event* proxyOp, int step, void* netData, int64_t netId) {
  Event* e = engine.startEvent(proxyStepEvent(proxyOp, step));
  ASSERT_NE(e, nullptr);
  engine.recordEventState(e, EventState::ProxyStepSendGpuWait, transferred(7));  // a stale size
  advance(10);
  engine.recordEventState(e, EventState::ProxyStepSendPeerWait, transferred(7));
  advance(20);
  engine.recordEventState(e, EventState::ProxyStepSendWait, transferred(kStepBytes));
  EXPECT_EQ(engine.startEvent(netPluginEvent(e, netId, netData)), nullptr);  // decoded, nothing to stop
  advance(30);
  engine.stopEvent(e);
}

// One receive step: receive wait 40 ns, flush wait 5 ns, GPU wait 5 ns.
void recvStep(CaptureEngine& engine, Event* proxyOp, int step, void* netData, int64_t netId) {
  Event* e = engine.startEvent(proxyStepEvent(proxyOp, step));
  ASSERT_NE(e, nullptr);
  engine.recordEventState(e, EventState::ProxyStepRecvWait, transferred(3));
  EXPECT_EQ(engine.startEvent(netPluginEvent(e, netId, netData)), nullptr);
  advance(40);
  engine.recordEventState(e, EventState::ProxyStepRecvFlushWait, transferred(kStepBytes));
  advance(5);
  engine.recordEventState(e, EventState::ProxyStepRecvGpuWait, transferred(kStepBytes));
  advance(5);
  engine.stopEvent(e);
}

class ProfilerCaptureRing : public ::testing::Test {
 protected:
  RecordingSink sink;
  CaptureEngine engine{commOf(1, 4), testOptions(kAll), &sink};
  railtuneNetEventDescr_v1_t railtuneNet{};
  NcclNetIbDescrV1 ib{};
  NcclNetSockDescrV1 sock{};

  void SetUp() override {
    railtuneNet.type = railtuneNetEventSend;
    railtuneNet.device = 3;
    railtuneNet.hca = "mlx5_3";
    railtuneNet.netdev = "ib3";
    railtuneNet.rail = 3;
    railtuneNet.plane = 1;
    railtuneNet.peerHost = "node-b";
    railtuneNet.peerRank = 2;
    ib.type = kNcclProfileQp;
    ib.qp.device = 2;
    ib.qp.qpNum = 417;
    sock.type = kNcclProfileSocket;
    sock.sock.fd = 17;
  }

  // Rank 1 of a 4-rank ring: on each channel it sends to rank 2 and receives from rank 0, 2 steps each.
  // Channel 0 goes through railtune's net plugin, channel 1's send over NCCL's IB, its receive over
  // NCCL's sockets.
  void runChannels(Event* coll) {
    const int64_t railtuneId = RAILTUNE_PROFILER_NET_TYPE | RAILTUNE_PROFILER_NET_VERSION;
    Event* ops[4];
    for (int c = 0; c < 2; ++c) {
      ops[2 * c] = engine.startEvent(proxyOpEvent(coll, c, 2, true, 2));
      ops[2 * c + 1] = engine.startEvent(proxyOpEvent(coll, c, 0, false, 2));
      ASSERT_NE(ops[2 * c], nullptr);
      ASSERT_NE(ops[2 * c + 1], nullptr);
    }
    for (int s = 0; s < 2; ++s) {
      sendStep(engine, ops[0], s, &railtuneNet, railtuneId);
      recvStep(engine, ops[1], s, &railtuneNet, railtuneId);
      sendStep(engine, ops[2], s, &ib, kNcclNetTypeIb | 1);
      recvStep(engine, ops[3], s, &sock, kNcclNetTypeSocket | 1);
    }
    for (Event* op : ops) engine.stopEvent(op);
  }
};

TEST_F(ProfilerCaptureRing, CompletesAtTheLastKernelChannelNotAtCollStop) {
  Event* coll = engine.startEvent(collEvent("AllReduce", 1 << 20, "ncclFloat32", 2, 41));
  ASSERT_NE(coll, nullptr);
  advance(100);
  engine.stopEvent(coll);  // "enqueued": the GPU has not even started
  EXPECT_EQ(sink.size(), 0u);
  advance(100);
  Event* k0 = engine.startEvent(kernelChEvent(coll, 0));
  const int64_t kernelStart = fakeClock();
  advance(10);
  Event* k1 = engine.startEvent(kernelChEvent(coll, 1));
  runChannels(coll);
  EXPECT_EQ(sink.size(), 0u) << "the kernel channels are still running";
  StateArgs stop;
  stop.pTimer = 987654321;
  engine.recordEventState(k0, EventState::KernelChStop, stop);
  engine.stopEvent(k0);
  EXPECT_EQ(sink.size(), 0u);
  advance(50);
  engine.recordEventState(k1, EventState::KernelChStop, stop);
  engine.stopEvent(k1);
  const int64_t kernelEnd = fakeClock();

  const std::vector<OperationRecord> records = sink.records();
  ASSERT_EQ(records.size(), 1u);
  const OperationRecord& r = records[0];
  EXPECT_EQ(r.kind, RecordKind::Collective);
  EXPECT_EQ(r.comm, 0xc0ffeeu);
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.nRanks, 4);
  EXPECT_EQ(r.seq, 41u);
  EXPECT_EQ(r.operation.view(), "AllReduce");
  EXPECT_EQ(r.bytes, 4u << 20);
  EXPECT_EQ(r.datatype.view(), "ncclFloat32");
  EXPECT_EQ(r.algorithm.view(), "RING");
  EXPECT_EQ(r.protocol.view(), "SIMPLE");
  EXPECT_EQ(r.channels, 2);
  EXPECT_EQ(r.timing, TimingSource::Kernel);
  EXPECT_EQ(r.start.monotonicNs, kernelStart);
  EXPECT_EQ(r.end.monotonicNs, kernelEnd);
  EXPECT_EQ(r.end.realtimeNs - r.start.realtimeNs, kernelEnd - kernelStart);
  EXPECT_EQ(r.eventsDropped, 0u);
  ASSERT_EQ(r.nFlows, 4u);
  EXPECT_EQ(r.flowsDropped, 0u);
}

TEST_F(ProfilerCaptureRing, FlowsCarryBytesStepsWaitsAndTheirNic) {
  Event* coll = engine.startEvent(collEvent("AllReduce", 1 << 20, "ncclFloat32", 2, 1));
  engine.stopEvent(coll);
  Event* k0 = engine.startEvent(kernelChEvent(coll, 0));
  Event* k1 = engine.startEvent(kernelChEvent(coll, 1));
  runChannels(coll);
  engine.stopEvent(k0);
  engine.stopEvent(k1);
  const std::vector<OperationRecord> records = sink.records();
  ASSERT_EQ(records.size(), 1u);
  const OperationRecord& r = records[0];
  ASSERT_EQ(r.nFlows, 4u);
  // Channel order, sends first.
  const NetFlow& send0 = r.flows[0];
  EXPECT_EQ(send0.channel, 0);
  EXPECT_TRUE(send0.send);
  EXPECT_EQ(send0.peer, 2);
  EXPECT_EQ(send0.bytes, 2 * kStepBytes);  // the size at SendWait, not the stale one before
  EXPECT_EQ(send0.steps, 2u);
  EXPECT_EQ(send0.waitNs, 2u * (20 + 30));  // SendPeerWait + SendWait, not SendGPUWait
  EXPECT_EQ(send0.outstanding, 0u);
  EXPECT_EQ(send0.device, 3);
  EXPECT_EQ(send0.hca.view(), "mlx5_3");
  EXPECT_EQ(send0.rail, 3);
  EXPECT_EQ(send0.plane, 1);
  const NetFlow& recv0 = r.flows[1];
  EXPECT_EQ(recv0.channel, 0);
  EXPECT_FALSE(recv0.send);
  EXPECT_EQ(recv0.peer, 0);
  EXPECT_EQ(recv0.bytes, 2 * kStepBytes);
  EXPECT_EQ(recv0.waitNs, 2u * 40);  // RecvWait only
  const NetFlow& send1 = r.flows[2];
  EXPECT_EQ(send1.channel, 1);
  EXPECT_EQ(send1.hca.view(), "ib dev 2 qp 417");
  EXPECT_EQ(send1.device, 2);
  EXPECT_EQ(send1.rail, -1);
  const NetFlow& recv1 = r.flows[3];
  EXPECT_EQ(recv1.hca.view(), "socket fd 17");
  EXPECT_EQ(recv1.device, -1);
  EXPECT_EQ(engine.stats().unknownNetEvents, 0u);
}

TEST_F(ProfilerCaptureRing, CollStopAfterTheChildrenCompletesAtCollStop) {
  Event* coll = engine.startEvent(collEvent("AllReduce", 256, "ncclBfloat16", 2, 2));
  Event* k0 = engine.startEvent(kernelChEvent(coll, 0));
  Event* k1 = engine.startEvent(kernelChEvent(coll, 1));
  runChannels(coll);
  engine.stopEvent(k0);
  engine.stopEvent(k1);
  EXPECT_EQ(sink.size(), 0u) << "Coll has not stopped";
  engine.stopEvent(coll);
  ASSERT_EQ(sink.size(), 1u);
  EXPECT_EQ(sink.records()[0].bytes, 512u);
}

TEST_F(ProfilerCaptureRing, UnknownNetPluginIdsAreCountedAndIgnored) {
  Event* coll = engine.startEvent(collEvent("AllReduce", 8, "ncclFloat32", 1, 3));
  Event* op = engine.startEvent(proxyOpEvent(coll, 0, 2, true, 1));
  Event* step = engine.startEvent(proxyStepEvent(op, 0));
  int data = 0;
  EXPECT_EQ(engine.startEvent(netPluginEvent(step, (9 << 16) | 1, &data)), nullptr);
  EXPECT_EQ(engine.startEvent(netPluginEvent(step, kNcclNetTypeIb | 7, &data)), nullptr);  // unknown version
  EXPECT_EQ(engine.stats().unknownNetEvents, 2u);
  engine.stopEvent(step);
  engine.stopEvent(op);
  engine.stopEvent(coll);
  Event* k = engine.startEvent(kernelChEvent(coll, 0));
  engine.stopEvent(k);
  ASSERT_EQ(sink.size(), 1u);
  EXPECT_EQ(sink.records()[0].flows[0].hca.view(), "");
}

TEST(ProfilerCaptureLegacy, AbiV1ToV3BytesComeFromTheProxyOpsCumulativeTransSize) {
  RecordingSink sink;
  CaptureOptions options = testOptions(kAllProfileMask);
  options.kernelEvents = false;  // profiler v1/v2: no KernelCh events; nRanks unknown
  CaptureEngine engine(CommInfo{}, options, &sink);
  Event* coll = engine.startEvent(collEvent("AllReduce", 1000, "ncclFloat32", 1, 5));
  engine.stopEvent(coll);
  Event* op = engine.startEvent(proxyOpEvent(coll, 0, 1, true, 2));
  StateArgs args;
  for (size_t sent : {0u, 2000u, 4000u}) {
    args.transSize = sent;
    engine.recordEventState(op, EventState::ProxyOpSendPosted, args);
  }
  engine.stopEvent(op);
  const std::vector<OperationRecord> records = sink.records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].flows[0].bytes, 4000u);
  EXPECT_EQ(records[0].timing, TimingSource::Proxy);
  EXPECT_FALSE(records[0].comm.has_value());
}

TEST(ProfilerCaptureP2p, SendRecordsPeerBytesAndItsOwnSequence) {
  RecordingSink sink;
  CaptureEngine engine(commOf(0, 8), testOptions(kDefaultProfileMask), &sink);
  for (int i = 0; i < 2; ++i) {
    Event* send = engine.startEvent(p2pEvent("Send", 1000, "ncclInt8", 3, 1));
    ASSERT_NE(send, nullptr);
    engine.stopEvent(send);
    Event* op = engine.startEvent(proxyOpEvent(send, 0, 3, true, 4));
    Event* k = engine.startEvent(kernelChEvent(send, 0));
    advance(10);
    engine.stopEvent(k);
    EXPECT_EQ(sink.size(), static_cast<size_t>(i)) << "the ProxyOp is still open";
    engine.stopEvent(op);
  }
  const std::vector<OperationRecord> records = sink.records();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].kind, RecordKind::P2p);
  EXPECT_EQ(records[0].operation.view(), "Send");
  EXPECT_EQ(records[0].peer, 3);
  EXPECT_EQ(records[0].bytes, 1000u);
  EXPECT_EQ(records[0].algorithm.view(), "");
  EXPECT_EQ(records[0].seq, 0u);
  EXPECT_EQ(records[1].seq, 1u);
  ASSERT_EQ(records[0].nFlows, 1u);
  EXPECT_EQ(records[0].flows[0].steps, 0u) << "no ProxyStep in the default mask";
}

TEST(ProfilerCapturePxn, ForeignParentsAreNeverDereferenced) {
  RecordingSink sink;
  CaptureEngine engine(commOf(0, 8), testOptions(kAllProfileMask), &sink);
  // An address in another process: touching it here would be a wild read (ASan would say so).
  void* foreign = reinterpret_cast<void*>(0x10);
  EXPECT_EQ(engine.startEvent(proxyOpEvent(foreign, 0, 5, true, 2, getpid() + 1)), nullptr);
  EXPECT_EQ(engine.stats().foreignParents, 1u);
  // Its steps then arrive with the NULL handle NCCL kept for the ProxyOp.
  EXPECT_EQ(engine.startEvent(proxyStepEvent(nullptr, 0)), nullptr);
  // A parent that is no event of this engine, in this process, is not dereferenced either.
  int stranger = 0;
  EXPECT_EQ(engine.startEvent(proxyOpEvent(&stranger, 0, 5, true, 2)), nullptr);
  EXPECT_EQ(engine.startEvent(kernelChEvent(&stranger, 0)), nullptr);
  EXPECT_EQ(engine.stats().orphans, 3u);
  EXPECT_EQ(sink.size(), 0u);
}

TEST(ProfilerCaptureCompletion, WithoutKernelEventsTheLastProxyOpStopCompletes) {
  RecordingSink sink;
  const EventMask mask = static_cast<EventMask>(EventType::Coll) | static_cast<EventMask>(EventType::ProxyOp);
  CaptureEngine engine(commOf(0, 2), testOptions(mask), &sink);
  Event* coll = engine.startEvent(collEvent("AllGather", 100, "ncclFloat16", 2, 9));
  engine.stopEvent(coll);
  EXPECT_EQ(sink.size(), 0u) << "Coll stop means enqueued; the ProxyOps have not started";
  Event* a = engine.startEvent(proxyOpEvent(coll, 0, 1, true, 1));
  const int64_t first = fakeClock();
  Event* b = engine.startEvent(proxyOpEvent(coll, 1, 1, true, 1));
  advance(70);
  engine.stopEvent(a);
  EXPECT_EQ(sink.size(), 0u);
  advance(30);
  engine.stopEvent(b);
  ASSERT_EQ(sink.size(), 1u);
  const OperationRecord r = sink.records()[0];
  EXPECT_EQ(r.timing, TimingSource::Proxy);
  EXPECT_EQ(r.start.monotonicNs, first);
  EXPECT_EQ(r.end.monotonicNs - r.start.monotonicNs, 100);
  EXPECT_EQ(r.bytes, 100u * 2 * 2) << "AllGather: count x type size x nRanks";
}

TEST(ProfilerCaptureCompletion, AnOperationWithoutChildrenIsCompletedByTheNextOne) {
  RecordingSink sink;
  const EventMask mask = static_cast<EventMask>(EventType::Coll) | static_cast<EventMask>(EventType::ProxyOp);
  CaptureEngine engine(commOf(0, 2), testOptions(mask), &sink);
  Event* local = engine.startEvent(collEvent("AllReduce", 4, "ncclFloat32", 2, 1));  // NVLink only
  advance(5);
  engine.stopEvent(local);
  Event* net = engine.startEvent(collEvent("AllReduce", 4, "ncclFloat32", 2, 2));
  engine.stopEvent(net);
  EXPECT_EQ(sink.size(), 0u);
  Event* op = engine.startEvent(proxyOpEvent(net, 0, 1, true, 1));
  EXPECT_EQ(sink.size(), 1u) << "the proxy took the next operation: the first is done";
  engine.stopEvent(op);
  const std::vector<OperationRecord> records = sink.records();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].seq, 1u);  // the communicator's order
  EXPECT_EQ(records[0].timing, TimingSource::Enqueue);
  EXPECT_EQ(records[0].closedBy, CloseReason::Overtaken);
  EXPECT_EQ(records[1].closedBy, CloseReason::Events);
  EXPECT_EQ(records[0].end.monotonicNs - records[0].start.monotonicNs, 5);
  EXPECT_EQ(records[1].seq, 2u);
  EXPECT_EQ(records[1].timing, TimingSource::Proxy);
}

TEST(ProfilerCaptureCompletion, OperationsOfOneGroupDoNotOvertakeEachOther) {
  RecordingSink sink;
  CaptureEngine engine(commOf(0, 4), testOptions(kDefaultProfileMask), &sink);
  // One group: NCCL starts both task events, then stops both; both run in one kernel.
  Event* send = engine.startEvent(p2pEvent("Send", 16, "ncclInt8", 1, 1));
  Event* recv = engine.startEvent(p2pEvent("Recv", 16, "ncclInt8", 3, 1));
  engine.stopEvent(send);
  engine.stopEvent(recv);
  Event* recvKernel = engine.startEvent(kernelChEvent(recv, 1));
  engine.stopEvent(recvKernel);
  ASSERT_EQ(sink.size(), 1u);
  EXPECT_EQ(sink.records()[0].operation.view(), "Recv");
  Event* sendKernel = engine.startEvent(kernelChEvent(send, 0));
  ASSERT_NE(sendKernel, nullptr) << "the Send is still waiting for its channel";
  engine.stopEvent(sendKernel);
  ASSERT_EQ(sink.size(), 2u);
  EXPECT_EQ(sink.records()[1].timing, TimingSource::Kernel);
}

TEST(ProfilerCaptureCompletion, AKernelStartClosesEarlierOperationsAndFinalizeTheRest) {
  RecordingSink sink;
  {
    CaptureEngine engine(commOf(0, 2), testOptions(kDefaultProfileMask), &sink);
    Event* dropped = engine.startEvent(collEvent("AllReduce", 4, "ncclFloat32", 4, 7));  // its KernelCh never come
    engine.stopEvent(dropped);
    Event* running = engine.startEvent(collEvent("AllReduce", 4, "ncclFloat32", 1, 8));
    engine.stopEvent(running);
    EXPECT_EQ(sink.size(), 0u);
    ASSERT_NE(engine.startEvent(kernelChEvent(running, 0)), nullptr);  // never stops: not complete
    EXPECT_EQ(sink.size(), 1u) << "the next kernel started: seq 7 is done";
    Event* waiting = engine.startEvent(collEvent("AllReduce", 4, "ncclFloat32", 2, 9));
    engine.stopEvent(waiting);
  }
  const std::vector<OperationRecord> records = sink.records();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].seq, 7u);
  EXPECT_EQ(records[0].timing, TimingSource::Enqueue);
  EXPECT_EQ(records[0].closedBy, CloseReason::Overtaken);
  EXPECT_EQ(records[1].seq, 8u);
  EXPECT_EQ(records[1].kind, RecordKind::Hang) << "still running at finalize: never a completion";
  EXPECT_EQ(records[2].seq, 9u);
  EXPECT_EQ(records[2].closedBy, CloseReason::Finalize);
}

TEST(ProfilerCaptureDrops, AFullOperationPoolDropsAndANoticeSaysSo) {
  RecordingSink sink;
  const EventMask mask = static_cast<EventMask>(EventType::Coll) | static_cast<EventMask>(EventType::ProxyOp);
  CaptureEngine engine(commOf(0, 2), testOptions(mask, 2, 16), &sink);
  Event* a = engine.startEvent(collEvent("AllReduce", 1, "ncclFloat32", 1, 1));
  Event* b = engine.startEvent(collEvent("AllReduce", 1, "ncclFloat32", 1, 2));
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(engine.startEvent(collEvent("AllReduce", 1, "ncclFloat32", 1, 3)), nullptr);
  engine.stopEvent(nullptr);  // what NCCL then does with the NULL handle: tolerated
  for (Event* coll : {a, b}) {
    engine.stopEvent(coll);
    Event* op = engine.startEvent(proxyOpEvent(coll, 0, 1, true, 1));
    engine.stopEvent(op);
  }
  std::vector<OperationRecord> records = sink.records();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].eventsDropped, 0u) << "not folded into an unrelated record";
  engine.housekeep(fakeClock());
  records = sink.records();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[2].kind, RecordKind::Lost);
  EXPECT_EQ(records[2].operationsDropped, 1u);
  EXPECT_EQ(records[2].comm, std::optional<uint64_t>(0xc0ffee));
  engine.housekeep(fakeClock());
  EXPECT_EQ(sink.size(), 3u) << "said once";
  EXPECT_NE(engine.startEvent(collEvent("AllReduce", 1, "ncclFloat32", 1, 4)), nullptr) << "slots came back";
  EXPECT_EQ(engine.stats().eventsDropped, 1u);
  EXPECT_EQ(engine.stats().operationsDropped, 1u);
}

TEST(ProfilerCaptureDrops, ADroppedKernelChannelIsNotWaitedFor) {
  RecordingSink sink;
  CaptureEngine engine(commOf(0, 2), testOptions(kDefaultProfileMask, 16, 2), &sink);
  Event* coll = engine.startEvent(collEvent("AllReduce", 1, "ncclFloat32", 3, 1));
  engine.stopEvent(coll);
  Event* k[3];
  for (int c = 0; c < 3; ++c) k[c] = engine.startEvent(kernelChEvent(coll, c));
  EXPECT_EQ(k[2], nullptr);
  engine.stopEvent(k[2]);  // NULL: tolerated
  engine.stopEvent(k[0]);
  EXPECT_EQ(sink.size(), 0u);
  engine.stopEvent(k[1]);
  ASSERT_EQ(sink.size(), 1u);
  EXPECT_EQ(sink.records()[0].eventsDropped, 1u);
}

TEST(ProfilerCaptureMisuse, DoubleStopsAndStrangeHandlesAreCounted) {
  RecordingSink sink;
  CaptureEngine engine(commOf(0, 2), testOptions(kDefaultProfileMask), &sink);
  Event* coll = engine.startEvent(collEvent("AllReduce", 1, "ncclFloat32", 1, 1));
  engine.stopEvent(coll);
  engine.stopEvent(coll);
  Event stranger;
  engine.stopEvent(&stranger);
  engine.recordEventState(&stranger, EventState::ProxyStepSendWait, transferred(1));
  EXPECT_EQ(engine.stats().misuse, 2u);
  Event* k = engine.startEvent(kernelChEvent(coll, 0));
  engine.stopEvent(k);
  EXPECT_EQ(sink.size(), 1u);
}

}  // namespace
}  // namespace railtune::profiler
