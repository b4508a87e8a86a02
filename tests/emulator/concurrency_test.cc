// Calls from several threads, as NCCL's communicators and proxy threads make them: the old net
// adapters' shared init count, the profiler's shared mask, and the plugin logger (run under TSan).
#include <barrier>
#include <thread>

#include "emulator/logger.h"
#include "emulator/net_driver.h"
#include "emulator/profiler_driver.h"
#include "tests/emulator/test_support.h"

namespace railtune::emu::test {
namespace {

constexpr int kThreads = 8;

TEST(Concurrency, OldNetPluginIsInitialisedOnceForManyCommunicators) {
  Binding b = Loader::bindVersion(PluginKind::Net, pluginPath("libnccl-net-v10.so"), 10);
  ASSERT_TRUE(b);
  resetEcho(b);
  std::barrier allInitialised(kThreads);
  std::vector<std::thread> threads;
  std::vector<ncclResult_t> results(kThreads, ncclInternalError);
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      NetDriver d(b);
      results[static_cast<size_t>(t)] =
          d.init(kCommId + static_cast<uint64_t>(t), t, pluginLogger(), idleProfilerCallback());
      allInitialised.arrive_and_wait();
      d.finalize();
    });
  }
  for (auto& th : threads) th.join();
  for (ncclResult_t r : results) EXPECT_EQ(r, ncclSuccess);
  EXPECT_EQ(countCalls(echoOf(b), "net.init"), 1);
  EXPECT_EQ(b.library->state().netAdapterRefCount, 0);
}

TEST(Concurrency, ProfilerEventsFromManyThreads) {
  Binding b = Loader::bindVersion(PluginKind::Profiler, pluginPath("libnccl-profiler-v5.so"), 5);
  ASSERT_TRUE(b);
  resetEcho(b);
  ProfilerDriver d(b, NcclBehaviour::V2_28);
  ASSERT_EQ(d.init(kCommId, "c", 1, kThreads, 0), ncclSuccess);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&d, t] {
      ncclProfilerEventDescr_v6_t e{};
      e.type = ncclProfileProxyStep;
      e.rank = t;
      e.proxyStep.step = t;
      void* h = nullptr;
      EXPECT_EQ(d.startEvent(&e, &h), ncclSuccess);
      EXPECT_EQ(d.stopEvent(h), ncclSuccess);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(countCalls(echoOf(b), "profiler.startEvent"), kThreads);
  EXPECT_EQ(countCalls(echoOf(b), "profiler.stopEvent"), kThreads);
  EXPECT_EQ(d.finalize(), ncclSuccess);
}

TEST(Concurrency, PluginLoggerKeepsEveryLine) {
  takePluginLog();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([t] { pluginLogger()(NCCL_LOG_INFO, NCCL_NET, "thread.cc", t, "line %d", t); });
  }
  for (auto& th : threads) th.join();
  std::vector<std::string> lines = takePluginLog();
  EXPECT_EQ(lines.size(), static_cast<size_t>(kThreads));
  EXPECT_TRUE(logHas(lines, "INFO thread.cc:3 line 3"));
}

// The store is bounded, but INFO lines cannot push WARNs out, and WARNs past its room are counted in a
// last line (emu net-job prints every rank's WARNs from this store).
TEST(Concurrency, PluginLoggerKeepsWarningsPastChattyInfoAndCountsTheRest) {
  takePluginLog();
  const ncclDebugLogger_t log = pluginLogger();
  for (int i = 0; i < 5000; i++) log(NCCL_LOG_INFO, NCCL_NET, "chatty.cc", 1, "info %d", i);
  log(NCCL_LOG_WARN, NCCL_NET, "w.cc", 2, "the one warning");
  std::vector<std::string> lines = takePluginLog();
  EXPECT_EQ(lines.size(), 4097u);
  EXPECT_EQ(lines.back(), "WARN w.cc:2 the one warning");
  for (int i = 0; i < 4100; i++) log(NCCL_LOG_WARN, NCCL_NET, "w.cc", 3, "warning %d", i);
  lines = takePluginLog();
  ASSERT_EQ(lines.size(), 4097u);
  EXPECT_EQ(lines[4095], "WARN w.cc:3 warning 4095");
  EXPECT_EQ(lines.back(),
            "WARN logger.cc:0 railtune emulator: 4 more WARN line(s) of the plugins dropped (the emulator keeps 4096)");
  EXPECT_TRUE(takePluginLog().empty()) << "the count goes with the lines it speaks of";
}

}  // namespace
}  // namespace railtune::emu::test
