// The completion rules that keep the capture's slots bounded by the operations in flight (docs/profiler.md,
// "When an operation is complete"): each case NCCL produces where awaited events never come, run for far
// more operations than the pool holds, with every operation ending as a record or a counted loss.
#include <gtest/gtest.h>

#include <array>

#include "profiler_plugin/capture/mask.h"
#include "tests/unit/profiler_plugin/capture/profiler_capture_support.h"

namespace railtune::profiler {
namespace {

using namespace railtune::profiler::testing;

constexpr EventMask kColl = static_cast<EventMask>(EventType::Coll);
constexpr EventMask kP2p = static_cast<EventMask>(EventType::P2p);
constexpr EventMask kProxyOp = static_cast<EventMask>(EventType::ProxyOp);
constexpr EventMask kKernelCh = static_cast<EventMask>(EventType::KernelCh);
constexpr int kOperations = 20000;  // far more than the 32 slots of testOptions
constexpr int64_t kSecond = 1'000'000'000;

size_t countClosedBy(const std::vector<OperationRecord>& records, CloseReason reason) {
  size_t n = 0;
  for (const OperationRecord& r : records)
    n += r.kind != RecordKind::Hang && r.kind != RecordKind::Lost && r.closedBy == reason;
  return n;
}

// What one ncclSend/ncclRecv with the rank itself produces (the self pair of AlltoAll, Gather, Scatter and
// of every operation on a 1-rank communicator): the P2p event with its channels, nothing else.
TEST(ProfilerCaptureRules, SelfSendRecvNeedNoChildren) {
  RecordingSink sink(2 * kOperations);
  CaptureEngine engine(commOf(0, 1), testOptions(kDefaultProfileMask), &sink);
  for (int i = 0; i < kOperations; ++i) {
    Event* send = engine.startEvent(p2pEvent("Send", 64, "ncclInt8", 0, 2));
    Event* recv = engine.startEvent(p2pEvent("Recv", 64, "ncclInt8", 0, 2));
    ASSERT_NE(send, nullptr) << i;
    ASSERT_NE(recv, nullptr) << i;
    advance(100'000);
    engine.stopEvent(send);
    engine.stopEvent(recv);
  }
  const std::vector<OperationRecord> records = sink.records();
  ASSERT_EQ(records.size(), 2u * kOperations) << "every operation on disk before finalize";
  EXPECT_EQ(countClosedBy(records, CloseReason::Enqueued), 2u * kOperations);
  EXPECT_EQ(records.back().seq, static_cast<uint64_t>(kOperations - 1)) << "per peer and direction";
  EXPECT_EQ(engine.stats().eventsDropped, 0u);
}

TEST(ProfilerCaptureRules, AMaskWithoutChildrenClosesAtTheStop) {
  RecordingSink sink(kOperations);
  CaptureEngine engine(commOf(0, 8), testOptions(kColl), &sink);
  for (int i = 0; i < kOperations; ++i) {
    Event* coll = engine.startEvent(collEvent("AllReduce", 1024, "ncclFloat32", 4, static_cast<uint64_t>(i)));
    ASSERT_NE(coll, nullptr) << i;
    engine.stopEvent(coll);
  }
  const std::vector<OperationRecord> records = sink.records();
  ASSERT_EQ(records.size(), static_cast<size_t>(kOperations));
  EXPECT_EQ(countClosedBy(records, CloseReason::Enqueued), records.size());
  EXPECT_EQ(records[0].timing, TimingSource::Enqueue);
}

// coll,proxyop on a communicator whose ranks all share an NVLink domain: no ProxyOp ever comes. Under
// pool pressure the oldest idle operation is evicted for each new one; the last ones go by age.
TEST(ProfilerCaptureRules, ProxyOpsThatNeverComeAreEvictedThenAged) {
  RecordingSink sink(kOperations + 8);
  CaptureEngine engine(commOf(0, 8), testOptions(kColl | kProxyOp), &sink);
  for (int i = 0; i < kOperations; ++i) {
    Event* coll = engine.startEvent(collEvent("AllReduce", 1024, "ncclFloat32", 4, static_cast<uint64_t>(i)));
    ASSERT_NE(coll, nullptr) << i;
    advance(100'000);
    engine.stopEvent(coll);
  }
  EXPECT_EQ(sink.size(), static_cast<size_t>(kOperations - 32)) << "the pool holds the last 32";
  advance(kSecond / 2);
  engine.housekeep(fakeClock());
  EXPECT_LT(sink.size(), static_cast<size_t>(kOperations)) << "the newest are not a second old yet";
  advance(kSecond);
  engine.housekeep(fakeClock());
  const std::vector<OperationRecord> records = sink.records();
  ASSERT_EQ(records.size(), static_cast<size_t>(kOperations));
  EXPECT_EQ(countClosedBy(records, CloseReason::Evicted) + countClosedBy(records, CloseReason::Age),
            static_cast<size_t>(kOperations));
  for (size_t i = 1; i < records.size(); ++i) ASSERT_LT(records[i - 1].seq, records[i].seq) << "in order";
  EXPECT_EQ(engine.stats().operationsDropped, 0u);
}

TEST(ProfilerCaptureRules, AgeWaitsBehindARunningOperation) {
  RecordingSink sink;
  CaptureEngine engine(commOf(0, 2), testOptions(kColl | kProxyOp), &sink);
  Event* slow = engine.startEvent(collEvent("AllReduce", 1 << 20, "ncclFloat32", 1, 1));
  engine.stopEvent(slow);
  Event* flow = engine.startEvent(proxyOpEvent(slow, 0, 1, true, 8));
  Event* queued = engine.startEvent(collEvent("AllReduce", 4, "ncclFloat32", 1, 2));
  engine.stopEvent(queued);
  advance(10 * kSecond);
  engine.housekeep(fakeClock());
  EXPECT_EQ(sink.size(), 0u) << "seq 2 is queued behind seq 1, which is still on the network";
  engine.stopEvent(flow);
  ASSERT_EQ(sink.size(), 1u);
  advance(2 * kSecond);
  engine.housekeep(fakeClock());
  ASSERT_EQ(sink.size(), 2u);
  EXPECT_EQ(sink.records()[1].closedBy, CloseReason::Age);
}

TEST(ProfilerCaptureRules, ChildrenAfterAnAssumedCompletionAreOrphans) {
  RecordingSink sink;
  CaptureEngine engine(commOf(0, 2), testOptions(kColl | kProxyOp), &sink);
  Event* coll = engine.startEvent(collEvent("AllReduce", 4, "ncclFloat32", 1, 1));
  engine.stopEvent(coll);
  advance(2 * kSecond);
  engine.housekeep(fakeClock());
  ASSERT_EQ(sink.size(), 1u);
  EXPECT_EQ(engine.startEvent(proxyOpEvent(coll, 0, 1, true, 1)), nullptr);
  EXPECT_EQ(engine.startEvent(proxyOpEvent(coll, 1, 1, false, 1)), nullptr);
  engine.stopEvent(coll);  // NCCL stopping it again: counted, harmless
  EXPECT_EQ(engine.stats().orphans, 2u);
  EXPECT_EQ(engine.stats().misuse, 1u);
  EXPECT_EQ(sink.size(), 1u);
}

TEST(ProfilerCaptureRules, AFullPoolOfRunningOperationsDropsAndCounts) {
  RecordingSink sink(64);
  CaptureEngine engine(commOf(0, 2), testOptions(kDefaultProfileMask, 16, 256), &sink);
  std::vector<Event*> running;
  for (int i = 0; i < 16; ++i) {
    Event* coll = engine.startEvent(collEvent("AllReduce", 4, "ncclFloat32", 1, static_cast<uint64_t>(i)));
    engine.stopEvent(coll);
    ASSERT_NE(engine.startEvent(kernelChEvent(coll, 0)), nullptr);
    running.push_back(coll);
  }
  for (int i = 0; i < 5; ++i) EXPECT_EQ(engine.startEvent(collEvent("AllReduce", 4, "ncclFloat32", 1, 100)), nullptr);
  engine.housekeep(fakeClock());
  const std::vector<OperationRecord> records = sink.records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].kind, RecordKind::Lost);
  EXPECT_EQ(records[0].operationsDropped, 5u);
}

TEST(ProfilerCaptureRules, AReportedHangIsNotReplacedAtFinalize) {
  RecordingSink sink;
  {
    CaptureEngine engine(commOf(3, 8), testOptions(kDefaultProfileMask), &sink);
    Event* coll = engine.startEvent(collEvent("AllGather", 4, "ncclFloat32", 1, 0));
    engine.stopEvent(coll);
    Event* kernel = engine.startEvent(kernelChEvent(coll, 0));
    ASSERT_NE(kernel, nullptr);
    advance(5 * kSecond);
    std::array<OperationRecord, 4> hangs;
    ASSERT_EQ(engine.incomplete(fakeClock(), static_cast<uint64_t>(kSecond), hangs), 1u);
  }
  EXPECT_EQ(sink.size(), 0u) << "the watchdog's hang record stands; no completion, no second hang";
}

TEST(ProfilerCaptureRules, P2pSequenceNumbersCountPerPeerAndDirection) {
  RecordingSink sink;
  CaptureEngine engine(commOf(0, 4), testOptions(kP2p), &sink);
  const std::array<std::pair<const char*, int>, 5> calls{
      {{"Send", 1}, {"Send", 2}, {"Send", 1}, {"Recv", 1}, {"Recv", 1}}};
  for (const auto& [func, peer] : calls) engine.stopEvent(engine.startEvent(p2pEvent(func, 8, "ncclInt8", peer, 1)));
  const std::vector<OperationRecord> records = sink.records();
  ASSERT_EQ(records.size(), calls.size());
  const std::array<uint64_t, 5> expected{0, 0, 1, 0, 1};
  for (size_t i = 0; i < calls.size(); ++i) EXPECT_EQ(records[i].seq, expected[i]) << i;
}

// NCCL starts the parents of what it is asked for: asking for KernelCh alone still gives Coll events,
// which the capture takes so that the kernel events have an operation to time.
TEST(ProfilerCaptureRules, ParentsOfTheMaskAreTaken) {
  RecordingSink sink;
  CaptureEngine engine(commOf(0, 2), testOptions(kKernelCh), &sink);
  EXPECT_EQ(engine.activationMask(), kKernelCh) << "NCCL is asked for what the user asked";
  Event* coll = engine.startEvent(collEvent("AllReduce", 4, "ncclFloat32", 1, 1));
  ASSERT_NE(coll, nullptr);
  engine.stopEvent(coll);
  engine.stopEvent(engine.startEvent(kernelChEvent(coll, 0)));
  ASSERT_EQ(sink.size(), 1u);
  EXPECT_EQ(sink.records()[0].timing, TimingSource::Kernel);
}

TEST(ProfilerCaptureRules, ChildEventsDroppedAreCountedOnTheirOperation) {
  RecordingSink sink;
  CaptureEngine engine(commOf(0, 2), testOptions(kAllProfileMask, 16, 16), &sink);
  Event* coll = engine.startEvent(collEvent("AllReduce", 4, "ncclFloat32", 1, 1));
  engine.stopEvent(coll);
  Event* flow = engine.startEvent(proxyOpEvent(coll, 0, 1, true, 40));
  std::vector<Event*> steps;
  for (int s = 0; s < 20; ++s) steps.push_back(engine.startEvent(proxyStepEvent(flow, s)));
  for (Event* step : steps) engine.stopEvent(step);
  engine.stopEvent(flow);
  engine.stopEvent(engine.startEvent(kernelChEvent(coll, 0)));
  ASSERT_EQ(sink.size(), 1u);
  EXPECT_EQ(sink.records()[0].eventsDropped, 5u) << "15 slots after the ProxyOp's";
}

}  // namespace
}  // namespace railtune::profiler

namespace railtune::profiler {
namespace {

// The record's copy moves only the flows in use; every other member must come along (a member added
// to OperationRecord and forgotten in operator= fails here).
TEST(ProfilerRecordCopy, EveryMemberAndTheFlowsInUse) {
  OperationRecord r;
  r.kind = RecordKind::P2p;
  r.comm = 0xfeed;
  r.rank = 3;
  r.nRanks = 8;
  r.seq = 41;
  r.operation.assign("Send");
  r.bytes = 1 << 20;
  r.datatype.assign("ncclInt8");
  r.algorithm.assign("RING");
  r.protocol.assign("LL128");
  r.channels = 2;
  r.peer = 5;
  r.start = {11, 12};
  r.end = {13, 14};
  r.timing = TimingSource::Proxy;
  r.nFlows = 2;
  r.flows[1].peer = 5;
  r.flows[1].hca.assign("mlx5_1");
  r.flows[2].peer = 99;  // beyond nFlows: not copied
  r.flowsDropped = 6;
  r.stuckForNs = 7;
  r.eventsDropped = 8;
  r.closedBy = CloseReason::Evicted;
  r.operationsDropped = 9;
  OperationRecord copy;
  copy = r;
  const OperationRecord constructed(r);
  for (const OperationRecord* c : {static_cast<const OperationRecord*>(&copy), &constructed}) {
    EXPECT_EQ(c->kind, r.kind);
    EXPECT_EQ(c->comm, r.comm);
    EXPECT_EQ(c->rank, r.rank);
    EXPECT_EQ(c->nRanks, r.nRanks);
    EXPECT_EQ(c->seq, r.seq);
    EXPECT_EQ(c->operation.view(), "Send");
    EXPECT_EQ(c->bytes, r.bytes);
    EXPECT_EQ(c->datatype.view(), "ncclInt8");
    EXPECT_EQ(c->algorithm.view(), "RING");
    EXPECT_EQ(c->protocol.view(), "LL128");
    EXPECT_EQ(c->channels, 2);
    EXPECT_EQ(c->peer, 5);
    EXPECT_EQ(c->start.monotonicNs, 12);
    EXPECT_EQ(c->end.realtimeNs, 13);
    EXPECT_EQ(c->timing, TimingSource::Proxy);
    EXPECT_EQ(c->nFlows, 2u);
    EXPECT_EQ(c->flows[1].hca.view(), "mlx5_1");
    EXPECT_EQ(c->flows[2].peer, -1);
    EXPECT_EQ(c->flowsDropped, 6u);
    EXPECT_EQ(c->stuckForNs, 7u);
    EXPECT_EQ(c->eventsDropped, 8u);
    EXPECT_EQ(c->closedBy, CloseReason::Evicted);
    EXPECT_EQ(c->operationsDropped, 9u);
  }
}

}  // namespace
}  // namespace railtune::profiler

namespace railtune::profiler {
namespace {

// A sink that refuses the first pushes: the finalize's loss notice waits for room instead of vanishing.
class BusySink final : public RecordSink {
 public:
  bool push(const OperationRecord& record) noexcept override {
    if (refusals_ > 0) {
      --refusals_;
      return false;
    }
    if (record.kind == RecordKind::Lost) lost_ += record.operationsDropped;
    return true;
  }
  int refusals_ = 3;
  uint64_t lost_ = 0;
};

TEST(ProfilerCaptureRules, TheLastLossNoticeWaitsForTheWriterAtFinalize) {
  BusySink sink;
  {
    CaptureEngine engine(testing::commOf(0, 2), testing::testOptions(kDefaultProfileMask, 16, 64), &sink);
    for (int i = 0; i < 16; ++i) {
      Event* coll = engine.startEvent(testing::collEvent("AllReduce", 4, "ncclFloat32", 1, static_cast<uint64_t>(i)));
      engine.stopEvent(coll);
      ASSERT_NE(engine.startEvent(testing::kernelChEvent(coll, 0)), nullptr);  // running: holds its slot
    }
    EXPECT_EQ(engine.startEvent(testing::collEvent("AllReduce", 4, "ncclFloat32", 1, 99)), nullptr);
  }
  EXPECT_EQ(sink.lost_, 1u);
}

}  // namespace
}  // namespace railtune::profiler
