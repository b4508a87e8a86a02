// The profiler under bad use, through the real libnccl-profiler-railtune.so driven by the emulator
// (docs/profiler.md, "Bad use and killed jobs"): NULL and stale handles, parents that are not ours,
// the context of a failed init, finalize(NULL), and 10,000 communicators created and finalized with
// nothing left behind (file descriptors, threads, memory). Every call answers ncclSuccess, nothing
// crashes, the WARNs are the documented ones, and the records written afterwards are still right.
// Each test runs under alarm(): a hang kills the process instead of the test run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "emulator/profiler_driver.h"
#include "emulator/profiler_sequence.h"
#include "formats/profile_logs.h"
#include "tests/e2e/emulated_fixture.h"
#include "tests/support/file_text.h"
#include "tests/support/record_file_name.h"

namespace railtune::testing {
namespace {

namespace fs = std::filesystem;
using emu::NcclBehaviour;

constexpr unsigned kTestSeconds = 30;  // watchdog of each test

using railtune::testing::readFile;

// A Coll event as NCCL's launch describes it (one channel, ring, simple).
ncclProfilerEventDescr_v6_t collDescr(uint64_t seq, int rank) {
  ncclProfilerEventDescr_v6_t descr{};
  descr.type = ncclProfileColl;
  descr.rank = rank;
  descr.coll.seqNumber = seq;
  descr.coll.func = "AllReduce";
  descr.coll.count = 1024;
  descr.coll.datatype = "ncclFloat32";
  descr.coll.nChannels = 1;
  descr.coll.nWarps = 16;
  descr.coll.algo = "RING";
  descr.coll.proto = "SIMPLE";
  return descr;
}

// A ProxyOp event of this process under `parent` (NCCL's proxy thread passes the Coll's handle).
ncclProfilerEventDescr_v6_t proxyOpDescr(void* parent, int rank) {
  ncclProfilerEventDescr_v6_t descr{};
  descr.type = ncclProfileProxyOp;
  descr.parentObj = parent;
  descr.rank = rank;
  descr.proxyOp.pid = getpid();
  descr.proxyOp.peer = (rank + 1) % 8;
  descr.proxyOp.nSteps = 4;
  descr.proxyOp.chunkSize = 1 << 19;
  descr.proxyOp.isSend = 1;
  return descr;
}

class ProfilerMisuseTest : public EmulatedTest {
 protected:
  void SetUp() override {
    EmulatedTest::SetUp();
    alarm(kTestSeconds);
    dir = fs::path(::testing::TempDir()) / ("railtune-misuse-" + std::to_string(getpid()));
    fs::remove_all(dir);
    env.set("RAILTUNE_PROFILE_DIR", dir.string());
    env.set("RAILTUNE_JOB_ID", "misuse");
    env.set("RAILTUNE_HOST", "gb300-r00-t00");
    env.unset("RAILTUNE_PROFILE_MASK");
    env.unset("RAILTUNE_PROFILE_OPERATIONS");
    env.unset("RAILTUNE_PROFILE_EVENTS");
    env.unset("RAILTUNE_HANG_TIMEOUT");
  }
  void TearDown() override {
    fs::remove_all(dir);
    alarm(0);
    EmulatedTest::TearDown();
  }
  emu::Binding bind(int version) {
    return emu::Loader::bindVersion(emu::PluginKind::Profiler, pluginPath("profiler"), version);
  }
  fs::path collectivesFile() const {
    return railtune::testing::findRecordFile(dir, "misuse-gb300-r00-t00-" + std::to_string(getpid()),
                                             "collectives.jsonl");
  }
  fs::path traceFile() const {
    return railtune::testing::findRecordFile(dir, "misuse-gb300-r00-t00-" + std::to_string(getpid()), "trace.json");
  }
  std::vector<formats::profile::ParsedCollective> records() {
    const auto parsed = formats::profile::parseCollectiveRecords(readFile(collectivesFile()), "collectives");
    EXPECT_TRUE(parsed.error.empty()) << parsed.error;
    return parsed.records;
  }
  // v1..v3 get no logger from NCCL: their WARNs go to stderr and cannot be counted here.
  void expectNoWarnings(int version) {
    if (version < 4) return;
    EXPECT_TRUE(pluginWarnings().empty()) << pluginLogText();
  }
  fs::path dir;
};

class ProfilerHandleMisuseTest : public ProfilerMisuseTest, public ::testing::WithParamInterface<int> {
 protected:
  int version() const { return GetParam(); }
};

TEST_P(ProfilerHandleMisuseTest, NullHandlesAreSilentSuccesses) {
  emu::Binding binding = bind(version());
  ASSERT_TRUE(binding);
  emu::ProfilerDriver driver(binding, NcclBehaviour::V2_30);
  ASSERT_EQ(driver.init(0x51, "trainer", 1, 8, 2), ncclSuccess);
  ncclProfilerEventStateArgs_v6_t args{};
  args.proxyStep.transSize = 4096;
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(driver.stopEvent(nullptr), ncclSuccess);
    EXPECT_EQ(driver.recordEventState(nullptr, ncclProfilerProxyStepSendWait, &args), ncclSuccess);
  }
  emu::ProfilerSequence sequence(driver, 2);
  EXPECT_EQ(sequence.run(emu::ringAllReduce(2, 8, 2, 1, 4, 1 << 20)).failures, 0);
  ASSERT_EQ(driver.finalize(), ncclSuccess);
  const auto written = records();
  ASSERT_EQ(written.size(), 1u) << "the AllReduce after the NULL calls is recorded as usual";
  EXPECT_EQ(written[0].record.operation.view(), "AllReduce");
  expectNoWarnings(version());
}

// A handle already stopped is a slot of our own pool: the capture range-checks it and finds it not
// open, so a second stop or a late state change is counted and ignored, and the record comes out once.
TEST_P(ProfilerHandleMisuseTest, StoppedHandlesAreIgnoredAndTheRecordComesOutOnce) {
  emu::Binding binding = bind(version());
  ASSERT_TRUE(binding);
  emu::ProfilerDriver driver(binding, NcclBehaviour::V2_30);
  ASSERT_EQ(driver.init(0x52, "trainer", 1, 8, 2), ncclSuccess);
  ncclProfilerEventDescr_v6_t descr = collDescr(77, 2);
  void* handle = nullptr;
  ASSERT_EQ(driver.startEvent(&descr, &handle), ncclSuccess);
  ASSERT_NE(handle, nullptr);
  ncclProfilerEventStateArgs_v6_t args{};
  EXPECT_EQ(driver.stopEvent(handle), ncclSuccess);
  EXPECT_EQ(driver.stopEvent(handle), ncclSuccess) << "stopped twice";
  EXPECT_EQ(driver.recordEventState(handle, ncclProfilerProxyOpSendPosted, &args), ncclSuccess);
  // A later operation completes and, kernels running in order, closes the stopped Coll before it.
  emu::ProfilerSequence sequence(driver, 2);
  EXPECT_EQ(sequence.run(emu::ringAllReduce(2, 8, 1, 1, 4, 1 << 20)).failures, 0);
  EXPECT_EQ(driver.stopEvent(handle), ncclSuccess) << "stopped after its record was built (slot free)";
  ASSERT_EQ(driver.finalize(), ncclSuccess);
  int seen77 = 0;
  for (const auto& r : records()) seen77 += r.record.seq == 77 ? 1 : 0;
  EXPECT_EQ(seen77, 1) << readFile(collectivesFile());
  expectNoWarnings(version());
}

// A parent handle is only compared with the communicator's own pools, never dereferenced: a handle of
// another communicator (alive or finalized) or an address that is no handle at all gives a NULL handle.
TEST_P(ProfilerHandleMisuseTest, ParentsThatAreNotOursGiveNullHandles) {
  emu::Binding binding = bind(version());
  ASSERT_TRUE(binding);
  emu::ProfilerDriver other(binding, NcclBehaviour::V2_30);
  emu::ProfilerDriver driver(binding, NcclBehaviour::V2_30);
  ASSERT_EQ(other.init(0x61, "other", 1, 8, 1), ncclSuccess);
  ASSERT_EQ(driver.init(0x62, "trainer", 1, 8, 2), ncclSuccess);
  ncclProfilerEventDescr_v6_t coll = collDescr(5, 1);
  void* otherColl = nullptr;
  ASSERT_EQ(other.startEvent(&coll, &otherColl), ncclSuccess);
  ASSERT_NE(otherColl, nullptr);
  auto garbage = std::make_unique<unsigned char[]>(4096);
  std::fill_n(garbage.get(), 4096, 0xa5);
  std::vector<void*> parents = {otherColl, garbage.get(), nullptr};
  for (void* parent : parents) {
    ncclProfilerEventDescr_v6_t op = proxyOpDescr(parent, 2);
    void* handle = reinterpret_cast<void*>(1);
    EXPECT_EQ(driver.startEvent(&op, &handle), ncclSuccess);
    EXPECT_EQ(handle, nullptr) << "parent " << parent;
  }
  ASSERT_EQ(other.finalize(), ncclSuccess);  // otherColl now dangles
  ncclProfilerEventDescr_v6_t late = proxyOpDescr(otherColl, 2);
  void* handle = reinterpret_cast<void*>(1);
  EXPECT_EQ(driver.startEvent(&late, &handle), ncclSuccess);
  EXPECT_EQ(handle, nullptr) << "the parent of a finalized communicator";
  emu::ProfilerSequence sequence(driver, 2);
  EXPECT_EQ(sequence.run(emu::ringAllReduce(2, 8, 1, 1, 4, 1 << 20)).failures, 0);
  ASSERT_EQ(driver.finalize(), ncclSuccess);
  const auto written = records();
  ASSERT_EQ(written.size(), 2u) << readFile(collectivesFile());
  // The other communicator's Coll never stopped: at its finalize it is a hang record, not a completion.
  EXPECT_EQ(written[0].record.kind, formats::profile::RecordKind::Hang);
  EXPECT_EQ(written[1].record.kind, formats::profile::RecordKind::Collective);
  if (version() >= 4) {
    EXPECT_EQ(written[0].record.comm, std::optional<uint64_t>(0x61));
    EXPECT_EQ(written[1].record.comm, std::optional<uint64_t>(0x62));
  }
  expectNoWarnings(version());
}

// Finalizing one communicator leaves the others recording into the shared writer, and a communicator
// created after the last one was finalized starts a new writer that appends to the same files.
TEST_P(ProfilerHandleMisuseTest, OthersRecordAfterOneIsFinalizedAndAfterTheLast) {
  emu::Binding binding = bind(version());
  ASSERT_TRUE(binding);
  {
    emu::ProfilerDriver first(binding, NcclBehaviour::V2_30);
    emu::ProfilerDriver second(binding, NcclBehaviour::V2_30);
    ASSERT_EQ(first.init(0x71, "first", 1, 8, 0), ncclSuccess);
    ASSERT_EQ(second.init(0x72, "second", 1, 8, 1), ncclSuccess);
    ASSERT_EQ(first.finalize(), ncclSuccess);
    emu::ProfilerSequence sequence(second, 1);
    EXPECT_EQ(sequence.run(emu::ringAllReduce(1, 8, 1, 1, 4, 1 << 20)).failures, 0);
    ASSERT_EQ(second.finalize(), ncclSuccess);
  }
  emu::ProfilerDriver third(binding, NcclBehaviour::V2_30);
  ASSERT_EQ(third.init(0x73, "third", 1, 8, 2), ncclSuccess);
  emu::ProfilerSequence sequence(third, 2);
  EXPECT_EQ(sequence.run(emu::ringAllReduce(2, 8, 1, 1, 4, 1 << 20)).failures, 0);
  ASSERT_EQ(third.finalize(), ncclSuccess);
  EXPECT_EQ(records().size(), 2u) << readFile(collectivesFile());
  expectNoWarnings(version());
}

INSTANTIATE_TEST_SUITE_P(Versions, ProfilerHandleMisuseTest, ::testing::Values(1, 3, 4, 5, 6), versionName);

// NCCL passes a mask pointer and finalizes only a context it got; a NULL mask pointer, the context of
// that failed init and finalize(NULL) are what a broken caller can still do. Through the v6 table.
TEST_F(ProfilerMisuseTest, FailedInitContextDropsEventsAndFinalizes) {
  emu::Binding binding = bind(6);
  ASSERT_TRUE(binding);
  const auto* table = static_cast<const ncclProfiler_v6_t*>(binding.table);
  void* context = nullptr;
  ASSERT_EQ(table->init(&context, 0x81, nullptr, "trainer", 1, 8, 0, emu::pluginLogger()), ncclSuccess);
  ASSERT_NE(context, nullptr) << "a disabled context, so that NCCL's later calls find one";
  ncclProfilerEventDescr_v6_t descr = collDescr(1, 0);
  void* handle = reinterpret_cast<void*>(1);
  EXPECT_EQ(table->startEvent(context, &handle, &descr), ncclSuccess);
  EXPECT_EQ(handle, nullptr) << "events of a failed init are not recorded";
  EXPECT_EQ(table->stopEvent(handle), ncclSuccess);
  EXPECT_EQ(table->finalize(context), ncclSuccess);
  EXPECT_EQ(table->finalize(nullptr), ncclSuccess);
  const std::vector<std::string> warnings = pluginWarnings();
  ASSERT_EQ(warnings.size(), 1u) << pluginLogText();
  EXPECT_NE(warnings[0].find("NULL eActivationMask"), std::string::npos) << warnings[0];
  // The library is unharmed: the next communicator records.
  emu::ProfilerDriver driver(binding, NcclBehaviour::V2_30);
  ASSERT_EQ(driver.init(0x82, "trainer", 1, 8, 0), ncclSuccess);
  emu::ProfilerSequence sequence(driver, 0);
  EXPECT_EQ(sequence.run(emu::ringAllReduce(0, 8, 1, 1, 4, 1 << 20)).failures, 0);
  ASSERT_EQ(driver.finalize(), ncclSuccess);
  EXPECT_EQ(records().size(), 1u);
}

// What the process holds: open descriptors, threads, resident memory (/proc/self).
struct ProcessFootprint {
  size_t fds = 0;
  size_t threads = 0;
  long rssKiB = 0;
};

size_t entriesIn(const char* directory) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(directory)) ++n;
  return n;
}

ProcessFootprint footprint() {
  ProcessFootprint now;
  now.fds = entriesIn("/proc/self/fd");
  now.threads = entriesIn("/proc/self/task");
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) now.rssKiB = std::stol(line.substr(6));
  }
  return now;
}

// The footprint once the thread count is `threads`, or after a second: a thread that was joined has
// exited, but the kernel may list it in /proc/self/task a moment longer on a loaded machine.
ProcessFootprint footprintWithThreads(size_t threads) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  ProcessFootprint now = footprint();
  while (now.threads != threads && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    now = footprint();
  }
  return now;
}

// Sanitizers keep freed memory (ASan's quarantine) and shadow it: resident memory says nothing there.
constexpr bool kSanitized =
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
    true;
#else
    false;
#endif
#else
    false;
#endif

// One communicator's life: init, an AllReduce when `withWork`, finalize.
void communicatorLife(const emu::Binding& binding, uint64_t id, bool withWork) {
  emu::ProfilerDriver driver(binding, NcclBehaviour::V2_30);
  ASSERT_EQ(driver.init(id, "lifecycle", 1, 8, 0), ncclSuccess);
  if (withWork) {
    emu::ProfilerSequence sequence(driver, 0);
    EXPECT_EQ(sequence.run(emu::ringAllReduce(0, 8, 1, 1, 2, 1 << 16)).failures, 0);
  }
  ASSERT_EQ(driver.finalize(), ncclSuccess);
}

// `count` communicators alive at once, each with an AllReduce, then finalized: while they live the
// process has `threadsWhileAlive` threads (one writer and one watchdog however many there are).
void manyAlive(const emu::Binding& binding, int count, size_t threadsWhileAlive) {
  std::vector<std::unique_ptr<emu::ProfilerDriver>> alive;
  for (int i = 0; i < count; ++i) {
    alive.push_back(std::make_unique<emu::ProfilerDriver>(binding, NcclBehaviour::V2_30));
    ASSERT_EQ(alive.back()->init(0x100000 + static_cast<uint64_t>(i), "alive", 1, 8, 0), ncclSuccess);
    emu::ProfilerSequence sequence(*alive.back(), 0);
    EXPECT_EQ(sequence.run(emu::ringAllReduce(0, 8, 1, 1, 2, 1 << 16)).failures, 0);
  }
  EXPECT_EQ(footprint().threads, threadsWhileAlive) << "one writer and one watchdog per process";
  for (auto& driver : alive) ASSERT_EQ(driver->finalize(), ncclSuccess);
}

// 10,000 communicators one after another, in 100 runs of 100: within a run one more communicator stays
// alive, so the writer (RAILTUNE_PROFILE_DIR is set) and the watchdog thread are started and stopped
// 100 times, not 10,000 (the writer's 6 MiB queue would make that take minutes under sanitizers). Then a
// few hundred alive at once. Afterwards the process has the descriptors and threads it had before, and
// its memory has not grown with the number of communicators.
TEST_F(ProfilerMisuseTest, TenThousandCommunicatorsLeaveNothingBehind) {
  constexpr int kRuns = 100;
  constexpr int kPerRun = 100;  // the first of each run does an AllReduce
  constexpr int kConcurrent = 300;
  emu::Binding binding = bind(6);
  ASSERT_TRUE(binding);
  communicatorLife(binding, 1, true);  // first use: the library's lazily built statics
  // Small pools (about 20 KiB a communicator): building the default 0.7 MiB ones 10,000 times takes
  // most of a minute under ASan, and a leaked pool would still be 200 MiB of growth.
  env.set("RAILTUNE_PROFILE_OPERATIONS", "16");
  env.set("RAILTUNE_PROFILE_EVENTS", "64");
  const ProcessFootprint before = footprint();
  for (int run = 0; run < kRuns; ++run) {
    emu::ProfilerDriver anchor(binding, NcclBehaviour::V2_30);
    ASSERT_EQ(anchor.init(0x10 + static_cast<uint64_t>(run), "anchor", 1, 8, 0), ncclSuccess);
    if (run == 0) {
      EXPECT_EQ(footprint().threads, before.threads + 2) << "the writer's and the watchdog's threads while alive";
      EXPECT_GT(footprint().fds, before.fds) << "the writer's files while alive";
    }
    for (int i = 0; i < kPerRun; ++i) {
      communicatorLife(binding, 0x1000 + static_cast<uint64_t>(run * kPerRun + i), i == 0);
      if (::testing::Test::HasFatalFailure()) return;
    }
    ASSERT_EQ(anchor.finalize(), ncclSuccess);
    const ProcessFootprint between = footprintWithThreads(before.threads);
    ASSERT_EQ(between.threads, before.threads) << "run " << run << ": threads left after the last finalize";
    ASSERT_EQ(between.fds, before.fds) << "run " << run << ": descriptors left after the last finalize";
  }
  manyAlive(binding, kConcurrent, before.threads + 2);
  const ProcessFootprint after = footprintWithThreads(before.threads);
  RecordProperty("rss_growth_kib", std::to_string(after.rssKiB - before.rssKiB));
  EXPECT_EQ(after.fds, before.fds);
  EXPECT_EQ(after.threads, before.threads) << "the watchdog and writer threads end with the last communicator";
  if (!kSanitized) {
    EXPECT_LT(after.rssKiB - before.rssKiB, 50 * 1024) << "resident memory grew";
  }
  EXPECT_EQ(records().size(), 1u + kRuns + kConcurrent) << "every writer appended its records";
  // Each new writer reopens the trace and continues its array: still one JSON array Perfetto opens.
  const nlohmann::json trace = nlohmann::json::parse(readFile(traceFile()), nullptr, false);
  ASSERT_TRUE(trace.is_array()) << "the trace after 10,000 writers is not one JSON array";
  EXPECT_GE(trace.size(), 1u + kRuns + kConcurrent);
  EXPECT_TRUE(pluginWarnings().empty()) << pluginLogText();
}

}  // namespace
}  // namespace railtune::testing
