// common/child_process.h, the tools' one runner: output captured or into a file, start errors, timeouts, and
// the promise that makes it safe to kill a whole group: it signals a process or group only while the leader is
// an unreaped child of this process (running, or a zombie holding the id), never after reaping it, when the id
// may already belong to a stranger.
//
// To see every signal the runner sends, this test program defines kill() itself: the executable's definition
// is the one the runner's code (linked into it) calls. Each call is recorded with the state its target's leader
// was in at that moment, asked of the kernel with waitid(WNOWAIT), which neither reaps nor changes anything.
#include "common/child_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

// The state of a process id, as this process's waitid sees it without reaping.
enum class Leader { Running, Zombie, NotOurChild };

Leader leaderState(pid_t pid) {
  siginfo_t info = {};
  if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) return Leader::NotOurChild;
  return info.si_pid == pid ? Leader::Zombie : Leader::Running;
}

struct SignalSent {
  pid_t target;  // kill()'s first argument: -group or pid
  int signal;
  Leader leader;  // the state of |target| when it was sent
};

std::array<SignalSent, 256> gSent;
std::atomic<size_t> gSentCount{0};

std::vector<SignalSent> sentSince(size_t from) {
  const size_t n = std::min(gSentCount.load(), gSent.size());
  return {gSent.begin() + static_cast<std::ptrdiff_t>(std::min(from, n)),
          gSent.begin() + static_cast<std::ptrdiff_t>(n)};
}

}  // namespace

// kill() for this whole program: recorded, then sent. (Targets 0 and -1, this process's own group and every
// process, are never the runner's.)
extern "C" int kill(pid_t target, int signal) noexcept {
  const size_t at = gSentCount.fetch_add(1);
  const pid_t leader = target < 0 ? -target : target;
  if (at < gSent.size()) gSent[at] = {target, signal, leader > 1 ? leaderState(leader) : Leader::NotOurChild};
  return static_cast<int>(syscall(SYS_kill, target, signal));
}

namespace railtune {
namespace {

namespace fs = std::filesystem;

class ChildProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("railtune-child-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    first_ = gSentCount.load();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Every signal sent since the test began, each to an unreaped leader; the group signals among them.
  std::vector<SignalSent> groupSignals(pid_t group) {
    std::vector<SignalSent> toGroup;
    for (const SignalSent& s : sentSince(first_)) {
      EXPECT_NE(s.leader, Leader::NotOurChild)
          << "signal " << s.signal << " sent to " << s.target << " after its leader was reaped";
      if (s.target == -group) toGroup.push_back(s);
    }
    return toGroup;
  }

  ChildSpec shell(const std::string& script) {
    ChildSpec spec;
    spec.argv = {"/bin/sh", "-c", script};
    spec.outputPath = (dir_ / "out.txt").string();
    spec.onStart = [this](pid_t group) { group_ = group; };
    return spec;
  }

  std::string outputText() {
    std::ifstream in(dir_ / "out.txt");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path dir_;
  size_t first_ = 0;
  pid_t group_ = 0;
};

// The case the rule is for: the leader exits while what it started runs on in its group. The group is killed
// after the leader ended (a zombie then) and before it is reaped; the straggler dies of that SIGKILL.
TEST_F(ChildProcess, GroupKilledWhileItsLeaderIsAZombieNeverAfterReaping) {
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);  // the orphaned straggler becomes our child: its end is seen
  const ChildRun run = runChild(shell("sleep 60 & echo $!; exit 3"));
  ASSERT_EQ(run.startError, "");
  EXPECT_EQ(run.exitCode, 3);
  ASSERT_GT(group_, 0);
  EXPECT_EQ(leaderState(group_), Leader::NotOurChild);  // reaped: no zombie left behind

  const std::vector<SignalSent> toGroup = groupSignals(group_);
  ASSERT_EQ(toGroup.size(), 1u);
  EXPECT_EQ(toGroup[0].signal, SIGKILL);
  EXPECT_EQ(toGroup[0].leader, Leader::Zombie);

  const pid_t straggler = std::stoi(outputText());
  int status = 0;
  ASSERT_EQ(waitpid(straggler, &status, 0), straggler);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  prctl(PR_SET_CHILD_SUBREAPER, 0);
}

// A timeout: SIGTERM to the group while the leader runs, then the final SIGKILL while it is a zombie.
TEST_F(ChildProcess, TimeoutSignalsTheGroupOnlyBeforeReaping) {
  ChildSpec spec = shell("exec sleep 60");
  spec.timeoutSeconds = 0.2;
  spec.killGraceSeconds = 5;
  const ChildRun run = runChild(spec);
  EXPECT_TRUE(run.timedOut);
  EXPECT_EQ(run.signal, SIGTERM);
  EXPECT_EQ(run.exitCode, 128 + SIGTERM);
  const std::vector<SignalSent> toGroup = groupSignals(group_);
  ASSERT_EQ(toGroup.size(), 2u);
  EXPECT_EQ(toGroup[0].signal, SIGTERM);
  EXPECT_EQ(toGroup[0].leader, Leader::Running);
  EXPECT_EQ(toGroup[1].signal, SIGKILL);
  EXPECT_EQ(toGroup[1].leader, Leader::Zombie);
  EXPECT_EQ(leaderState(group_), Leader::NotOurChild);
}

// A run that cannot start (onStart throws): the child is killed while still unreaped, then reaped.
TEST_F(ChildProcess, StartRefusedKillsTheUnreapedChild) {
  ChildSpec spec = shell("exit 0");
  spec.onStart = [this](pid_t group) {
    group_ = group;
    throw std::runtime_error("no record of the group");
  };
  const ChildRun run = runChild(spec);
  EXPECT_EQ(run.startError, "no record of the group");
  EXPECT_EQ(run.exitCode, 127);
  groupSignals(group_);  // every signal to an unreaped child
  const std::vector<SignalSent> sent = sentSince(first_);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].target, group_);
  EXPECT_EQ(leaderState(group_), Leader::NotOurChild);
}

// The recorder itself tells a reaped leader: without this, the checks above could pass by seeing nothing.
TEST_F(ChildProcess, RecorderSeesASignalToAReapedLeader) {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  kill(-child, 0);  // signal 0: only asks whether the group exists
  const std::vector<SignalSent> sent = sentSince(first_);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].leader, Leader::NotOurChild);
}

TEST_F(ChildProcess, CaptureKeepsStdoutUpToTheLimitAndDropsStderr) {
  ChildSpec spec = shell("echo to-stderr >&2; printf 'abcdefghij'; exit 0");
  spec.output = ChildOutput::Capture;
  spec.captureLimit = 4;
  const ChildRun run = runChild(spec);
  EXPECT_EQ(run.exitCode, 0);
  EXPECT_EQ(run.captured, "abcd");
  EXPECT_EQ(run.outputBytes, 10u);
  EXPECT_FALSE(fs::exists(dir_ / "out.txt"));
}

// More than a pipe holds: the runner reads while the child writes, or the child would stall until the timeout.
TEST_F(ChildProcess, CaptureReadsWhileTheChildWrites) {
  ChildSpec spec = shell("head -c 1000000 /dev/zero");
  spec.output = ChildOutput::Capture;
  spec.timeoutSeconds = 120;
  const ChildRun run = runChild(spec);
  EXPECT_FALSE(run.timedOut);
  EXPECT_EQ(run.exitCode, 0);
  EXPECT_EQ(run.captured.size(), 1000000u);
}

TEST_F(ChildProcess, FileGetsStdoutAndStderrAndTheEnvironmentAsAsked) {
  setenv("RAILTUNE_CHILD_TEST_DROP", "dropped", 1);
  ChildSpec spec = shell("echo \"$RAILTUNE_CHILD_TEST_SET/${RAILTUNE_CHILD_TEST_DROP:-gone}\"; echo err >&2");
  spec.env = {{"RAILTUNE_CHILD_TEST_SET", "set"}};
  spec.unset = {"RAILTUNE_CHILD_TEST_DROP"};
  const ChildRun run = runChild(spec);
  unsetenv("RAILTUNE_CHILD_TEST_DROP");
  EXPECT_EQ(run.exitCode, 0);
  EXPECT_EQ(outputText(), "set/gone\nerr\n");
  EXPECT_EQ(run.outputBytes, outputText().size());
}

TEST_F(ChildProcess, ProgramRunsUnderItsOwnArgvZeroAndMissingOnesAreStartErrors) {
  ChildSpec spec = shell("echo $0");
  spec.program = "/bin/sh";
  spec.argv = {"named-so", "-c", "echo $0"};
  EXPECT_EQ(runChild(spec).exitCode, 0);
  EXPECT_EQ(outputText(), "named-so\n");

  spec.program = (dir_ / "no-such-program").string();
  const ChildRun missing = runChild(spec);
  EXPECT_EQ(missing.exitCode, 127);
  EXPECT_NE(missing.startError.find("no-such-program: not found or not executable"), std::string::npos);
  ChildSpec inPath;
  inPath.argv = {"railtune-no-such-command"};
  EXPECT_EQ(runChild(inPath).startError, "cannot run railtune-no-such-command: not found in PATH");
}

}  // namespace
}  // namespace railtune
