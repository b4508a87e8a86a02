// One command run for a sweep (process.h).
#include "nccl-tests-integration/run/process.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace railtune::sweep {
namespace {

volatile std::sig_atomic_t gInterruptSignal = 0;

extern "C" void recordInterrupt(int signal) {
  if (gInterruptSignal == 0) gInterruptSignal = signal;
}

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The child's environment: ours, less spec.unset, with spec.env over it.
std::vector<std::string> childEnvironment(const ProcessSpec& spec) {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const std::string name(entry.substr(0, entry.find('=')));
    if (spec.env.count(name) > 0) continue;
    bool removed = false;
    for (const std::string& u : spec.unset) removed = removed || u == name;
    if (!removed) out.emplace_back(entry);
  }
  for (const auto& [name, value] : spec.env) out.push_back(name + "=" + value);
  return out;
}

// Whether pid has ended, leaving it unreaped: while the leader is a zombie its id (the group's) cannot be
// reused, so that signalling the group never reaches a stranger.
bool hasEnded(pid_t pid) {
  siginfo_t info = {};
  if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) return errno != EINTR;
  return info.si_pid == pid;
}

// Waits for pid to end (unreaped) for at most seconds (< 0: no limit); true when it ended.
bool waitForEnd(pid_t pid, double seconds) {
  const Clock::time_point start = Clock::now();
  for (;;) {
    if (hasEnded(pid)) return true;
    if (seconds >= 0 && secondsSince(start) >= seconds) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// The signal (SIGTERM, or the interrupt's own) to the group, SIGKILL after the grace period.
void stopGroup(pid_t pid, int signal, double grace) {
  kill(-pid, signal);
  if (!waitForEnd(pid, grace)) {
    kill(-pid, SIGKILL);
    waitForEnd(pid, -1);
  }
}

}  // namespace

void catchInterrupts() {
  struct sigaction action = {};
  action.sa_handler = recordInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int interruptSignal() {
  return gInterruptSignal;
}

std::optional<std::string> findExecutable(std::string_view name) {
  const auto executable = [](const std::string& path) {
    struct stat st = {};
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
  };
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string_view::npos) {
    const std::string path(name);
    return executable(path) ? std::optional<std::string>(path) : std::nullopt;
  }
  const char* path = std::getenv("PATH");
  const std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t colon = dirs.find(':', start);
    std::string dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + std::string(name);
    if (executable(candidate)) return candidate;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return std::nullopt;
}

namespace {

// What the child needs, built before fork: only async-signal-safe calls after it.
struct ChildArgs {
  std::string program;
  std::vector<std::string> envText, argvText;
  std::vector<char*> envp, argv;
  pid_t parent = 0;
  int output = -1;
  int goRead = -1;     // the parent's go: one byte once the group is recorded; EOF when the parent died first
  int goWrite = -1;    // closed in the child, so that only the parent holds it
  int execWrite = -1;  // errno of a failed execve
};

ChildArgs childArgs(const ProcessSpec& spec, const std::string& program, int output) {
  ChildArgs a;
  a.program = program;
  a.envText = childEnvironment(spec);
  for (std::string& e : a.envText) a.envp.push_back(e.data());
  a.envp.push_back(nullptr);
  a.argvText = spec.argv;
  for (std::string& w : a.argvText) a.argv.push_back(w.data());
  a.argv.push_back(nullptr);
  a.parent = getpid();
  a.output = output;
  return a;
}

// The child between fork and exec: its own session and group; killed when this process dies (the parent-death
// signal, set before checking that the parent is still the one that forked it, so that a parent dying in
// between is seen); started only once the parent says its group is recorded.
[[noreturn]] void childMain(const ChildArgs& a) {
  setsid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != a.parent) _exit(127);
  close(a.goWrite);
  char go = 0;
  ssize_t got = 0;
  do {
    got = read(a.goRead, &go, 1);
  } while (got < 0 && errno == EINTR);
  if (got != 1) _exit(127);
  struct sigaction action = {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  const int null = open("/dev/null", O_RDONLY);
  if (null >= 0) dup2(null, STDIN_FILENO);
  dup2(a.output, STDOUT_FILENO);
  dup2(a.output, STDERR_FILENO);
  execve(a.program.c_str(), a.argv.data(), a.envp.data());
  const int error = errno;
  (void)!write(a.execWrite, &error, sizeof error);
  _exit(127);
}

void closeAll(std::initializer_list<int> fds) {
  for (int fd : fds)
    if (fd >= 0) close(fd);
}

int reap(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// Until the run ends, the timeout passes or this process is interrupted; the group is stopped in the last two.
void waitForRun(pid_t pid, const ProcessSpec& spec, Clock::time_point start, ProcessEnd& end) {
  for (;;) {
    if (hasEnded(pid)) return;
    if (const int signal = interruptSignal(); signal != 0) {
      end.interrupted = true;
      stopGroup(pid, signal, spec.killGraceSeconds);
      return;
    }
    if (spec.timeoutSeconds > 0 && secondsSince(start) >= spec.timeoutSeconds) {
      end.timedOut = true;
      stopGroup(pid, SIGTERM, spec.killGraceSeconds);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

ProcessResult startError(std::string message, Clock::time_point start) {
  ProcessResult result;
  result.end.startError = std::move(message);
  result.end.exitCode = 127;
  result.seconds = secondsSince(start);
  return result;
}

// The group recorded (spec.onStart), then the go to the child; "" or why the run cannot start.
std::string releaseChild(const ProcessSpec& spec, pid_t pid, int goWrite) {
  std::string error;
  try {
    if (spec.onStart) spec.onStart(pid);
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (error.empty() && write(goWrite, "g", 1) != 1)
    error = std::string("cannot start a process: ") + std::strerror(errno);
  return error;
}

// execve's errno from the child, 0 once it ran the command (the pipe closed on exec).
int execErrorOf(int execRead) {
  int execError = 0;
  ssize_t got = 0;
  do {
    got = read(execRead, &execError, sizeof execError);
  } while (got < 0 && errno == EINTR);
  return got == static_cast<ssize_t>(sizeof execError) ? execError : 0;
}

}  // namespace

ProcessResult runProcess(const ProcessSpec& spec) {
  const Clock::time_point start = Clock::now();
  if (spec.argv.empty()) {
    ProcessResult result = startError("no command", start);
    result.end.exitCode = 0;
    return result;
  }
  const std::optional<std::string> program = findExecutable(spec.argv.front());
  if (!program)
    return startError("cannot run " + spec.argv.front() + ": not found" +
                          (spec.argv.front().find('/') == std::string::npos ? " in PATH" : " or not executable"),
                      start);
  const int output = open(spec.outputPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (output < 0) return startError("cannot write " + spec.outputPath + ": " + std::strerror(errno), start);
  ChildArgs args = childArgs(spec, *program, output);
  int execPipe[2] = {-1, -1}, goPipe[2] = {-1, -1};
  if (pipe2(execPipe, O_CLOEXEC) != 0 || pipe2(goPipe, O_CLOEXEC) != 0) {
    closeAll({output, execPipe[0], execPipe[1]});
    return startError(std::string("cannot start a process: ") + std::strerror(errno), start);
  }
  args.goRead = goPipe[0];
  args.goWrite = goPipe[1];
  args.execWrite = execPipe[1];
  const pid_t pid = fork();
  if (pid == 0) childMain(args);
  closeAll({execPipe[1], goPipe[0]});
  if (pid < 0) {
    closeAll({output, execPipe[0], goPipe[1]});
    return startError(std::string("cannot start a process: ") + std::strerror(errno), start);
  }
  const std::string released = releaseChild(spec, pid, goPipe[1]);
  close(goPipe[1]);  // a child not released reads EOF and exits
  const int execError = released.empty() ? execErrorOf(execPipe[0]) : 0;
  close(execPipe[0]);
  if (!released.empty() || execError != 0) {
    kill(pid, SIGKILL);
    reap(pid);
    close(output);
    return startError(!released.empty() ? released : "cannot run " + *program + ": " + std::strerror(execError), start);
  }

  ProcessResult result;
  result.end.timeoutSeconds = spec.timeoutSeconds;
  waitForRun(pid, spec, start, result.end);
  // Whatever the command left running in its group goes with it (the leader, a zombie, still holds the id).
  kill(-pid, SIGKILL);
  const int status = reap(pid);
  // The output is what was written until now: a process that left the group (setsid) may write on.
  struct stat st = {};
  if (fstat(output, &st) == 0) result.outputBytes = static_cast<uint64_t>(st.st_size);
  close(output);
  result.seconds = secondsSince(start);
  if (WIFSIGNALED(status)) {
    result.end.signal = WTERMSIG(status);
    result.end.exitCode = 128 + result.end.signal;
  } else if (WIFEXITED(status)) {
    result.end.exitCode = WEXITSTATUS(status);
  }
  return result;
}

}  // namespace railtune::sweep
