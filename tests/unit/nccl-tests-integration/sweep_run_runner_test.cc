// railtune_sweep_run's runner and process (nccl-tests-integration/run/runner.h, process.h): commands run with
// their environment, timeouts that kill the whole process group, a small sweep of the stand-in nccl-tests binary
// (tests/data/sweep/fake_all_reduce_perf) with its manifest, resume after a crash, progress lines.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "nccl-tests-integration/run/process.h"
#include "nccl-tests-integration/run/runner.h"
#include "nccl-tests-integration/run/running_record.h"

namespace railtune::sweep {
namespace {

namespace fs = std::filesystem;

std::string runnerFileText(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Whether pid runs (a zombie, killed and not yet reaped by init, does not), waiting up to a second for it to go.
bool running(pid_t pid) {
  for (int i = 0; i < 50; ++i) {
    const std::string stat = runnerFileText("/proc/" + std::to_string(pid) + "/stat");
    const size_t close = stat.rfind(')');
    if (stat.empty() || close == std::string::npos || close + 2 >= stat.size() || stat[close + 2] == 'Z') return false;
    usleep(20000);
  }
  return true;
}

class SweepRunFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "sweep_run_test.XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string dir_;
};

using SweepRunProcess = SweepRunFolder;
using SweepRunRunner = SweepRunFolder;

TEST_F(SweepRunProcess, EnvironmentSetAndUnsetOutputCaptured) {
  setenv("SWEEP_RUN_TEST_REMOVED", "x", 1);
  ProcessSpec spec;
  spec.argv = {"sh", "-c",
               "echo out; echo err >&2; echo \"A=$SWEEP_RUN_TEST_SET B=${SWEEP_RUN_TEST_REMOVED-unset}\"; exit 4"};
  spec.env = {{"SWEEP_RUN_TEST_SET", "yes"}};
  spec.unset = {"SWEEP_RUN_TEST_REMOVED"};
  spec.outputPath = dir_ + "/out.txt";
  const ProcessResult result = runProcess(spec);
  unsetenv("SWEEP_RUN_TEST_REMOVED");
  EXPECT_EQ(result.end.exitCode, 4);
  EXPECT_EQ(result.end.signal, 0);
  EXPECT_FALSE(result.end.timedOut);
  EXPECT_EQ(runnerFileText(spec.outputPath), "out\nerr\nA=yes B=unset\n");
}

TEST_F(SweepRunProcess, TimeoutKillsTheWholeGroup) {
  ProcessSpec spec;
  // The child's own child would outlive a kill of the child alone; it writes its pid first.
  spec.argv = {"sh", "-c", "sleep 30 & echo $! > " + dir_ + "/grandchild; wait"};
  spec.outputPath = dir_ + "/out.txt";
  spec.timeoutSeconds = 0.3;
  spec.killGraceSeconds = 2;
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult result = runProcess(spec);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
  EXPECT_TRUE(result.end.timedOut);
  EXPECT_EQ(result.end.signal, 15);
  EXPECT_EQ(result.end.exitCode, 143);
  const pid_t grandchild = std::stoi(runnerFileText(dir_ + "/grandchild"));
  EXPECT_FALSE(running(grandchild)) << "the grandchild survived the timeout";
}

// The group is named to the caller before the command runs: the command has printed nothing yet, and the group is
// the command's own pid.
TEST_F(SweepRunProcess, GroupRecordedBeforeTheCommandRuns) {
  ProcessSpec spec;
  spec.argv = {"sh", "-c", "echo $$"};
  spec.outputPath = dir_ + "/out.txt";
  pid_t group = 0;
  std::string outputAtStart = "unset";
  spec.onStart = [&](pid_t g) {
    group = g;
    outputAtStart = runnerFileText(spec.outputPath);
  };
  const ProcessResult result = runProcess(spec);
  EXPECT_EQ(result.end.exitCode, 0);
  EXPECT_EQ(outputAtStart, "");
  EXPECT_EQ(runnerFileText(spec.outputPath), std::to_string(group) + "\n");
  EXPECT_EQ(result.outputBytes, std::to_string(group).size() + 1);
}

TEST_F(SweepRunProcess, GroupNotRecordedCommandNeverRuns) {
  ProcessSpec spec;
  spec.argv = {"touch", dir_ + "/ran"};
  spec.outputPath = dir_ + "/out.txt";
  spec.onStart = [](pid_t) { throw std::runtime_error("cannot write running.json: No space left on device"); };
  const ProcessResult result = runProcess(spec);
  EXPECT_EQ(result.end.startError, "cannot write running.json: No space left on device");
  EXPECT_EQ(result.end.exitCode, 127);
  EXPECT_FALSE(fs::exists(dir_ + "/ran"));
}

// The output's length is taken when the run ends: a process that left the group (setsid) and writes on is not in it.
TEST_F(SweepRunProcess, OutputBytesAreThoseWrittenUntilTheEnd) {
  ProcessSpec spec;
  // The command ends once the writer has left its group (else the end of the run would kill it first).
  spec.argv = {"sh", "-c",
               "printf abc; setsid sh -c 'touch left; sleep 0.3; printf later; touch done' & "
               "while [ ! -e left ]; do sleep 0.01; done"};
  spec.outputPath = dir_ + "/out.txt";
  const std::string before = fs::current_path().string();
  fs::current_path(dir_);
  const ProcessResult result = runProcess(spec);
  fs::current_path(before);
  EXPECT_EQ(result.end.exitCode, 0);
  EXPECT_EQ(result.outputBytes, 3u);
  for (int i = 0; i < 1500 && !fs::exists(dir_ + "/done"); ++i) usleep(20000);
  EXPECT_EQ(runnerFileText(spec.outputPath), "abclater");
}

// A command in its own session and group, as runProcess starts one, left running; reaped by the test.
pid_t leftSleeping() {
  const pid_t pid = fork();
  if (pid == 0) {
    setsid();
    execlp("sleep", "sleep", "30", static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// An earlier sweep's group is killed only while it is still the run's: never a group of another boot, never a
// process that was given the recorded pid later.
TEST_F(SweepRunProcess, LeftoverGroupKilledOnlyWhileItIsTheRuns) {
  const pid_t pid = leftSleeping();
  ASSERT_GT(pid, 0);
  const std::string path = dir_ + "/running.json";
  RunningRecord record = runningRecordOf("allreduce.ring-ll128.r0", pid, "2026-07-10T09:15:12.241Z");
  RunningRecord otherBoot = record;
  otherBoot.bootId = "00000000-0000-0000-0000-000000000000";
  writeRunningRecord(path, otherBoot);
  EXPECT_TRUE(killLeftoverRun(path, 5).empty());
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(running(pid));
  RunningRecord reused = record;
  reused.startTicks += 1;
  writeRunningRecord(path, reused);
  EXPECT_TRUE(killLeftoverRun(path, 5).empty());
  EXPECT_TRUE(running(pid));

  writeRunningRecord(path, record);
  const std::vector<std::string> said = killLeftoverRun(path, 5);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_EQ(said[0],
            "run allreduce.ring-ll128.r0 of an earlier sweep (started 2026-07-10T09:15:12.241Z) was still "
            "running: process group " +
                std::to_string(pid) + " (1 process) killed");
  EXPECT_FALSE(running(pid));
  EXPECT_FALSE(fs::exists(path));
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);

  std::ofstream(path) << "{\"schema\":\"railtune.sweep-running/1\",\"id\":3}\n";
  EXPECT_EQ(killLeftoverRun(path, 5),
            std::vector<std::string>{path + ": a field is missing or of the wrong type; removed (nothing killed)"});
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(killLeftoverRun(path, 5).empty());  // no record: nothing to do
}

TEST_F(SweepRunProcess, MissingProgramIsAStartError) {
  ProcessSpec spec;
  spec.argv = {"no-such-program-railtune"};
  spec.outputPath = dir_ + "/out.txt";
  const ProcessResult result = runProcess(spec);
  EXPECT_EQ(result.end.startError, "cannot run no-such-program-railtune: not found in PATH");
  EXPECT_EQ(result.end.exitCode, 127);
  spec.argv = {dir_};  // a folder: found by name, refused by execve
  EXPECT_NE(runProcess(spec).end.startError, "");
  EXPECT_EQ(findExecutable("sh").value_or("").back(), 'h');
  EXPECT_EQ(findExecutable(dir_ + "/nothing"), std::nullopt);
}

TEST(SweepRunProgress, LineAndDurations) {
  Outcome ok;
  ok.status = RunStatus::Ok;
  EXPECT_EQ(progressLine(12, 40, "allreduce.ring-ll128.r0", ok, 14.2, 340),
            "[12/40] allreduce.ring-ll128.r0 ok 14.2 s \u00b7 ETA 6 min");
  Outcome rejected;
  rejected.status = RunStatus::Rejected;
  rejected.reason = "NCCL WARN Error : no algorithm/protocol available";
  EXPECT_EQ(progressLine(40, 40, "allreduce.nvls-ll.r0", rejected, 3.04, 0),
            "[40/40] allreduce.nvls-ll.r0 rejected 3.0 s (NCCL WARN Error : no algorithm/protocol available)");
  EXPECT_EQ(formatDuration(44.6), "45 s");
  EXPECT_EQ(formatDuration(61), "2 min");
  EXPECT_EQ(formatDuration(4800), "1 h 20 min");
  EXPECT_EQ(utcNow().size(), 24u);
  EXPECT_TRUE(listsJsonOption("\t[-J,--output_file <file> write output to filepath, if accessible.] \n"));
  EXPECT_FALSE(listsJsonOption("\t[-C,--report_cputime <0/1>] \n\t[-a,--average <0/1/2/3>] \n"));
}

SweepSpec standInSpec(const std::string& dir) {
  SweepSpec spec;
  spec.dir = dir;
  spec.binary = std::string(RAILTUNE_SWEEP_DATA) + "/fake_all_reduce_perf";
  spec.test = "all_reduce_perf";
  spec.args = {"-b", "1M", "-e", "4M", "-f", "2", "-g", "4"};
  spec.algorithms = {"ring", "nvls", "collnet_direct"};
  spec.protocols = {"ll", "simple"};
  spec.json = true;
  return spec;
}

RunnerOptions quiet() {
  RunnerOptions options;
  options.progress = std::tmpfile();
  return options;
}

TEST_F(SweepRunRunner, SmallSweepOfTheStandIn) {
  const SweepSpec spec = standInSpec(dir_);
  const Plan plan = makePlan(spec);
  const SweepResult result = runSweep(plan, spec, quiet());
  EXPECT_EQ(result.toRun, 6u);  // default, ring x 2, nvls/simple, collnet_direct x 2
  EXPECT_EQ(result.ok, 4u);
  EXPECT_EQ(result.rejected, 2u);  // collnet_direct x 2 by the stand-in
  EXPECT_EQ(result.notRun, 1u);    // nvls/ll
  EXPECT_EQ(result.failed, 0u);

  const Manifest manifest = readManifestText(runnerFileText(dir_ + "/manifest.jsonl"));
  EXPECT_TRUE(manifest.diagnostics.empty());
  ASSERT_EQ(manifest.entries.size(), 7u);
  EXPECT_EQ(manifest.entries[0].id, "allreduce.nvls-ll.r0");  // not run: written first
  EXPECT_EQ(manifest.entries[0].reason.rfind("not run: NCCL runs NVLS with the Simple protocol only", 0), 0u);
  EXPECT_EQ(manifest.entries[0].output, "");
  EXPECT_EQ(manifest.entries[1].id, "allreduce.default.r0");
  for (const ManifestEntry& e : manifest.entries) {
    if (e.id.find("collnet_direct") != std::string::npos) {
      EXPECT_EQ(e.status, RunStatus::Rejected) << e.id;
      EXPECT_EQ(e.exitCode, 3);
      EXPECT_NE(e.reason.find("NCCL_ALGO was set to CollnetDirect."), std::string::npos) << e.reason;
    } else if (e.output.empty()) {
      EXPECT_EQ(e.status, RunStatus::Rejected) << e.id;
    } else {
      EXPECT_EQ(e.status, RunStatus::Ok) << e.id << ": " << e.reason;
      EXPECT_EQ(e.json, "runs/" + e.id + ".json");
      EXPECT_TRUE(fs::is_regular_file(dir_ + "/" + e.json)) << e.json;
      EXPECT_NE(runnerFileText(dir_ + "/" + e.output).find("# Writing JSON output to"), std::string::npos);
    }
    EXPECT_EQ(e.test, "all_reduce_perf");
    EXPECT_EQ(e.start.size(), 24u);
  }
}

TEST_F(SweepRunRunner, ResumeSkipsFinishedRunsAndRerunsFailedOnes) {
  SweepSpec spec = standInSpec(dir_);
  spec.algorithms = {"ring"};
  spec.protocols = {"ll", "simple"};
  const Plan plan = makePlan(spec);
  setenv("RAILTUNE_FAKE_FAIL_RUNS", "ring-ll.", 1);
  const SweepResult first = runSweep(plan, spec, quiet());
  unsetenv("RAILTUNE_FAKE_FAIL_RUNS");
  EXPECT_EQ(first.ok, 2u);
  EXPECT_EQ(first.failed, 1u);
  ASSERT_EQ(first.failures.size(), 1u);
  EXPECT_EQ(first.failures[0].first, "allreduce.ring-ll.r0");
  EXPECT_NE(first.failures[0].second.find("Test CUDA failure"), std::string::npos);

  // A crash cut the manifest's last line: a warning, and the run it was about is run again.
  {
    std::ofstream out(dir_ + "/manifest.jsonl", std::ios::app);
    out << "{\"schema\":\"railtune.sweep-manifest/1\",\"id\":\"allreduce.default.r0\",\"sta";
  }
  const SweepResult second = runSweep(plan, spec, quiet());
  EXPECT_EQ(second.alreadyDone, 2u);
  EXPECT_EQ(second.toRun, 1u);
  EXPECT_EQ(second.ok, 1u);
  EXPECT_EQ(second.failed, 0u);
  const Manifest manifest = readManifestText(runnerFileText(dir_ + "/manifest.jsonl"));
  ASSERT_EQ(manifest.diagnostics.size(), 1u);  // the cut line, on a line of its own
  EXPECT_EQ(manifest.diagnostics[0].line, 4u);
  ASSERT_EQ(manifest.entries.size(), 3u);
  for (const ManifestEntry& e : manifest.entries) EXPECT_EQ(e.status, RunStatus::Ok) << e.id;

  const SweepResult third = runSweep(plan, spec, quiet());
  EXPECT_EQ(third.toRun, 0u);
  EXPECT_EQ(third.alreadyDone, 3u);

  RunnerOptions restart = quiet();
  restart.restart = true;
  EXPECT_EQ(runSweep(plan, spec, restart).toRun, 3u);
}

TEST_F(SweepRunRunner, AnotherCommandInTheSameFolderIsRefused) {
  SweepSpec spec = standInSpec(dir_);
  spec.algorithms = {"ring"};
  spec.protocols = {"simple"};
  runSweep(makePlan(spec), spec, quiet());
  spec.args = {"-b", "1M", "-e", "8M", "-f", "2", "-g", "4"};
  const Plan other = makePlan(spec);
  const Manifest previous = readManifestText(runnerFileText(dir_ + "/manifest.jsonl"));
  try {
    finishedRuns(previous, other, dir_ + "/manifest.jsonl");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--restart"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("allreduce.default.r0"), std::string::npos) << e.what();
  }
}

TEST_F(SweepRunRunner, JsonProbeReadsTheHelpText) {
  EXPECT_TRUE(probeJsonSupport(std::string(RAILTUNE_SWEEP_DATA) + "/fake_all_reduce_perf", dir_).supported);
  const JsonProbe old = probeJsonSupport("/bin/true", dir_);
  EXPECT_FALSE(old.supported);
  EXPECT_NE(old.note.find("does not list -J"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ + "/.help.txt"));
}

}  // namespace
}  // namespace railtune::sweep
