// PathLogWriter (net_plugin/pathlog/writer.h): file naming, identity fields, drop-on-full with the
// loss reported in the next record, periodic flush (bounded wait), snapshots of moving counters only,
// shutdown flush, records surviving SIGKILL, concurrent producers, record() allocating nothing on
// the caller's thread, a folder made with its missing parents (one WARN when it cannot be), and two
// writers of one job, host and pid (two PID namespaces) in files of their own.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <new>
#include <sstream>
#include <thread>
#include <vector>

#include "common/record_files.h"
#include "net_plugin/pathlog/writer.h"
#include "tests/support/fake_env.h"
#include "tests/support/log_capture.h"
#include "tests/support/record_file_name.h"
#include "tests/support/writer_folder_checks.h"

// Counts allocations per thread, so that a test can assert that record() made none. TSan's runtime
// defines operator new itself (a second definition does not link): under TSan that test skips.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RAILTUNE_NO_NEW_REPLACEMENT 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define RAILTUNE_NO_NEW_REPLACEMENT 1
#endif

namespace {
thread_local size_t tAllocations = 0;
}

#ifndef RAILTUNE_NO_NEW_REPLACEMENT
// g++ cannot see that these replace the global pair, and flags free() on memory from "new".
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(size_t size) {
  ++tAllocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, size_t) noexcept {
  std::free(p);
}
#endif

namespace railtune::net::pathlog {
namespace {

using namespace formats::path_log;  // NOLINT: the records the writer writes

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class NetPathlogWriter : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("railtune-pathlog-test-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    railtune::testing::fakeEnvVars().clear();
  }
  void TearDown() override { fs::remove_all(dir_); }

  WriterOptions options(std::chrono::milliseconds flush, size_t capacity = 64) const {
    WriterOptions o;
    o.directory = dir_.string();
    o.identity = Identity{"node-a", "job-1", 4242};
    o.capacity = capacity;
    o.flushInterval = flush;
    o.snapshotInterval = 0ms;
    return o;
  }

  static std::vector<ParsedRecord> readLog(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    ParseAllResult all = parseRecords(text.str(), path);
    EXPECT_EQ(all.error, "");
    return all.records;
  }

  // Polls the file until it holds at least `count` records; the wait is bounded.
  static std::vector<ParsedRecord> waitForRecords(const std::string& path, size_t count) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    std::vector<ParsedRecord> records;
    while ((records = readLog(path)).size() < count && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(5ms);
    }
    return records;
  }

  fs::path dir_;
};

PathRecord connectRecord(uint64_t connection) {
  PathRecord r;
  r.kind = RecordKind::Connect;
  r.connection = connection;
  r.comm = 0xabcULL;
  r.rank = 1;
  r.transport.assign("socket");
  r.streams = 2;
  r.remote.host.assign("node-b");
  r.remote.pid = 77;
  return r;
}

PathRecord closeRecord(uint64_t connection) {
  PathRecord r;
  r.kind = RecordKind::Close;
  r.connection = connection;
  return r;
}

TEST_F(NetPathlogWriter, NamesTheFileAfterJobHostAndPid) {
  EXPECT_EQ(pathLogFileName(Identity{"tray-07", "48213", 99}), "48213-tray-07-99.jsonl");
  EXPECT_EQ(pathLogFileName(Identity{"a/b c", "../x", 1}), ".._x-a_b_c-1.jsonl");
  EXPECT_EQ(pathLogFileName(Identity{"..", "", 1}), "unknown-_-1.jsonl");
  EXPECT_EQ(pathLogFileName(Identity{"tray-07", "48213", 99}, "1a2b3c"), "48213-tray-07-99.1a2b3c.jsonl");
  EXPECT_EQ(pathLogFileName(Identity{"tray-07", "48213", 99}, "1a2b3c_9f0e"), "48213-tray-07-99.1a2b3c_9f0e.jsonl");
}

TEST_F(NetPathlogWriter, UnsetDirectoryMeansNoLog) {
  EXPECT_EQ(PathLogWriter::fromEnvironment(Log("net"), railtune::testing::fakeEnv), nullptr);
}

TEST_F(NetPathlogWriter, UnusableDirectoryMeansNoLogNotAFailure) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "in the way";
  railtune::testing::fakeEnvVars()["RAILTUNE_PATH_LOG_DIR"] = (dir_ / "file").string();
  EXPECT_EQ(PathLogWriter::fromEnvironment(Log("net"), railtune::testing::fakeEnv), nullptr);
  WriterOptions blocked = options(10ms);
  blocked.directory = (dir_ / "file").string();
  EXPECT_THROW(PathLogWriter(blocked, Log("net")), std::runtime_error);
}

TEST_F(NetPathlogWriter, EnvironmentGivesDirectoryAndIdentityFields) {
  auto& env = railtune::testing::fakeEnvVars();
  env["RAILTUNE_PATH_LOG_DIR"] = dir_.string();
  env["RAILTUNE_JOB_ID"] = "job/7";
  env["RAILTUNE_HOST"] = "tray 5";
  auto writer = PathLogWriter::fromEnvironment(Log("net"), railtune::testing::fakeEnv);
  ASSERT_NE(writer, nullptr);
  EXPECT_EQ(writer->path(),
            (dir_ / ("job_7-tray_5-" + std::to_string(getpid()) + "." + processStartTag() + ".jsonl")).string());
  ASSERT_TRUE(writer->record(connectRecord(writer->newConnection())));
  writer->shutdown();
  const auto records = readLog(writer->path());
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].identity.job, "job/7");
  EXPECT_EQ(records[0].identity.host, "tray 5");
  EXPECT_EQ(records[0].identity.pid, getpid());
  EXPECT_EQ(records[0].record.comm, 0xabcULL);
  EXPECT_EQ(records[0].record.rank, 1);
  EXPECT_GT(records[0].record.timeUs, 1700000000000000);  // stamped by record()
}

TEST_F(NetPathlogWriter, DropsWhenFullAndSaysSoInTheNextRecord) {
  PathLogWriter writer(options(1h, 2));  // never flushes on its own: the queue fills
  EXPECT_TRUE(writer.record(connectRecord(1)));
  EXPECT_TRUE(writer.record(connectRecord(2)));
  EXPECT_FALSE(writer.record(connectRecord(3)));
  EXPECT_FALSE(writer.record(connectRecord(4)));
  EXPECT_EQ(writer.droppedTotal(), 2u);
  writer.shutdown();
  const auto records = readLog(writer.path());
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].record.dropped, 2u);
  EXPECT_EQ(records[1].record.dropped, 0u);
  EXPECT_FALSE(writer.record(connectRecord(5))) << "accepted after shutdown";
}

TEST_F(NetPathlogWriter, FlushesPeriodicallyWithoutShutdown) {
  PathLogWriter writer(options(10ms));
  writer.record(connectRecord(1));
  const auto records = waitForRecords(writer.path(), 1);
  ASSERT_EQ(records.size(), 1u) << "nothing reached the file within 10 s";
  EXPECT_EQ(records[0].record.kind, RecordKind::Connect);
}

TEST_F(NetPathlogWriter, AJobKilledWithSigkillLeavesItsRecords) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // the child never returns into the test framework
    try {
      PathLogWriter writer(options(10ms));
      auto counters = std::make_shared<ConnectionCounters>();
      writer.record(connectRecord(1), counters);
      counters->countSent(512);
      std::this_thread::sleep_for(300ms);  // a few flushes, then no destructor, no shutdown
      raise(SIGKILL);
    } catch (...) {
    }
    _exit(1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  // The child's own start time is in the name: found by job, host and pid.
  const auto records = readLog(railtune::testing::findRecordFile(dir_, "job-1-node-a-4242", "jsonl").string());
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].record.kind, RecordKind::Connect);
  EXPECT_EQ(records[1].record.kind, RecordKind::Snapshot);
  EXPECT_EQ(records[1].record.traffic.bytesSent, 512u);
}

TEST_F(NetPathlogWriter, SnapshotsOnlyWhenCountersMove) {
  PathLogWriter writer(options(5ms));
  auto counters = std::make_shared<ConnectionCounters>();
  writer.record(connectRecord(1), counters);
  counters->countSent(4096);
  counters->countReceived(100);
  counters->addBusy(3000);
  auto records = waitForRecords(writer.path(), 2);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].record.kind, RecordKind::Snapshot);
  EXPECT_EQ(records[1].record.connection, 1u);
  EXPECT_EQ(records[1].record.comm, 0xabcULL);
  EXPECT_EQ(records[1].record.traffic, (Traffic{4096, 100, 1, 1, 3}));
  std::this_thread::sleep_for(60ms);  // a dozen cycles of an idle connection
  EXPECT_EQ(readLog(writer.path()).size(), 2u);
  counters->countSent(1);
  records = waitForRecords(writer.path(), 3);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[2].record.traffic.bytesSent, 4097u);
}

TEST_F(NetPathlogWriter, ShutdownWritesQueuedRecordsAndFinalCounters) {
  PathLogWriter writer(options(1h));
  auto open = std::make_shared<ConnectionCounters>();
  auto closed = std::make_shared<ConnectionCounters>();
  writer.record(connectRecord(1), open);
  writer.record(connectRecord(2), closed);
  open->countSent(10);
  closed->countReceived(20);
  writer.record(closeRecord(2));
  const auto start = std::chrono::steady_clock::now();
  writer.shutdown();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s) << "shutdown waited for the flush interval";
  const auto records = readLog(writer.path());
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[2].record.kind, RecordKind::Close);
  EXPECT_EQ(records[2].record.rank, 1) << "close takes comm and rank from its connect record";
  EXPECT_EQ(records[2].record.traffic.bytesReceived, 20u);
  EXPECT_EQ(records[3].record.kind, RecordKind::Snapshot);
  EXPECT_EQ(records[3].record.connection, 1u);
  EXPECT_EQ(records[3].record.traffic.bytesSent, 10u);
}

TEST_F(NetPathlogWriter, RecordAllocatesNothing) {
#ifdef RAILTUNE_NO_NEW_REPLACEMENT
  GTEST_SKIP() << "allocations are not counted under TSan";
#endif
  PathLogWriter writer(options(1ms, 4));
  auto counters = std::make_shared<ConnectionCounters>();
  const PathRecord connect = connectRecord(1);
  const size_t before = tAllocations;
  for (int i = 0; i < 100; ++i) {
    writer.record(connect, counters);  // some dropped: the full path must not allocate either
    counters->countSent(8);
  }
  EXPECT_EQ(tAllocations, before);
}

TEST_F(NetPathlogWriter, ConcurrentProducersLoseNothingUncounted) {
  PathLogWriter writer(options(1ms, 256));
  std::vector<std::thread> producers;
  for (int t = 0; t < 4; ++t) {
    producers.emplace_back([&writer, t] {
      for (int i = 0; i < 500; ++i) writer.record(connectRecord(static_cast<uint64_t>(t * 1000 + i)));
    });
  }
  for (std::thread& p : producers) p.join();
  writer.shutdown();
  const auto records = readLog(writer.path());
  uint64_t reportedDrops = 0;
  size_t connects = 0;
  for (const ParsedRecord& r : records) {
    reportedDrops += r.record.dropped;
    connects += r.record.kind == RecordKind::Connect ? 1 : 0;
  }
  EXPECT_EQ(reportedDrops, writer.droppedTotal());
  EXPECT_EQ(connects + reportedDrops, 2000u);
}

// Two processes with the same job, host and pid (two PID namespaces sharing the folder), here two
// writers of one identity at once: each writes a file of its own, no WARN.
TEST_F(NetPathlogWriter, TwoWritersOfOneIdentityWriteFilesOfTheirOwn) {
  railtune::testing::LogCapture::instance().clear();
  const Log log("net", railtune::testing::captureLogger);
  PathLogWriter first(options(1h), log);
  PathLogWriter second(options(1h), log);
  const std::string stem = (dir_ / "job-1-node-a-4242.").string() + processStartTag();
  EXPECT_EQ(first.path(), stem + ".jsonl");
  ASSERT_NE(second.path(), first.path());
  EXPECT_EQ(second.path().rfind(stem + "_", 0), 0u) << second.path();
  first.record(connectRecord(1));
  second.record(connectRecord(2));
  second.record(connectRecord(3));
  first.shutdown();
  second.shutdown();
  EXPECT_EQ(readLog(first.path()).size(), 1u);
  EXPECT_EQ(readLog(second.path()).size(), 2u);
  EXPECT_TRUE(railtune::testing::LogCapture::instance().warnings().empty())
      << railtune::testing::LogCapture::instance().dump();
}

TEST_F(NetPathlogWriter, AFolderWithMissingParentsIsCreated) {
  railtune::testing::expectMissingParentsMade(dir_, "RAILTUNE_PATH_LOG_DIR", "paths",
                                              [](const Log& log, EnvLookup env) {
                                                auto writer = PathLogWriter::fromEnvironment(log, env);
                                                ASSERT_NE(writer, nullptr);
                                                writer->record(connectRecord(1));
                                                writer->shutdown();
                                                EXPECT_EQ(readLog(writer->path()).size(), 1u);
                                              });
}

TEST_F(NetPathlogWriter, AFileWhereAFolderBelongsIsOneWarnAndNoLog) {
  railtune::testing::expectFileInTheWayIsOneWarn(
      dir_, "RAILTUNE_PATH_LOG_DIR", "paths", "no path log",
      [](const Log& log, EnvLookup env) { return PathLogWriter::fromEnvironment(log, env) != nullptr; });
}

}  // namespace
}  // namespace railtune::net::pathlog
