// What the hang watchdog sees (InFlightSource::incomplete), and that the hot path allocates nothing.
#include <gtest/gtest.h>

#include "profiler_plugin/capture/mask.h"
#include "tests/support/allocation_counter.h"
#include "tests/unit/profiler_plugin/capture/profiler_capture_support.h"

namespace railtune::profiler {
namespace {

using namespace railtune::profiler::testing;

constexpr int64_t kSecondNs = 1000000000;

TEST(ProfilerCaptureInFlight, AStuckCollectiveIsReportedWithItsOutstandingFlows) {
  RecordingSink sink;
  CaptureEngine engine(commOf(2, 4), testOptions(kAllProfileMask), &sink);
  Event* coll = engine.startEvent(collEvent("AllReduce", 1024, "ncclFloat32", 2, 77));
  const int64_t started = fakeClock();
  engine.stopEvent(coll);
  Event* kernel = engine.startEvent(kernelChEvent(coll, 0));
  Event* send = engine.startEvent(proxyOpEvent(coll, 0, 3, true, 4));
  Event* recv = engine.startEvent(proxyOpEvent(coll, 0, 1, false, 4));
  Event* done = engine.startEvent(proxyStepEvent(send, 0));
  engine.stopEvent(done);
  Event* stuck = engine.startEvent(proxyStepEvent(send, 1));  // never stops
  ASSERT_NE(stuck, nullptr);
  engine.stopEvent(recv);
  advance(10 * kSecondNs);
  // A young operation is not reported.
  Event* young = engine.startEvent(collEvent("AllReduce", 8, "ncclFloat32", 1, 78));
  engine.stopEvent(young);
  ASSERT_NE(engine.startEvent(kernelChEvent(young, 0)), nullptr);

  std::vector<OperationRecord> out(4);
  ASSERT_EQ(engine.incomplete(fakeClock(), 5 * kSecondNs, out), 1u);
  const OperationRecord& hang = out[0];
  EXPECT_EQ(hang.kind, RecordKind::Hang);
  EXPECT_EQ(hang.seq, 77u);
  EXPECT_EQ(hang.rank, 2);
  EXPECT_EQ(hang.stuckForNs, static_cast<uint64_t>(fakeClock() - started));
  EXPECT_EQ(hang.start.monotonicNs, started);
  EXPECT_EQ(hang.end.monotonicNs, fakeClock());
  ASSERT_EQ(hang.nFlows, 2u);
  EXPECT_TRUE(hang.flows[0].send);
  EXPECT_EQ(hang.flows[0].peer, 3);
  EXPECT_EQ(hang.flows[0].outstanding, 3u) << "one open step and two not started of four";
  EXPECT_FALSE(hang.flows[1].send);
  EXPECT_EQ(hang.flows[1].outstanding, 0u) << "the receive finished";
  EXPECT_EQ(sink.size(), 0u);
  (void)kernel;
}

TEST(ProfilerCaptureInFlight, OperationsWaitingOnlyForUnstartedEventsAreNotHangs) {
  RecordingSink sink;
  CaptureEngine engine(commOf(0, 2), testOptions(kDefaultProfileMask), &sink);
  Event* queued = engine.startEvent(collEvent("AllReduce", 8, "ncclFloat32", 2, 1));
  engine.stopEvent(queued);
  Event* notEnqueued = engine.startEvent(collEvent("AllReduce", 8, "ncclFloat32", 2, 2));
  ASSERT_NE(notEnqueued, nullptr);
  advance(60 * kSecondNs);
  std::vector<OperationRecord> out(1);
  ASSERT_EQ(engine.incomplete(fakeClock(), kSecondNs, out), 1u) << "only the one never enqueued";
  EXPECT_EQ(out[0].seq, 2u);
}

TEST(ProfilerCaptureInFlight, TheOldestComeFirstWhenTheSpanIsShort) {
  RecordingSink sink;
  CaptureEngine engine(commOf(0, 2), testOptions(kDefaultProfileMask), &sink);
  for (uint64_t seq = 1; seq <= 3; ++seq) {
    ASSERT_NE(engine.startEvent(collEvent("AllReduce", 8, "ncclFloat32", 1, seq)), nullptr);
    advance(kSecondNs);
  }
  std::vector<OperationRecord> out(2);
  ASSERT_EQ(engine.incomplete(fakeClock(), 0, out), 2u);
  EXPECT_EQ(out[0].seq, 1u);
  EXPECT_EQ(out[1].seq, 2u);
}

TEST(ProfilerCaptureHotPath, StartStopAndStatesAllocateNothing) {
  if (!railtune::testing::kCountsAllocations) GTEST_SKIP() << "operator new is the sanitizer's here";
  RecordingSink sink(16);
  CaptureEngine engine(commOf(0, 2), testOptions(kAllProfileMask), &sink);
  const size_t before = railtune::testing::gAllocations.load();
  for (uint64_t seq = 0; seq < 8; ++seq) {
    Event* coll = engine.startEvent(collEvent("AllReduce", 1 << 16, "ncclFloat32", 1, seq));
    engine.stopEvent(coll);
    Event* kernel = engine.startEvent(kernelChEvent(coll, 0));
    Event* op = engine.startEvent(proxyOpEvent(coll, 0, 1, true, 2));
    for (int s = 0; s < 2; ++s) {
      Event* step = engine.startEvent(proxyStepEvent(op, s));
      engine.recordEventState(step, EventState::ProxyStepSendWait, transferred(1 << 17));
      engine.stopEvent(step);
    }
    engine.stopEvent(op);
    engine.stopEvent(kernel);
  }
  EXPECT_EQ(railtune::testing::gAllocations.load() - before, 0u);
  EXPECT_EQ(sink.size(), 8u);
}

}  // namespace
}  // namespace railtune::profiler
