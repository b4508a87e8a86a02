// The hang watchdog's thread against fake sources and sinks: each hang reported once (record pushed,
// flushed, then one WARN), several communicators, completed operations left alone, unwatch during a
// scan, a prompt stop, the watchdog switched off, and a source that throws.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "profiler_plugin/watchdog/watchdog.h"
#include "tests/support/log_capture.h"
#include "tests/unit/profiler_plugin/watchdog/profiler_watchdog_fakes.h"

#if defined(__has_feature)
#define RT_TSAN __has_feature(thread_sanitizer)
#else
#define RT_TSAN 0
#endif

namespace railtune::profiler {
namespace {

using railtune::testing::captureLogger;
using railtune::testing::collective;
using railtune::testing::FakeSink;
using railtune::testing::FakeSource;
using railtune::testing::LogCapture;
using railtune::testing::monotonicNs;
using railtune::testing::waitFor;
using namespace std::chrono_literals;

constexpr int64_t kLongAgo = 3600LL * 1000000000;  // an hour before now

HangSettings fastSettings(std::chrono::milliseconds timeout = 50ms) {
  HangSettings s;
  s.timeoutNs = static_cast<uint64_t>(std::chrono::nanoseconds(timeout).count());
  s.interval = 5ms;
  return s;
}

WatchTarget target(InFlightSource* source, RecordSink* sink, std::function<void()> flush = {}) {
  WatchTarget t;
  t.source = source;
  t.sink = sink;
  t.flushNow = std::move(flush);
  t.log.setLogger(captureLogger);
  return t;
}

size_t warningsContaining(const std::string& text) {
  size_t n = 0;
  for (const auto& line : LogCapture::instance().warnings()) n += line.text.find(text) != std::string::npos;
  return n;
}

class WatchdogScan : public ::testing::Test {
 protected:
  void SetUp() override { LogCapture::instance().clear(); }
};

TEST_F(WatchdogScan, AHangIsPushedFlushedAndWarnedOnce) {
  FakeSource source;
  FakeSink sink;
  OperationRecord op = collective(0xabc, 7, "AllReduce");
  op.flows[0].channel = 0;
  op.flows[0].peer = 3;
  op.flows[0].send = true;
  op.flows[0].outstanding = 2;
  op.flows[0].hca.assign("mlx5_3");
  op.flows[0].device = 3;
  op.flows[0].rail = 3;
  op.nFlows = 1;
  source.add(op, monotonicNs() - kLongAgo);
  // At the flush the record is already in the sink and the WARN not yet written.
  int flushes = 0;
  size_t pushedAtFlush = 0, warnedAtFlush = 0;
  HangWatchdog watchdog(fastSettings());
  const WatchId id = watchdog.watch(target(&source, &sink, [&] {
    ++flushes;
    pushedAtFlush = sink.size();
    warnedAtFlush = warningsContaining("hang:");
  }));
  ASSERT_TRUE(waitFor([&] { return watchdog.hangsReported() == 1; })) << LogCapture::instance().dump();
  const int scansSeen = source.scans();
  ASSERT_TRUE(waitFor([&] { return source.scans() >= scansSeen + 10; }));  // ten more scans: no repeat
  watchdog.unwatch(id);

  ASSERT_EQ(sink.size(), 1u);
  const OperationRecord record = sink.records()[0];
  EXPECT_EQ(record.kind, RecordKind::Hang);
  EXPECT_EQ(record.seq, 7u);
  EXPECT_GE(record.stuckForNs, static_cast<uint64_t>(kLongAgo));
  EXPECT_EQ(flushes, 1);
  EXPECT_EQ(pushedAtFlush, 1u);
  EXPECT_EQ(warnedAtFlush, 0u);
  EXPECT_EQ(watchdog.hangsReported(), 1u);
  ASSERT_EQ(warningsContaining("hang:"), 1u) << LogCapture::instance().dump();
  EXPECT_EQ(warningsContaining("comm 0xabc rank 1/4 seq 7 AllReduce (RING/SIMPLE, 1048576 bytes, 2 channels)"), 1u);
  EXPECT_EQ(warningsContaining("outstanding: ch 0 peer 3 send 2 steps via mlx5_3 (dev 3 rail 3 plane -1)"), 1u);
}

TEST_F(WatchdogScan, TwoCommunicatorsEachGetTheirOwnHang) {
  FakeSource sourceA, sourceB;
  FakeSink sinkA, sinkB;
  sourceA.add(collective(0xa, 1, "AllReduce"), monotonicNs() - kLongAgo);
  sourceB.add(collective(0xb, 5, "AllGather"), monotonicNs() - kLongAgo);
  sourceB.add(collective(0xb, 6, "AllGather"), monotonicNs() - kLongAgo);
  HangWatchdog watchdog(fastSettings());
  const WatchId a = watchdog.watch(target(&sourceA, &sinkA));
  const WatchId b = watchdog.watch(target(&sourceB, &sinkB));
  EXPECT_NE(a, b);
  ASSERT_TRUE(waitFor([&] { return watchdog.hangsReported() == 3; })) << LogCapture::instance().dump();
  watchdog.unwatch(a);
  EXPECT_TRUE(watchdog.running());  // b is still watched
  watchdog.unwatch(b);
  EXPECT_FALSE(watchdog.running());
  ASSERT_EQ(sinkA.size(), 1u);
  EXPECT_EQ(sinkA.records()[0].comm, 0xau);
  ASSERT_EQ(sinkB.size(), 2u);
  EXPECT_EQ(sinkB.records()[0].comm, 0xbu);
  EXPECT_EQ(warningsContaining("comm 0xa rank"), 1u);
  EXPECT_EQ(warningsContaining("comm 0xb rank"), 2u);
  EXPECT_EQ(warningsContaining("no network step outstanding"), 3u);
}

TEST_F(WatchdogScan, AnOperationThatCompletesInTimeIsNotReported) {
  FakeSource source;
  FakeSink sink;
  HangWatchdog watchdog(fastSettings(1000ms));  // a second: room for a loaded test machine
  const WatchId id = watchdog.watch(target(&source, &sink));
  const int64_t startedAt = monotonicNs();
  source.add(collective(0xc, 1, "AllReduce"), startedAt);
  ASSERT_TRUE(waitFor([&] { return source.scans() >= 3; }));
  source.complete(1);
  // Keep scanning past the point where it would have been old enough.
  ASSERT_TRUE(waitFor([&] { return monotonicNs() - startedAt > 1'500'000'000 && source.scans() >= 10; }));
  watchdog.unwatch(id);
  EXPECT_EQ(sink.size(), 0u);
  EXPECT_EQ(watchdog.hangsReported(), 0u);
  EXPECT_EQ(warningsContaining("hang:"), 0u);
}

TEST_F(WatchdogScan, AHangThatCompletesIsForgottenAndTheNextOneReported) {
  FakeSource source;
  FakeSink sink;
  HangWatchdog watchdog(fastSettings());
  const WatchId id = watchdog.watch(target(&source, &sink));
  source.add(collective(0xd, 1, "AllReduce"), monotonicNs() - kLongAgo);
  ASSERT_TRUE(waitFor([&] { return watchdog.hangsReported() == 1; }));
  source.complete(1);
  // A P2p counted apart from collectives may carry the same seq: it is a different operation.
  OperationRecord send = collective(0xd, 1, "Send");
  send.kind = RecordKind::P2p;
  send.peer = 2;
  source.add(send, monotonicNs() - kLongAgo);
  ASSERT_TRUE(waitFor([&] { return watchdog.hangsReported() == 2; }));
  watchdog.unwatch(id);
  ASSERT_EQ(sink.size(), 2u);
  EXPECT_EQ(sink.records()[1].operation.view(), "Send");
  EXPECT_EQ(warningsContaining("seq 1 Send peer 2"), 1u) << LogCapture::instance().dump();
}

TEST_F(WatchdogScan, UnwatchWaitsForTheScanInProgress) {
  auto source = std::make_unique<FakeSource>();
  FakeSink sink;
  source->add(collective(0xe, 1, "AllReduce"), monotonicNs() - kLongAgo);
  source->holdNextScan();
  HangWatchdog watchdog(fastSettings());
  const WatchId id = watchdog.watch(target(source.get(), &sink));
  ASSERT_TRUE(waitFor([&] { return source->insideScan(); }));
  std::atomic<bool> unwatched{false};
  std::thread finalizer([&] {
    watchdog.unwatch(id);
    unwatched = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(unwatched.load());  // still inside the source
  source->release();
  finalizer.join();
  EXPECT_TRUE(unwatched.load());
  source.reset();  // destroyed right after unwatch: the watchdog must no longer touch it (ASan)
  EXPECT_FALSE(watchdog.running());
  EXPECT_LE(sink.size(), 1u);  // the scan it waited for may have reported the hang
}

TEST_F(WatchdogScan, StopIsPromptWithALongInterval) {
  FakeSource source;
  HangSettings settings = fastSettings();
  settings.interval = std::chrono::hours(1);
  HangWatchdog watchdog(settings);
  const WatchId id = watchdog.watch(target(&source, nullptr));
  EXPECT_TRUE(watchdog.running());
  const auto start = std::chrono::steady_clock::now();
  watchdog.unwatch(id);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  EXPECT_FALSE(watchdog.running());
  // It starts again for the next communicator, and the destructor stops it as promptly.
  watchdog.watch(target(&source, nullptr));
  EXPECT_TRUE(watchdog.running());
}

// Timeout 0 turns the hang check off; the thread still runs each communicator's housekeeping (closing
// operations by age, reporting losses), which must not wait for a hang timeout to be set.
TEST_F(WatchdogScan, TimeoutZeroDisablesTheHangCheckNotTheHousekeeping) {
  FakeSource source;
  FakeSink sink;
  source.add(collective(0xf, 1, "AllReduce"), monotonicNs() - kLongAgo);
  HangSettings off = fastSettings();
  off.timeoutNs = 0;
  HangWatchdog watchdog(off);
  const WatchId id = watchdog.watch(target(&source, &sink));
  EXPECT_NE(id, 0u);
  EXPECT_TRUE(watchdog.running());
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (source.housekeeps() < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
  watchdog.unwatch(id);
  EXPECT_GE(source.housekeeps(), 2);
  EXPECT_EQ(source.scans(), 0);
  EXPECT_EQ(sink.size(), 0u);
  EXPECT_EQ(watchdog.hangsReported(), 0u);
}

TEST_F(WatchdogScan, ASourceThatThrowsIsDroppedOthersGoOn) {
  FakeSource broken, healthy;
  FakeSink sink;
  broken.throwOnScan();
  healthy.add(collective(0x10, 3, "Broadcast"), monotonicNs() - kLongAgo);
  HangWatchdog watchdog(fastSettings());
  const WatchId a = watchdog.watch(target(&broken, nullptr));
  const WatchId b = watchdog.watch(target(&healthy, &sink));
  ASSERT_TRUE(waitFor([&] { return watchdog.hangsReported() == 1 && healthy.scans() >= 5; }));
  watchdog.unwatch(a);
  watchdog.unwatch(b);
  EXPECT_EQ(broken.scans(), 1);
  EXPECT_EQ(warningsContaining("stops watching this communicator: capture state corrupted"), 1u);
  EXPECT_EQ(sink.size(), 1u);
}

TEST_F(WatchdogScan, ARejectedTimeoutIsWarnedOnceThroughTheFirstCommunicator) {
  FakeSource source;
  HangSettings settings = fastSettings();
  settings.error = "RAILTUNE_HANG_TIMEOUT='-1': expected 0 (off) to 86400 seconds";
  HangWatchdog watchdog(settings);
  const WatchId a = watchdog.watch(target(&source, nullptr));
  const WatchId b = watchdog.watch(target(&source, nullptr));
  watchdog.unwatch(a);
  watchdog.unwatch(b);
  EXPECT_EQ(warningsContaining("RAILTUNE_HANG_TIMEOUT='-1'"), 1u);
}

TEST_F(WatchdogScan, ManyCommunicatorsComeAndGoWhileScanning) {
  FakeSource source;
  FakeSink sink;
  source.add(collective(0x11, 1, "AllReduce"), monotonicNs() - kLongAgo);
  HangWatchdog watchdog(fastSettings());
  const WatchId anchor = watchdog.watch(target(&source, &sink));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        FakeSource local;
        local.add(collective(0x12, 1, "AllReduce"), monotonicNs() - kLongAgo);
        watchdog.unwatch(watchdog.watch(target(&local, nullptr)));
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_TRUE(waitFor([&] { return sink.size() == 1; }));
  watchdog.unwatch(anchor);
  EXPECT_FALSE(watchdog.running());
}

TEST_F(WatchdogScan, ACallbackMayUnwatchItsOwnCommunicator) {
  auto source = std::make_unique<FakeSource>();
  FakeSink sink;
  source->add(collective(0x13, 1, "AllReduce"), monotonicNs() - kLongAgo);
  HangWatchdog watchdog(fastSettings());
  WatchId id = 0;
  std::atomic<bool> flushed{false};
  id = watchdog.watch(target(source.get(), &sink, [&] {
    watchdog.unwatch(id);  // from the watchdog's own thread, inside the scan of this very target
    flushed = true;
  }));
  ASSERT_TRUE(waitFor([&] { return watchdog.hangsReported() == 1; }));
  EXPECT_TRUE(flushed.load());
  const int scans = source->scans();
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(source->scans(), scans);  // no longer watched
  source.reset();
  watchdog.unwatch(id);  // unknown by now: ignored
  EXPECT_EQ(sink.size(), 1u);
}

#if !defined(__SANITIZE_THREAD__) && !RT_TSAN  // TSan does not follow threads across fork()
// A forked child inherits the watchdog but not its thread: it must neither wait for the parent's
// thread at exit nor go without a watchdog of its own.
TEST_F(WatchdogScan, AForkedChildRunsItsOwnThread) {
  FakeSource parentSource;
  HangWatchdog watchdog(fastSettings());
  const WatchId parentId = watchdog.watch(target(&parentSource, nullptr));
  ASSERT_TRUE(watchdog.running());
  watchdog.beforeFork();
  const pid_t child = fork();
  if (child == 0) {
    watchdog.afterForkInChild();
    FakeSource source;
    FakeSink sink;
    source.add(collective(0x14, 1, "AllReduce"), monotonicNs() - kLongAgo);
    const int parentScans = parentSource.scans();  // the child's copy
    const WatchId id = watchdog.watch(target(&source, &sink));
    const bool reported = waitFor([&] { return sink.size() == 1; }, 5s);
    const bool parentsLeftAlone = parentSource.scans() == parentScans;
    watchdog.unwatch(id);
    watchdog.unwatch(parentId);  // the parent's: unknown here, ignored
    _exit(reported && parentsLeftAlone && !watchdog.running() ? 0 : 1);
  }
  watchdog.afterForkInParent();
  ASSERT_GT(child, 0);
  int status = -1;
  ASSERT_TRUE(waitFor([&] { return waitpid(child, &status, WNOHANG) == child; }));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_TRUE(watchdog.running());  // the parent's thread is untouched
  watchdog.unwatch(parentId);
}

// A fork in the middle of a scan would leave the child with the source's (and the allocator's) locks
// held by a thread it does not have: the fork waits for the scan.
TEST_F(WatchdogScan, AForkWaitsForTheScanInProgress) {
  FakeSource source;
  source.holdNextScan();
  HangWatchdog watchdog(fastSettings());
  const WatchId id = watchdog.watch(target(&source, nullptr));
  ASSERT_TRUE(waitFor([&] { return source.insideScan(); }));
  std::atomic<bool> prepared{false};
  std::thread forking([&] {
    watchdog.beforeFork();
    prepared = true;
    watchdog.afterForkInParent();
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(prepared.load());
  source.release();
  EXPECT_TRUE(waitFor([&] { return prepared.load(); }));
  forking.join();
  watchdog.unwatch(id);
}
#endif

}  // namespace
}  // namespace railtune::profiler
