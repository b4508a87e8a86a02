// kill -9 mid-job (docs/profiler.md, "Bad use and killed jobs"): a forked child loads the real
// profiler with RAILTUNE_PROFILE_DIR and runs AllReduces without end through the emulator's NCCL event
// order; once the collective log has been flushed more than once the parent SIGKILLs it and reads every
// file back. The writer hands whole lines to write(2), but a write the kill interrupts may be short, so
// the rule checked is: every complete line parses with the strict readers, only the final unterminated
// piece may be torn, and no record is missing before it (seq numbers are consecutive). The Chrome trace
// is the array form without its closing bracket: '[' and then events that each parse.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

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

constexpr unsigned kKillTestSeconds = 40;  // watchdog of the test (parent)
constexpr unsigned kChildSeconds = 30;     // the child's own limit, should the parent die first

using railtune::testing::readFile;

// The child: a job that never finishes. Exit codes name what failed before the loop.
// `pause` between operations: zero runs them back to back.
[[noreturn]] void runEndlessJob(const std::string& pluginPath, std::chrono::microseconds pause) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  alarm(kChildSeconds);
  emu::Binding binding = emu::Loader::bindVersion(emu::PluginKind::Profiler, pluginPath, 6);
  if (!binding) _exit(2);
  emu::ProfilerDriver driver(binding, emu::NcclBehaviour::V2_30);
  if (driver.init(0x4b1, "killed", 2, 8, 3) != ncclSuccess) _exit(3);
  emu::ProfilerSequence sequence(driver, 3);
  const emu::EmulatedOperation allReduce = emu::ringAllReduce(3, 8, 2, 1, 4, 1 << 20);
  for (;;) {
    if (sequence.run(allReduce).failures != 0) _exit(4);
    if (pause.count() > 0) std::this_thread::sleep_for(pause);
  }
}

// Splits `text` into its newline-terminated lines and the unterminated rest (possibly torn).
struct Lines {
  std::string complete;  // up to and including the last '\n'
  std::string rest;
};
Lines splitAtLastNewline(const std::string& text) {
  const size_t end = text.rfind('\n');
  if (end == std::string::npos) return {"", text};
  return {text.substr(0, end + 1), text.substr(end + 1)};
}

// The events of a trace a killed job left: "[\n", then events separated by ",\n", so every line but
// the first and the unterminated last one is an event followed by its comma. Each must parse.
size_t completeTraceEvents(const std::string& trace) {
  EXPECT_EQ(trace.rfind("[\n", 0), 0u) << trace.substr(0, 100);
  if (trace.rfind("[\n", 0) != 0) return 0;
  const Lines events = splitAtLastNewline(trace.substr(2));
  std::istringstream lines(events.complete);
  size_t parsed = 0;
  for (std::string line; std::getline(lines, line); ++parsed) {
    EXPECT_TRUE(!line.empty() && line.back() == ',') << "events are separated by \",\\n\": " << line;
    if (line.empty() || line.back() != ',') return parsed;
    line.pop_back();
    const nlohmann::json event = nlohmann::json::parse(line, nullptr, false);
    EXPECT_TRUE(!event.is_discarded() && event.contains("ph")) << line;
    if (event.is_discarded()) return parsed;
  }
  return parsed;
}

class ProfilerKillTest : public EmulatedTest {
 protected:
  void SetUp() override {
    EmulatedTest::SetUp();
    alarm(kKillTestSeconds);
    dir = fs::path(::testing::TempDir()) / ("railtune-kill-" + std::to_string(getpid()));
    fs::remove_all(dir);
    env.set("RAILTUNE_PROFILE_DIR", dir.string());
    env.set("RAILTUNE_PROFILE_MASK", "all");
    env.set("RAILTUNE_JOB_ID", "killed");
    env.set("RAILTUNE_HOST", "gb300-r00-t00");
    env.unset("RAILTUNE_HANG_TIMEOUT");
  }
  void TearDown() override {
    if (child > 0) {
      kill(child, SIGKILL);
      waitpid(child, nullptr, 0);
    }
    fs::remove_all(dir);
    alarm(0);
    EmulatedTest::TearDown();
  }
  fs::path file(const std::string& kind) const {
    return railtune::testing::findRecordFile(dir, "killed-gb300-r00-t00-" + std::to_string(child), kind);
  }
  // Waits until the collective log has been written by more than one flush: its size seen twice,
  // growing. An empty string then, else what went wrong (the child ended, or `limit` passed).
  std::string waitForTwoFlushes(std::chrono::seconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    std::uintmax_t firstSize = 0;
    while (std::chrono::steady_clock::now() < end) {
      int status = 0;
      if (waitpid(child, &status, WNOHANG) == child) {
        child = -1;
        return "the job ended before it was killed, wait status " + std::to_string(status);
      }
      std::error_code error;
      const std::uintmax_t size = fs::file_size(file("collectives.jsonl"), error);
      if (!error && size > 0 && firstSize == 0) firstSize = size;
      if (!error && firstSize > 0 && size > firstSize) return "";
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return "the collective log was not flushed twice in " + std::to_string(limit.count()) + " s (size " +
           std::to_string(firstSize) + ")";
  }
  fs::path dir;
  pid_t child = -1;
};

// A thousand AllReduces a second: the writer (even under sanitizers) keeps up, so no record is dropped
// and the seq numbers on disk must be consecutive.
TEST_F(ProfilerKillTest, RecordsUpToTheLastFlushSurviveSigkill) {
  const std::string plugin = pluginPath("profiler");
  child = fork();
  ASSERT_GE(child, 0) << "fork";
  if (child == 0) runEndlessJob(plugin, std::chrono::milliseconds(1));
  const std::string notFlushed = waitForTwoFlushes(std::chrono::seconds(20));
  ASSERT_TRUE(notFlushed.empty()) << notFlushed;
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  const pid_t killed = child;
  child = -1;
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the job ended on its own (exit status " << status << ") before it was killed";
  child = killed;  // file() names the files by the child's pid

  const Lines collectives = splitAtLastNewline(readFile(file("collectives.jsonl")));
  const auto parsed = formats::profile::parseCollectiveRecords(collectives.complete, "collectives");
  ASSERT_TRUE(parsed.error.empty()) << parsed.error;
  ASSERT_GE(parsed.records.size(), 2u);
  RecordProperty("records_before_kill", std::to_string(parsed.records.size()));
  RecordProperty("torn_tail_bytes", std::to_string(collectives.rest.size()));
  for (size_t i = 0; i < parsed.records.size(); ++i) {
    const auto& r = parsed.records[i];
    EXPECT_FALSE(r.droppedNotice) << "line " << i + 1 << ": a record was lost";
    EXPECT_EQ(r.identity.pid, killed);
    EXPECT_EQ(r.record.seq, i) << "line " << i + 1 << ": records are consecutive up to the last flush";
  }
  const Lines net = splitAtLastNewline(readFile(file("net.jsonl")));
  const auto flows = formats::profile::parseNetRecords(net.complete, "net");
  ASSERT_TRUE(flows.error.empty()) << flows.error;
  EXPECT_GE(flows.records.size(), 1u);
  for (const auto& r : flows.records) EXPECT_EQ(r.record.nFlows, 4u);

  const std::string trace = readFile(file("trace.json"));
  const size_t parsedEvents = completeTraceEvents(trace);
  EXPECT_GE(parsedEvents, parsed.records.size()) << "one event per operation at least";
  EXPECT_FALSE(nlohmann::json::accept(trace)) << "a killed job's trace has no closing bracket";
}

// Operations back to back (or 200 us apart under ASan): records come faster than the writer renders them
// and the full queue drops the rest, but whatever the writer has rendered must still reach the disk once
// a second, so that a killed job leaves its records.
TEST_F(ProfilerKillTest, AJobFasterThanTheWriterStillReachesTheDisk) {
  const std::string plugin = pluginPath("profiler");
  child = fork();
  ASSERT_GE(child, 0) << "fork";
  if (child == 0) runEndlessJob(plugin, std::chrono::microseconds(0));
  const std::string notFlushed = waitForTwoFlushes(std::chrono::seconds(10));
  ASSERT_TRUE(notFlushed.empty()) << notFlushed;
  ASSERT_EQ(kill(child, SIGKILL), 0);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  const Lines collectives = splitAtLastNewline(readFile(file("collectives.jsonl")));
  child = -1;
  const auto parsed = formats::profile::parseCollectiveRecords(collectives.complete, "collectives");
  ASSERT_TRUE(parsed.error.empty()) << parsed.error;
  EXPECT_GE(parsed.records.size(), 2u);
}

}  // namespace
}  // namespace railtune::testing
