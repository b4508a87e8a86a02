// ProfileWriter (profiler_plugin/output/writer.h): file naming, identity fields, drop-on-full with
// the loss in a "dropped" line at the next flush (also while idle), a capture's loss notice, a
// failing disk retried without torn or lost-uncounted lines, periodic flush (bounded wait),
// flushNow for the watchdog,
// shutdown flush, records surviving SIGKILL, a trace that parses after shutdown and continues when
// the plugin is loaded again, the Prometheus textfile, concurrent producers, push() allocating
// nothing on the caller's thread, a folder made with its missing parents (one WARN when it cannot be),
// and two writers of one job, host and pid (two PID namespaces) in files of their own.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/record_files.h"
#include "profiler_plugin/output/writer.h"
#include "profiler_plugin/profile_format.h"
#include "tests/support/allocation_counter.h"
#include "tests/support/fake_env.h"
#include "tests/support/log_capture.h"
#include "tests/support/record_file_name.h"
#include "tests/support/writer_folder_checks.h"
#include "tests/unit/profiler_plugin/output/profiler_output_examples.h"
#include "tests/unit/profiler_plugin/output/profiler_output_golden.h"

namespace railtune::profiler::output {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using railtune::profiler::testing::exampleLost;
using railtune::profiler::testing::exampleRecords;
using railtune::profiler::testing::readFile;

class ProfilerOutputWriter : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("railtune-profile-test-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    railtune::testing::fakeEnvVars().clear();
  }
  void TearDown() override { fs::remove_all(dir_); }

  ProfileOptions options(std::chrono::milliseconds flush, size_t capacity = 64) const {
    ProfileOptions o;
    o.directory = dir_.string();
    o.identity = Identity{"node-a", "job-1", 4242};
    o.capacity = capacity;
    o.flushInterval = flush;
    o.drainInterval = 1ms;
    return o;
  }

  // The lines after the header each writer puts first (a writer loaded again adds another).
  static std::vector<ParsedCollective> readLog(const std::string& path) {
    CollectiveParseResult all = parseCollectiveRecords(readFile(path), path);
    EXPECT_EQ(all.error, "");
    if (!all.records.empty()) {
      EXPECT_FALSE(all.headers.empty()) << path << ": a writer's file starts with its header";
      EXPECT_NE(readFile(path).substr(0, readFile(path).find('\n')).find("\"record\":\"header\""), std::string::npos);
    }
    return std::move(all.records);
  }

  // Polls the file until it holds at least `count` records; the wait is bounded.
  static std::vector<ParsedCollective> waitForRecords(const std::string& path, size_t count) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    std::vector<ParsedCollective> records;
    while ((records = readLog(path)).size() < count && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(5ms);
    }
    return records;
  }

  fs::path dir_;
};

TEST_F(ProfilerOutputWriter, NamesTheFilesAfterJobHostAndPid) {
  const Identity identity{"tray-07", "48213", 99};
  EXPECT_EQ(profileFileName(identity, ProfileFile::Collectives), "48213-tray-07-99.collectives.jsonl");
  EXPECT_EQ(profileFileName(identity, ProfileFile::Net), "48213-tray-07-99.net.jsonl");
  EXPECT_EQ(profileFileName(identity, ProfileFile::Trace), "48213-tray-07-99.trace.json");
  EXPECT_EQ(profileFileName(Identity{"a/b c", "../x", 1}, ProfileFile::Net), ".._x-a_b_c-1.net.jsonl");
  EXPECT_EQ(profileFileName(Identity{"..", "", 1}, ProfileFile::Trace), "unknown-_-1.trace.json");
  EXPECT_EQ(profileFileName(identity, ProfileFile::Collectives, "1a2b3c"), "48213-tray-07-99.1a2b3c.collectives.jsonl");
  EXPECT_EQ(profileFileName(identity, ProfileFile::Trace, "1a2b3c_9f0e"), "48213-tray-07-99.1a2b3c_9f0e.trace.json");
  EXPECT_EQ(expandPid("/textfile/railtune-%p.prom", 77), "/textfile/railtune-77.prom");
  EXPECT_EQ(expandPid("%p%p%", 5), "55%");
}

TEST_F(ProfilerOutputWriter, NothingSetMeansNoWriter) {
  EXPECT_EQ(ProfileWriter::fromEnvironment(Log("profiler"), railtune::testing::fakeEnv), nullptr);
}

TEST_F(ProfilerOutputWriter, UnusableDirectoryMeansNoWriterNotAFailure) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "in the way";
  railtune::testing::fakeEnvVars()["RAILTUNE_PROFILE_DIR"] = (dir_ / "file").string();
  EXPECT_EQ(ProfileWriter::fromEnvironment(Log("profiler"), railtune::testing::fakeEnv), nullptr);
  ProfileOptions blocked = options(10ms);
  blocked.directory = (dir_ / "file").string();
  EXPECT_THROW(ProfileWriter(blocked, Log("profiler")), std::runtime_error);
}

TEST_F(ProfilerOutputWriter, EnvironmentGivesFilesAndIdentityFields) {
  auto& env = railtune::testing::fakeEnvVars();
  env["RAILTUNE_PROFILE_DIR"] = dir_.string();
  env["RAILTUNE_PROFILE_PROMETHEUS"] = (dir_ / "rt-%p.prom").string();
  env["RAILTUNE_JOB_ID"] = "job/7";
  env["RAILTUNE_HOST"] = "tray 5";
  auto writer = ProfileWriter::fromEnvironment(Log("profiler"), railtune::testing::fakeEnv);
  ASSERT_NE(writer, nullptr);
  const std::string stem = (dir_ / ("job_7-tray_5-" + std::to_string(getpid()))).string();
  EXPECT_EQ(writer->path(ProfileFile::Collectives), stem + "." + processStartTag() + ".collectives.jsonl");
  EXPECT_EQ(writer->prometheusPath(), (dir_ / ("rt-" + std::to_string(getpid()) + ".prom")).string());
  ASSERT_TRUE(writer->push(exampleRecords()[0]));
  writer->shutdown();
  const auto records = readLog(writer->path(ProfileFile::Collectives));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].identity.job, "job/7");
  EXPECT_EQ(records[0].identity.host, "tray 5");
  EXPECT_EQ(records[0].identity.pid, getpid());
  // The header names the host's boot id when the kernel gives one: processes with one read one clock.
  const CollectiveParseResult all = parseCollectiveRecords(readFile(writer->path(ProfileFile::Collectives)), "log");
  ASSERT_EQ(all.headers.size(), 1u);
  EXPECT_EQ(all.headers[0].bootId, readBootId());
  const NetParseResult net = parseNetRecords(readFile(writer->path(ProfileFile::Net)), "net");
  ASSERT_EQ(net.error, "");
  ASSERT_EQ(net.records.size(), 1u);
  EXPECT_EQ(net.records[0].record.nFlows, 4u);
  EXPECT_NE(readFile(writer->prometheusPath()).find("railtune_profile_operations_total{job_id=\"job/7\""),
            std::string::npos);
}

TEST_F(ProfilerOutputWriter, BootIdIsTheKernelsUuidOrNothing) {
  const std::string file = (dir_ / "boot_id").string();
  std::filesystem::create_directories(dir_);
  std::ofstream(file) << "6d8e145f-06f8-4a85-a466-769661d96543\n";
  EXPECT_EQ(readBootId(file.c_str()), "6d8e145f-06f8-4a85-a466-769661d96543");
  std::ofstream(file) << "not a boot id\n";
  EXPECT_EQ(readBootId(file.c_str()), "");
  std::ofstream(file) << "6D8E145F-06F8-4A85-A466-769661D96543\n";  // the kernel writes lowercase
  EXPECT_EQ(readBootId(file.c_str()), "");
  EXPECT_EQ(readBootId((dir_ / "missing").string().c_str()), "");
}

TEST_F(ProfilerOutputWriter, PrometheusAloneWritesNoOtherFile) {
  railtune::testing::fakeEnvVars()["RAILTUNE_PROFILE_PROMETHEUS"] = (dir_.string() + ".prom");
  auto writer = ProfileWriter::fromEnvironment(Log("profiler"), railtune::testing::fakeEnv);
  ASSERT_NE(writer, nullptr);
  EXPECT_EQ(writer->path(ProfileFile::Trace), "");
  writer->push(exampleRecords()[1]);
  writer->shutdown();
  EXPECT_FALSE(fs::exists(dir_));
  EXPECT_NE(readFile(dir_.string() + ".prom").find("op=\"AllGather\",size=\"64MiB\"} 1\n"), std::string::npos);
  fs::remove(dir_.string() + ".prom");
}

TEST_F(ProfilerOutputWriter, DropsWhenFullAndWritesADroppedLine) {
  ProfileOptions o = options(1h, 2);
  o.drainInterval = 1h;  // the queue is never drained before shutdown: it fills
  ProfileWriter writer(o);
  const OperationRecord record = exampleRecords()[3];
  EXPECT_TRUE(writer.push(record));
  EXPECT_TRUE(writer.push(record));
  EXPECT_FALSE(writer.push(record));
  EXPECT_FALSE(writer.push(record));
  EXPECT_EQ(writer.droppedTotal(), 2u);
  writer.shutdown();
  const auto records = readLog(writer.path(ProfileFile::Collectives));
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].recordsDropped, 0u) << "never attached to a later record";
  EXPECT_EQ(records[1].recordsDropped, 0u);
  EXPECT_TRUE(records[2].droppedNotice);
  EXPECT_EQ(records[2].recordsDropped, 2u);
  EXPECT_FALSE(writer.push(record)) << "accepted after shutdown";
}

TEST_F(ProfilerOutputWriter, FlushesPeriodicallyWithoutShutdown) {
  ProfileWriter writer(options(10ms));
  writer.push(exampleRecords()[0]);
  const auto records = waitForRecords(writer.path(ProfileFile::Collectives), 1);
  ASSERT_EQ(records.size(), 1u) << "nothing reached the file within 10 s";
  EXPECT_EQ(records[0].record.seq, 17u);
}

TEST_F(ProfilerOutputWriter, FlushNowPutsAHangOnDiskAtOnce) {
  ProfileWriter writer(options(1h));
  writer.push(exampleRecords()[0]);
  writer.push(exampleRecords()[4]);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(writer.flushNow(10s));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  const auto records = readLog(writer.path(ProfileFile::Collectives));
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].record.kind, RecordKind::Hang);
  writer.shutdown();
  EXPECT_FALSE(writer.flushNow(1s)) << "after shutdown";
}

TEST_F(ProfilerOutputWriter, ShutdownWritesEverythingAndClosesTheTrace) {
  ProfileWriter writer(options(1h));
  for (const OperationRecord& r : exampleRecords()) writer.push(r);
  const auto start = std::chrono::steady_clock::now();
  writer.shutdown();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s) << "shutdown waited for the flush interval";
  EXPECT_EQ(readLog(writer.path(ProfileFile::Collectives)).size(), 5u);
  EXPECT_EQ(parseNetRecords(readFile(writer.path(ProfileFile::Net)), "net").records.size(), 3u);
  const nlohmann::json trace = nlohmann::json::parse(readFile(writer.path(ProfileFile::Trace)));
  EXPECT_TRUE(trace.is_array());
  EXPECT_GE(trace.size(), 10u);
}

TEST_F(ProfilerOutputWriter, AnEmptyTraceIsStillJson) {
  ProfileWriter writer(options(1h));
  writer.shutdown();
  EXPECT_TRUE(nlohmann::json::parse(readFile(writer.path(ProfileFile::Trace))).empty());
}

TEST_F(ProfilerOutputWriter, ALoadedAgainWriterContinuesTheSameFiles) {
  for (int load = 0; load < 3; ++load) {
    ProfileWriter writer(options(1h));
    writer.push(exampleRecords()[load]);
  }
  ProfileWriter empty(options(1h));
  empty.shutdown();
  const std::string tracePath = empty.path(ProfileFile::Trace);
  EXPECT_EQ(
      tracePath,
      (dir_ / profileFileName(Identity{"node-a", "job-1", 4242}, ProfileFile::Trace, processStartTag())).string());
  const nlohmann::json trace = nlohmann::json::parse(readFile(tracePath));
  size_t operations = 0;
  for (const nlohmann::json& e : trace) operations += e.value("cat", "") == "collective" ? 1 : 0;
  EXPECT_EQ(operations, 2u) << trace.dump();  // AllReduce, AllGather; the third was a Send
  EXPECT_EQ(readLog(empty.path(ProfileFile::Collectives)).size(), 3u);
}

TEST_F(ProfilerOutputWriter, AJobKilledWithSigkillLeavesItsRecords) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // the child never returns into the test framework
    try {
      ProfileWriter writer(options(10ms));
      for (const OperationRecord& r : exampleRecords()) writer.push(r);
      std::this_thread::sleep_for(300ms);  // a few flushes, then no destructor, no shutdown
      raise(SIGKILL);
    } catch (...) {
    }
    _exit(1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  // The child's own start time is in the names: found by job, host and pid.
  EXPECT_EQ(readLog(railtune::testing::findRecordFile(dir_, "job-1-node-a-4242", "collectives.jsonl").string()).size(),
            5u);
  const std::string trace = readFile(railtune::testing::findRecordFile(dir_, "job-1-node-a-4242", "trace.json"));
  EXPECT_FALSE(nlohmann::json::accept(trace)) << "closed by a dead process?";
  EXPECT_TRUE(nlohmann::json::parse(trace + "]").is_array()) << "not the array form a viewer opens";
}

TEST_F(ProfilerOutputWriter, PushAllocatesNothing) {
  if (!railtune::testing::kCountsAllocations) GTEST_SKIP() << "allocations are not counted under TSan";
  ProfileOptions o = options(1h, 4);
  o.drainInterval = 1h;  // the writer thread sleeps (and allocates nothing) while this thread counts
  ProfileWriter writer(o);
  const OperationRecord record = exampleRecords()[0];
  const size_t before = railtune::testing::gAllocations.load();
  for (int i = 0; i < 100; ++i) writer.push(record);  // most dropped: that path must not allocate either
  EXPECT_EQ(railtune::testing::gAllocations.load(), before);
  EXPECT_EQ(writer.droppedTotal(), 96u);
}

TEST_F(ProfilerOutputWriter, FlushNowWhileProducersPushFindsItsRecordsOnDisk) {
  ProfileWriter writer(options(1h, 1024));
  std::atomic<bool> done{false};
  std::thread producer([&] {
    OperationRecord record = exampleRecords()[3];
    for (uint64_t i = 0; i < 2000; ++i) {
      record.seq = 1000 + i;
      writer.push(record);
    }
    done = true;
  });
  OperationRecord hang = exampleRecords()[4];
  for (uint64_t i = 0; !done || i < 3; ++i) {  // the watchdog's pattern: push a hang, then flush
    hang.seq = i;
    // As the watchdog does: a queue the producer filled gets room from a flush, then the push again.
    bool queued = writer.push(hang);
    ASSERT_TRUE(writer.flushNow(10s));
    if (!queued) {
      ASSERT_TRUE(writer.push(hang)) << "still no room right after a flush";
      ASSERT_TRUE(writer.flushNow(10s));
    }
    const auto records = readLog(writer.path(ProfileFile::Collectives));
    ASSERT_FALSE(records.empty());
    size_t hangs = 0;
    for (const ParsedCollective& r : records) hangs += r.record.kind == RecordKind::Hang ? 1 : 0;
    EXPECT_EQ(hangs, i + 1) << "a hang pushed before flushNow is not on disk";
  }
  producer.join();
}

TEST_F(ProfilerOutputWriter, ConcurrentProducersLoseNothingUncounted) {
  ProfileWriter writer(options(1ms, 256));
  std::vector<std::thread> producers;
  for (int t = 0; t < 4; ++t) {
    producers.emplace_back([&writer, t] {
      OperationRecord record = exampleRecords()[3];
      for (int i = 0; i < 500; ++i) {
        record.seq = static_cast<uint64_t>(t * 1000 + i);
        writer.push(record);
      }
    });
  }
  for (std::thread& p : producers) p.join();
  writer.shutdown();
  uint64_t reportedDrops = 0;
  size_t written = 0;
  for (const ParsedCollective& r : readLog(writer.path(ProfileFile::Collectives))) {
    reportedDrops += r.recordsDropped;
    written += r.droppedNotice ? 0 : 1;
  }
  EXPECT_EQ(reportedDrops, writer.droppedTotal());
  EXPECT_EQ(written + reportedDrops, 2000u);
}

// Records written plus every count of "records_dropped".
struct Tally {
  uint64_t records = 0, dropped = 0, operations = 0, events = 0;
};

Tally tally(const std::vector<ParsedCollective>& lines) {
  Tally t;
  for (const ParsedCollective& r : lines) {
    t.records += r.droppedNotice || r.header ? 0 : 1;
    t.dropped += r.recordsDropped;
    t.operations += r.operationsDropped;
    t.events += r.eventsDropped;
  }
  return t;
}

TEST_F(ProfilerOutputWriter, QueueLossesAreWrittenAtTheNextFlushWithoutAnotherRecord) {
  ProfileOptions o = options(300ms, 2);
  o.prometheusPath = dir_.string() + "/metrics.prom";
  ProfileWriter writer(o);
  const OperationRecord record = exampleRecords()[3];
  uint64_t pushed = 0;
  while (writer.droppedTotal() < 3 && pushed < 10000000) {  // faster than the thread drains: some drop
    writer.push(record);
    ++pushed;
  }
  ASSERT_GE(writer.droppedTotal(), 3u);
  const std::string droppedMetric =
      "railtune_profile_records_dropped_total{job_id=\"job-1\",host=\"node-a\",pid=\"4242\"} " +
      std::to_string(writer.droppedTotal()) + "\n";
  const auto lossAt = std::chrono::steady_clock::now();
  Tally t;
  std::string metrics;
  // The flush writes the log first and the metrics file after it: wait for both.
  while (std::chrono::steady_clock::now() - lossAt < 5s) {
    t = tally(readLog(writer.path(ProfileFile::Collectives)));
    metrics = readFile(o.prometheusPath);
    if (t.records + t.dropped == pushed && metrics.find(droppedMetric) != std::string::npos) break;
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - lossAt, 2s) << "the loss was not written within 2 s";
  EXPECT_EQ(t.dropped, writer.droppedTotal());
  EXPECT_EQ(t.records + t.dropped, pushed);
  EXPECT_NE(metrics.find(droppedMetric), std::string::npos) << metrics;
}

TEST_F(ProfilerOutputWriter, ARecordReachesTheFileWithinASecondWhileIdle) {
  ProfileWriter writer(options(1000ms));  // the default interval
  writer.push(exampleRecords()[0]);
  const auto pushedAt = std::chrono::steady_clock::now();
  const auto records = waitForRecords(writer.path(ProfileFile::Collectives), 1);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_LT(std::chrono::steady_clock::now() - pushedAt, 1500ms);
}

TEST_F(ProfilerOutputWriter, ACaptureLossNoticeIsADroppedLine) {
  ProfileOptions o = options(1h);
  o.prometheusPath = dir_.string() + "/metrics.prom";
  ProfileWriter writer(o);
  writer.push(exampleLost());
  OperationRecord nothing = exampleLost();
  nothing.operationsDropped = nothing.eventsDropped = 0;
  writer.push(nothing);  // says nothing: no line
  writer.shutdown();
  const auto lines = readLog(writer.path(ProfileFile::Collectives));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0].droppedNotice);
  EXPECT_EQ(lines[0].operationsDropped, 2u);
  EXPECT_EQ(lines[0].eventsDropped, 40u);
  EXPECT_EQ(lines[0].record.rank, 3);
  EXPECT_EQ(lines[0].record.start.realtimeNs, exampleLost().end.realtimeNs);
  EXPECT_EQ(readFile(writer.path(ProfileFile::Net)), "");
  EXPECT_TRUE(nlohmann::json::parse(readFile(writer.path(ProfileFile::Trace))).empty());
  const std::string metrics = readFile(o.prometheusPath);
  EXPECT_NE(
      metrics.find("railtune_profile_operations_dropped_total{job_id=\"job-1\",host=\"node-a\",pid=\"4242\"} 2\n"),
      std::string::npos);
  EXPECT_NE(metrics.find("railtune_profile_events_dropped_total{job_id=\"job-1\",host=\"node-a\",pid=\"4242\"} 40\n"),
            std::string::npos);
}

// A disk that is full while `full` is set (each call fails with ENOSPC but every fifth, which
// writes a few bytes first: a write stopped mid-line), and always takes short writes.
struct FakeDisk {
  std::atomic<bool> full{false};
  std::atomic<uint64_t> calls{0}, failures{0};
  ssize_t write(int fd, const void* data, size_t size) {
    const uint64_t call = calls++;
    if (full && call % 5 != 0) {
      ++failures;
      errno = ENOSPC;
      return -1;
    }
    return ::write(fd, data, std::min<size_t>(size, full ? 1 + call % 13 : 1 + call % 4093));
  }
};

TEST_F(ProfilerOutputWriter, AFullDiskIsRetriedAndEveryRecordIsWrittenOrCounted) {
  auto disk = std::make_shared<FakeDisk>();
  ProfileOptions o = options(5ms, 256);
  o.retryInitial = 10ms;
  o.retryMax = 40ms;
  o.write = [disk](int fd, const void* data, size_t size) { return disk->write(fd, data, size); };
  ProfileWriter writer(o);
  OperationRecord record = exampleRecords()[0];
  uint64_t pushed = 0;
  auto push = [&](int n) {
    for (int i = 0; i < n; ++i, ++pushed) {
      record.seq = pushed;
      while (!writer.push(record)) std::this_thread::sleep_for(100us);  // the losses below are the buffer's
    }
  };
  push(500);
  disk->full = true;
  push(20000);  // far more than 4 MiB of text while nothing can be written
  std::this_thread::sleep_for(200ms);
  EXPECT_GT(disk->failures.load(), 2u);
  disk->full = false;
  push(500);
  writer.shutdown();
  const CollectiveParseResult all = parseCollectiveRecords(readFile(writer.path(ProfileFile::Collectives)), "log");
  ASSERT_EQ(all.error, "") << "a torn or duplicated line";
  const Tally t = tally(all.records);
  // Each refused push() is counted as lost too (this test pushes the record again): droppedTotal() counts those,
  // and a slow machine (TSan) refuses many, so the file's dropped count may exceed the records pushed.
  EXPECT_EQ(t.records + t.dropped, pushed + writer.droppedTotal());
  EXPECT_GT(t.dropped, 0u) << "nothing was lost while the disk was full";
  EXPECT_LT(t.dropped - writer.droppedTotal(), pushed) << "every record pushed was lost";
  EXPECT_GT(t.records, 0u);
  std::vector<bool> seen(pushed, false);
  for (const ParsedCollective& r : all.records) {
    if (r.droppedNotice || r.header) continue;
    ASSERT_FALSE(seen[r.record.seq]) << "written twice: " << r.record.seq;
    seen[r.record.seq] = true;
  }
  EXPECT_EQ(parseNetRecords(readFile(writer.path(ProfileFile::Net)), "net").error, "");
  EXPECT_TRUE(nlohmann::json::accept(readFile(writer.path(ProfileFile::Trace))));
}

TEST_F(ProfilerOutputWriter, FlushNowSaysWhenTheDiskFails) {
  auto disk = std::make_shared<FakeDisk>();
  disk->full = true;
  ProfileOptions o = options(1h);
  o.write = [disk](int fd, const void* data, size_t size) { return disk->write(fd, data, size); };
  ProfileWriter writer(o);
  writer.push(exampleRecords()[4]);
  EXPECT_FALSE(writer.flushNow(5s));
  disk->full = false;
  EXPECT_TRUE(writer.flushNow(5s));
  EXPECT_EQ(readLog(writer.path(ProfileFile::Collectives)).size(), 1u);
}

// Two processes with the same job, host and pid (two PID namespaces sharing the folder), here two
// writers of one identity at once: each writes files of its own, each trace a JSON array, no WARN.
TEST_F(ProfilerOutputWriter, TwoWritersOfOneIdentityWriteFilesOfTheirOwn) {
  railtune::testing::LogCapture::instance().clear();
  const Log log("profiler", railtune::testing::captureLogger);
  ProfileWriter first(options(1h), log);
  ProfileWriter second(options(1h), log);
  const std::string stem = (dir_ / "job-1-node-a-4242.").string() + processStartTag();
  EXPECT_EQ(first.path(ProfileFile::Collectives), stem + ".collectives.jsonl");
  ASSERT_NE(second.path(ProfileFile::Collectives), first.path(ProfileFile::Collectives));
  EXPECT_EQ(second.path(ProfileFile::Collectives).rfind(stem + "_", 0), 0u) << second.path(ProfileFile::Collectives);
  EXPECT_EQ(second.path(ProfileFile::Trace).rfind(stem + "_", 0), 0u) << second.path(ProfileFile::Trace);
  first.push(exampleRecords()[0]);
  second.push(exampleRecords()[1]);
  second.push(exampleRecords()[2]);
  first.shutdown();
  second.shutdown();
  EXPECT_EQ(readLog(first.path(ProfileFile::Collectives)).size(), 1u);
  EXPECT_EQ(readLog(second.path(ProfileFile::Collectives)).size(), 2u);
  for (const ProfileWriter* writer : {&first, &second}) {
    const std::string trace = readFile(writer->path(ProfileFile::Trace));
    ASSERT_TRUE(nlohmann::json::accept(trace)) << writer->path(ProfileFile::Trace) << ":\n" << trace;
    EXPECT_TRUE(nlohmann::json::parse(trace).is_array());
  }
  EXPECT_TRUE(railtune::testing::LogCapture::instance().warnings().empty())
      << railtune::testing::LogCapture::instance().dump();
}

TEST_F(ProfilerOutputWriter, AFolderWithMissingParentsIsCreated) {
  railtune::testing::expectMissingParentsMade(dir_, "RAILTUNE_PROFILE_DIR", "profile",
                                              [](const Log& log, EnvLookup env) {
                                                auto writer = ProfileWriter::fromEnvironment(log, env);
                                                ASSERT_NE(writer, nullptr);
                                                writer->push(exampleRecords()[0]);
                                                writer->shutdown();
                                                EXPECT_EQ(readLog(writer->path(ProfileFile::Collectives)).size(), 1u);
                                              });
}

TEST_F(ProfilerOutputWriter, AFileWhereAFolderBelongsIsOneWarnAndNoOutput) {
  railtune::testing::expectFileInTheWayIsOneWarn(
      dir_, "RAILTUNE_PROFILE_DIR", "profile", "no profile output",
      [](const Log& log, EnvLookup env) { return ProfileWriter::fromEnvironment(log, env) != nullptr; });
}

}  // namespace
}  // namespace railtune::profiler::output
