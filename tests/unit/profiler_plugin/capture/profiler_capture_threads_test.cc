// Concurrency: communicators on their own threads, and within one communicator NCCL's roles on their
// own threads (the application enqueues, the proxy thread runs ProxyOps/Steps and KernelCh, a net thread
// reports NetPlugin events, the watchdog scans). Meant to run under TSan as well as ASan.
#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

#include "formats/net_event.h"
#include "profiler_plugin/capture/mask.h"
#include "tests/unit/profiler_plugin/capture/profiler_capture_support.h"

namespace railtune::profiler {
namespace {

using namespace railtune::profiler::testing;

CaptureOptions realClock(CaptureOptions options) {
  options.clock = monotonicNowNs;
  return options;
}

// One collective as NCCL's proxy runs it: per channel a send and a receive ProxyOp with `steps` steps,
// and the channel's KernelCh.
void runCollective(CaptureEngine& engine, Event* coll, int channels, int steps) {
  for (int c = 0; c < channels; ++c) {
    Event* kernel = engine.startEvent(kernelChEvent(coll, c));
    for (bool send : {true, false}) {
      Event* op = engine.startEvent(proxyOpEvent(coll, c, send ? 1 : 3, send, steps));
      for (int s = 0; s < steps; ++s) {
        Event* step = engine.startEvent(proxyStepEvent(op, s));
        engine.recordEventState(step, send ? EventState::ProxyStepSendWait : EventState::ProxyStepRecvWait,
                                transferred(4096));
        engine.recordEventState(step, EventState::ProxyStepRecvFlushWait, transferred(4096));
        engine.stopEvent(step);
      }
      engine.stopEvent(op);
    }
    engine.stopEvent(kernel);
  }
}

TEST(ProfilerCaptureThreads, FourCommunicatorsOnFourThreads) {
  constexpr int kOps = 2000;
  std::vector<std::unique_ptr<RecordingSink>> sinks;
  std::vector<std::unique_ptr<CaptureEngine>> engines;
  for (int i = 0; i < 4; ++i) {
    sinks.push_back(std::make_unique<RecordingSink>(kOps));
    engines.push_back(std::make_unique<CaptureEngine>(
        commOf(i, 4, 100 + i), realClock(testOptions(kAllProfileMask, 16, 64)), sinks.back().get()));
  }
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      CaptureEngine& engine = *engines[i];
      for (int n = 0; n < kOps; ++n) {
        Event* coll = engine.startEvent(collEvent("AllReduce", 256, "ncclFloat32", 2, n));
        engine.stopEvent(coll);
        runCollective(engine, coll, 2, 2);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < 4; ++i) {
    const std::vector<OperationRecord> records = sinks[i]->records();
    ASSERT_EQ(records.size(), static_cast<size_t>(kOps));
    for (int n = 0; n < kOps; ++n) {
      EXPECT_EQ(records[n].seq, static_cast<uint64_t>(n));
      EXPECT_EQ(records[n].comm, static_cast<uint64_t>(100 + i));
      ASSERT_EQ(records[n].nFlows, 4u);
      EXPECT_EQ(records[n].flows[0].bytes, 2u * 4096);
      EXPECT_EQ(records[n].eventsDropped, 0u);
    }
  }
}

// A queue of handles from one role's thread to another's.
class HandleQueue {
 public:
  void put(Event* e) {
    std::lock_guard<std::mutex> lock(mutex_);
    items_.push_back(e);
    ready_.notify_one();
  }
  Event* take() {  // NULL once closed and empty
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return !items_.empty() || closed_; });
    if (items_.empty()) return nullptr;
    Event* e = items_.front();
    items_.pop_front();
    return e;
  }
  void close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    ready_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Event*> items_;
  bool closed_ = false;
};

TEST(ProfilerCaptureThreads, OneThreadPerRole) {
  constexpr int kOps = 3000;
  RecordingSink sink(kOps);
  CaptureEngine engine(commOf(0, 4), realClock(testOptions(kAllProfileMask, 64, 256)), &sink);
  HandleQueue toProxy, toApp, toNet, fromNet;
  std::atomic<bool> stop{false};
  railtuneNetEventDescr_v1_t net{};
  net.hca = "mlx5_0";
  net.rail = 0;
  net.plane = -1;
  // The application enqueues, and stops each Coll when the proxy has started its children (so Coll
  // stop races the children's stops).
  std::thread app([&] {
    for (int n = 0; n < kOps; ++n) {
      Event* coll = engine.startEvent(collEvent("AllReduce", 64, "ncclFloat32", 2, n));
      ASSERT_NE(coll, nullptr);
      if (n % 2 == 0) engine.stopEvent(coll);
      toProxy.put(coll);
      if (n % 2 == 1) engine.stopEvent(toApp.take());
    }
    toProxy.close();
  });
  std::thread proxy([&] {
    int n = 0;
    while (Event* coll = toProxy.take()) {
      Event* kernel = engine.startEvent(kernelChEvent(coll, 0));
      Event* op = engine.startEvent(proxyOpEvent(coll, 0, 1, true, 1));
      if (n++ % 2 == 1) toApp.put(coll);
      Event* step = engine.startEvent(proxyStepEvent(op, 0));
      toNet.put(step);
      fromNet.take();  // the net thread has decoded its event
      engine.recordEventState(step, EventState::ProxyStepSendWait, transferred(64 * 4));
      engine.stopEvent(step);
      engine.stopEvent(op);
      engine.stopEvent(kernel);
      Event* k1 = engine.startEvent(kernelChEvent(coll, 1));
      engine.stopEvent(k1);
    }
    toNet.close();
  });
  std::thread netThread([&] {
    while (Event* step = toNet.take()) {
      engine.startEvent(netPluginEvent(step, RAILTUNE_PROFILER_NET_TYPE | 1, &net));
      fromNet.put(step);
      std::this_thread::yield();
    }
  });
  std::thread watchdog([&] {
    std::vector<OperationRecord> out(4);
    while (!stop.load()) engine.incomplete(monotonicNowNs(), 0, out);
  });
  app.join();
  proxy.join();
  netThread.join();
  stop = true;
  watchdog.join();
  const std::vector<OperationRecord> records = sink.records();
  ASSERT_EQ(records.size(), static_cast<size_t>(kOps));
  std::set<uint64_t> seqs;
  for (const OperationRecord& r : records) {
    seqs.insert(r.seq);
    EXPECT_EQ(r.timing, TimingSource::Kernel);
    ASSERT_EQ(r.nFlows, 1u);
    EXPECT_EQ(r.flows[0].bytes, 256u);
    EXPECT_EQ(r.flows[0].hca.view(), "mlx5_0");
  }
  EXPECT_EQ(seqs.size(), static_cast<size_t>(kOps));
  EXPECT_EQ(engine.stats().eventsDropped, 0u);
}

}  // namespace
}  // namespace railtune::profiler
