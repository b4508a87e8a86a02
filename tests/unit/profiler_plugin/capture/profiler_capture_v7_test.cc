// Profiler v7 in the capture (capture_phase.cc): KernelPhase events of many channels from several threads
// at once (NCCL 2.31 fires them from its profiler thread; a second communicator's thread may run beside
// it), the longest channel of each phase kept; the tag and path on the record; a copy-engine collective;
// event types the ABI lacks counted in the Lost notice. Meant to run under TSan as well.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "tests/unit/profiler_plugin/capture/profiler_capture_support.h"

namespace railtune::profiler {
namespace {

using namespace railtune::profiler::testing;

constexpr EventMask kV7Mask = static_cast<EventMask>(EventType::Coll) | static_cast<EventMask>(EventType::KernelCh) |
                              static_cast<EventMask>(EventType::KernelPhase) |
                              static_cast<EventMask>(EventType::CeColl);

CaptureOptions v7Options(EventMask mask = kV7Mask) {
  CaptureOptions options = testOptions(mask, 32, 1024);
  options.v7Events = true;
  return options;
}

EventDescriptor phaseEvent(void* parent, int channel, int phase, uint64_t startNs) {
  EventDescriptor d;
  d.type = EventType::KernelPhase;
  d.parent = parent;
  d.kernelPhase.channelId = channel;
  d.kernelPhase.phaseId = phase;
  d.kernelPhase.pTimer = startNs;
  return d;
}

// One channel of a collective: its KernelCh, three phases of (channel + 1) x base ns each, its stop.
void runChannel(CaptureEngine& engine, Event* coll, int channel) {
  Event* kernel = engine.startEvent(kernelChEvent(coll, channel));
  ASSERT_NE(kernel, nullptr);
  uint64_t at = 1000;
  for (int phase = 0; phase < 3; ++phase) {
    const uint64_t ns = static_cast<uint64_t>(channel + 1) * (phase + 1) * 100;
    Event* p = engine.startEvent(phaseEvent(kernel, channel, phase, at));
    ASSERT_NE(p, nullptr);
    StateArgs end;
    end.pTimer = at += ns;
    engine.recordEventState(p, EventState::KernelPhaseStop, end);
    engine.stopEvent(p);
  }
  StateArgs stop;
  stop.pTimer = at;
  engine.recordEventState(kernel, EventState::KernelChStop, stop);
  engine.stopEvent(kernel);
}

TEST(ProfilerCaptureV7, PhasesOfChannelsOnManyThreadsKeepTheLongestOfEach) {
  RecordingSink sink(64);
  constexpr int kChannels = 16;
  {
    CaptureEngine engine(commOf(0, 8), v7Options(), &sink);
    for (int round = 0; round < 8; ++round) {
      EventDescriptor coll = collEvent("AllReduce", 1024, "ncclFloat32", kChannels, static_cast<uint64_t>(round));
      coll.coll.userTag = round == 0 ? 0 : UINT64_MAX - static_cast<uint64_t>(round);
      Event* op = engine.startEvent(coll);
      ASSERT_NE(op, nullptr);
      engine.stopEvent(op);
      std::vector<std::thread> threads;
      for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
          for (int c = t; c < kChannels; c += 4) runChannel(engine, op, c);
        });
      }
      for (std::thread& thread : threads) thread.join();
    }
  }
  const std::vector<OperationRecord> records = sink.records();
  ASSERT_EQ(records.size(), 8u);
  for (size_t i = 0; i < records.size(); ++i) {
    const OperationRecord& r = records[i];
    EXPECT_EQ(r.closedBy, CloseReason::Events);
    EXPECT_EQ(r.userTag, i == 0 ? 0 : UINT64_MAX - i);
    EXPECT_EQ(r.path, OperationPath::Tuned);
    EXPECT_EQ(r.phases.channels, static_cast<uint32_t>(kChannels));
    for (size_t phase = 0; phase < kKernelPhases; ++phase) {
      EXPECT_TRUE(r.phases.timed[phase]);
      EXPECT_EQ(r.phases.longestNs[phase], kChannels * (phase + 1) * 100) << "phase " << phase;
    }
    EXPECT_FALSE(r.phases.incomplete);
  }
}

TEST(ProfilerCaptureV7, ACopyEngineCollectiveIsARecordOfItsOwnPath) {
  RecordingSink sink;
  {
    CaptureEngine engine(commOf(0, 8), v7Options(), &sink);
    EventDescriptor ce;
    ce.type = EventType::CeColl;
    ce.ceColl.func = "AllGather";
    ce.ceColl.count = 4096;
    ce.ceColl.datatype = "ncclInt8";
    ce.ceColl.seqNumber = 9;
    ce.ceColl.userTag = 7;
    Event* op = engine.startEvent(ce);
    ASSERT_NE(op, nullptr);
    advance(500);
    engine.stopEvent(op);
  }
  const std::vector<OperationRecord> records = sink.records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].path, OperationPath::CopyEngine);
  EXPECT_EQ(records[0].seq, 9u);
  EXPECT_EQ(records[0].userTag, 7u);
  EXPECT_EQ(records[0].bytes, 4096u * 8);  // AllGather: count per rank x ranks, as nccl-tests counts it
  EXPECT_EQ(records[0].closedBy, CloseReason::Enqueued);
  EXPECT_EQ(records[0].timing, TimingSource::Enqueue);
}

// Without v7 (an older ABI), a KernelPhase and its stop state are types it lacks: no handle, counted in
// the Lost notice (events of unknown operation), and the operation's record is untouched.
TEST(ProfilerCaptureV7, KernelPhaseThroughAnOlderAbiIsCountedAsDropped) {
  RecordingSink sink;
  CaptureEngine engine(commOf(0, 8), testOptions(kV7Mask), &sink);  // v7Events false
  Event* op = engine.startEvent(collEvent("AllReduce", 1024, "ncclFloat32", 1, 0));
  engine.stopEvent(op);
  Event* kernel = engine.startEvent(kernelChEvent(op, 0));
  EXPECT_EQ(engine.startEvent(phaseEvent(kernel, 0, 1, 10)), nullptr);
  EventDescriptor odd;
  odd.type = static_cast<EventType>(uint64_t{3});  // two bits: no event type
  EXPECT_EQ(engine.startEvent(odd), nullptr);
  engine.recordEventState(kernel, EventState::KernelPhaseStop, StateArgs{});
  engine.recordEventState(kernel, EventState::KernelChStop, StateArgs{});
  engine.stopEvent(kernel);
  engine.housekeep(fakeClock());
  EXPECT_EQ(engine.stats().unknownEvents, 3u);
  const std::vector<OperationRecord> records = sink.records();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_FALSE(records[0].phases.present());
  EXPECT_FALSE(records[0].userTag.has_value());
  EXPECT_EQ(records[1].kind, RecordKind::Lost);
  EXPECT_EQ(records[1].eventsDropped, 3u);
}

}  // namespace
}  // namespace railtune::profiler
