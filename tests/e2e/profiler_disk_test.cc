// Nothing unaccounted whatever happens to the disk (docs/profiler.md, "Nothing unaccounted"): the real
// profiler .so through the emulator's NCCL event order, with
//   - its folder removed (rm -rf, then made again) while the job runs: the writer notices at its next
//     flush, WARNs, writes new files under the same names, and the new collective log's header counts
//     the records the removed file held; records on disk + counted lost = operations run;
//   - a full disk (a 16 KiB tmpfs in a mount namespace of a forked child) at exit: what could not be
//     written is counted in a WARN; records on disk + counted lost = operations run.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>

#include "emulator/logger.h"
#include "emulator/profiler_driver.h"
#include "emulator/profiler_sequence.h"
#include "formats/profile_logs.h"
#include "tests/e2e/emulated_fixture.h"
#include "tests/support/file_text.h"
#include "tests/support/record_file_name.h"

namespace railtune::testing {
namespace {

namespace fs = std::filesystem;
namespace po = formats::profile;

constexpr int kFullDiskExitCode = 0;
constexpr int kNoNamespaceExitCode = 77;  // the child could not mount a small filesystem: skipped

// The operations a rank runs: each one record.
struct Rank {
  emu::Binding binding;
  std::unique_ptr<emu::ProfilerDriver> driver;
  std::unique_ptr<emu::ProfilerSequence> sequence;
  emu::EmulatedOperation allReduce = emu::ringAllReduce(3, 8, 2, 1, 4, 1 << 20);

  explicit Rank(const std::string& plugin) : binding(emu::Loader::bindVersion(emu::PluginKind::Profiler, plugin, 6)) {
    if (!binding) return;
    driver = std::make_unique<emu::ProfilerDriver>(binding, emu::NcclBehaviour::V2_30);
    if (driver->init(0x4b1, "disk", 2, 8, 3) != ncclSuccess) return;
    sequence = std::make_unique<emu::ProfilerSequence>(*driver, 3);
  }
  bool ready() const { return sequence != nullptr; }
  int run(int operations) {
    int failures = 0;
    for (int i = 0; i < operations; ++i) failures += sequence->run(allReduce).failures;
    return failures;
  }
};

// What a collective log says: records in it, and records it counts lost (dropped lines and headers).
struct LogCount {
  uint64_t records = 0, lost = 0;
  std::vector<po::ParsedCollective> headers;
  std::string error;
};

LogCount countLog(const std::string& text) {
  LogCount count;
  // A disk that filled may have cut the last line short: only complete lines are read.
  const std::string complete = text.substr(0, text.rfind('\n') + 1);
  po::CollectiveParseResult parsed = po::parseCollectiveRecords(complete, "collectives");
  count.error = parsed.error;
  for (const po::ParsedCollective& line : parsed.records) {
    if (line.droppedNotice) {
      count.lost += line.recordsDropped;
    } else {
      ++count.records;
    }
  }
  for (const po::ParsedCollective& header : parsed.headers) count.lost += header.recordsDropped;
  count.headers = std::move(parsed.headers);
  return count;
}

uint64_t prometheusRecordsDropped(const std::string& text) {
  const std::regex line(R"(railtune_profile_records_dropped_total\{[^}]*\} (\d+))");
  std::smatch match;
  return std::regex_search(text, match, line) ? std::stoull(match[1]) : ~0ULL;
}

class ProfilerDiskTest : public EmulatedTest {
 protected:
  void SetUp() override {
    EmulatedTest::SetUp();
    alarm(60);
    dir = fs::path(::testing::TempDir()) / ("railtune-disk-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    env.set("RAILTUNE_PROFILE_MASK", "all");
    env.set("RAILTUNE_JOB_ID", "disk");
    env.set("RAILTUNE_HOST", "gb300-r00-t00");
    env.unset("RAILTUNE_HANG_TIMEOUT");
    env.unset("RAILTUNE_PROFILE_PROMETHEUS");
  }
  void TearDown() override {
    fs::remove_all(dir);
    alarm(0);
    EmulatedTest::TearDown();
  }
  fs::path dir;
};

// Waits until the collective log under `folder` holds more than its header: a flush wrote records.
bool waitForRecords(const fs::path& folder, std::chrono::seconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    const fs::path log = findRecordFile(folder, "disk-gb300-r00-t00-" + std::to_string(getpid()), "collectives.jsonl");
    std::error_code error;
    if (!log.empty() && fs::exists(log, error) && countLog(readFile(log)).records > 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// rm -rf of RAILTUNE_PROFILE_DIR and mkdir again mid-job (issue: the writers kept writing into the
// removed files, the folder ended empty and nothing said so).
TEST_F(ProfilerDiskTest, AFolderRemovedMidJobIsWrittenAgainAndWhatItHeldIsCounted) {
  const fs::path profile = dir / "profile";
  const fs::path metrics = dir / "metrics.prom";
  env.set("RAILTUNE_PROFILE_DIR", profile.string());
  env.set("RAILTUNE_PROFILE_PROMETHEUS", metrics.string());
  constexpr int kBefore = 200, kAfter = 120;
  {
    Rank rank(pluginPath("profiler"));
    ASSERT_TRUE(rank.ready());
    ASSERT_EQ(rank.run(kBefore), 0);
    ASSERT_TRUE(waitForRecords(profile, std::chrono::seconds(10))) << "no flush wrote the first records";
    fs::remove_all(profile);
    fs::create_directories(profile);
    ASSERT_EQ(rank.run(kAfter), 0);
    ASSERT_EQ(rank.driver->finalize(), ncclSuccess);
  }
  std::vector<fs::path> logs;
  for (const fs::directory_entry& e : fs::directory_iterator(profile))
    if (e.path().string().ends_with(".collectives.jsonl")) logs.push_back(e.path());
  ASSERT_EQ(logs.size(), 1u) << "the collective log is written again under the folder made again";
  const LogCount count = countLog(readFile(logs[0]));
  ASSERT_TRUE(count.error.empty()) << count.error;
  ASSERT_FALSE(count.headers.empty());
  const po::ParsedCollective& first = count.headers.front();
  EXPECT_GT(first.recordsDropped, 0u) << "the new file's first line counts the records the removed one held";
  EXPECT_EQ(first.droppedReason, "the file was removed while the job ran");
  EXPECT_EQ(count.records + count.lost, static_cast<uint64_t>(kBefore + kAfter))
      << count.records << " records on disk, " << count.lost << " counted lost";
  EXPECT_EQ(prometheusRecordsDropped(readFile(metrics)), count.lost);
  size_t removedWarnings = 0;
  for (const std::string& line : pluginWarnings())
    if (line.find("was removed while the job ran") != std::string::npos) ++removedWarnings;
  EXPECT_EQ(removedWarnings, 1u) << pluginLogText();
  for (const char* kind : {"net.jsonl", "trace.json"}) {
    const fs::path file = findRecordFile(profile, "disk-gb300-r00-t00-" + std::to_string(getpid()), kind);
    EXPECT_TRUE(fs::exists(file)) << kind << " is written again too";
  }
}

// The child: mounts a 16 KiB tmpfs in a mount namespace of its own, runs `operations` into it, finalizes,
// then copies the files and its plugin log out to `out`. Exit codes: 0 done, 77 no namespace, others failures.
[[noreturn]] void runOnAFullDisk(const std::string& plugin, const fs::path& full, const fs::path& out, int operations) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  alarm(30);
  if (unshare(CLONE_NEWNS) != 0 && unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) _exit(kNoNamespaceExitCode);
  if (mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) _exit(kNoNamespaceExitCode);
  if (mount("tmpfs", full.c_str(), "tmpfs", 0, "size=16k") != 0) _exit(kNoNamespaceExitCode);
  setenv("RAILTUNE_PROFILE_DIR", full.c_str(), 1);
  {
    Rank rank(plugin);
    if (!rank.ready()) _exit(2);
    if (rank.run(operations) != 0) _exit(3);
    if (rank.driver->finalize() != ncclSuccess) _exit(4);
  }
  std::error_code error;
  fs::copy(full, out, error);
  if (error) _exit(5);
  std::ofstream log(out / "plugin.log");
  for (const std::string& line : emu::takePluginLog()) log << line << "\n";
  log.close();  // _exit flushes no stream
  _exit(log ? kFullDiskExitCode : 6);
}

// A full disk at exit (issue: the records still queued were neither written nor counted).
TEST_F(ProfilerDiskTest, RecordsThatAFullDiskKeepsOutAtExitAreCounted) {
  const fs::path full = dir / "full", out = dir / "out";
  fs::create_directories(full);
  fs::create_directories(out);
  constexpr int kOperations = 300;
  const std::string plugin = pluginPath("profiler");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) runOnAFullDisk(plugin, full, out, kOperations);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  if (WEXITSTATUS(status) == kNoNamespaceExitCode) GTEST_SKIP() << "no mount namespace for a small tmpfs here";
  ASSERT_EQ(WEXITSTATUS(status), kFullDiskExitCode);
  const std::string log = readFile(out / "plugin.log");
  std::smatch match;
  const std::regex atExit(R"(at exit (\d+) records could not be written)");
  std::string listing;
  for (const fs::directory_entry& e : fs::directory_iterator(out))
    listing += e.path().filename().string() + " " + std::to_string(e.is_regular_file() ? e.file_size() : 0) + "\n";
  ASSERT_TRUE(std::regex_search(log, match, atExit)) << "no count of what was lost at exit:\n" << log << listing;
  const uint64_t lostAtExit = std::stoull(match[1]);
  EXPECT_GT(lostAtExit, 0u) << "a 16 KiB disk cannot hold " << kOperations << " records";
  uint64_t onDisk = 0, countedInFile = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(out)) {
    if (!e.path().string().ends_with(".collectives.jsonl")) continue;
    const LogCount count = countLog(readFile(e.path()));
    ASSERT_TRUE(count.error.empty()) << count.error;
    onDisk += count.records;
    countedInFile += count.lost;
  }
  // When the last dropped line got in, it is among the file's counts already.
  const bool lastLineCounts = log.find("the collective log's last line counts them") != std::string::npos;
  EXPECT_EQ(onDisk + countedInFile + (lastLineCounts ? 0 : lostAtExit), static_cast<uint64_t>(kOperations))
      << onDisk << " records on disk, " << countedInFile << " counted lost in the file, " << lostAtExit << " at exit\n"
      << log;
}

}  // namespace
}  // namespace railtune::testing
