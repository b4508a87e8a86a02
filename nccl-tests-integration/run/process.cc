// One command run for a sweep (process.h).
#include "nccl-tests-integration/run/process.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
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

ProcessResult runProcess(const ProcessSpec& spec) {
  ProcessResult result;
  result.end.timeoutSeconds = spec.timeoutSeconds;
  const Clock::time_point start = Clock::now();
  if (spec.argv.empty()) {
    result.end.startError = "no command";
    return result;
  }
  const std::optional<std::string> program = findExecutable(spec.argv.front());
  if (!program) {
    result.end.startError = "cannot run " + spec.argv.front() + ": not found" +
                            (spec.argv.front().find('/') == std::string::npos ? " in PATH" : " or not executable");
    result.end.exitCode = 127;
    return result;
  }
  const int output = open(spec.outputPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (output < 0) {
    result.end.startError = "cannot write " + spec.outputPath + ": " + std::strerror(errno);
    result.end.exitCode = 127;
    return result;
  }
  // Everything the child needs, built before fork: only async-signal-safe calls after it.
  std::vector<std::string> envText = childEnvironment(spec);
  std::vector<char*> envp, argv;
  for (std::string& e : envText) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argvText = spec.argv;
  for (std::string& a : argvText) argv.push_back(a.data());
  argv.push_back(nullptr);
  int execPipe[2];
  if (pipe2(execPipe, O_CLOEXEC) != 0) {
    close(output);
    result.end.startError = std::string("cannot start a process: ") + std::strerror(errno);
    result.end.exitCode = 127;
    return result;
  }

  const pid_t pid = fork();
  if (pid < 0) {
    close(output);
    close(execPipe[0]);
    close(execPipe[1]);
    result.end.startError = std::string("cannot start a process: ") + std::strerror(errno);
    result.end.exitCode = 127;
    return result;
  }
  if (pid == 0) {
    setsid();
    struct sigaction action = {};
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    const int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, STDIN_FILENO);
    dup2(output, STDOUT_FILENO);
    dup2(output, STDERR_FILENO);
    execve(program->c_str(), argv.data(), envp.data());
    const int error = errno;
    (void)!write(execPipe[1], &error, sizeof error);
    _exit(127);
  }
  close(output);
  close(execPipe[1]);
  int execError = 0;
  ssize_t got = 0;
  do {
    got = read(execPipe[0], &execError, sizeof execError);
  } while (got < 0 && errno == EINTR);
  close(execPipe[0]);
  int status = 0;
  if (got == static_cast<ssize_t>(sizeof execError)) {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.end.startError = "cannot run " + *program + ": " + std::strerror(execError);
    result.end.exitCode = 127;
    result.seconds = secondsSince(start);
    return result;
  }

  for (;;) {
    if (hasEnded(pid)) break;
    if (const int signal = interruptSignal(); signal != 0) {
      result.end.interrupted = true;
      stopGroup(pid, signal, spec.killGraceSeconds);
      break;
    }
    if (spec.timeoutSeconds > 0 && secondsSince(start) >= spec.timeoutSeconds) {
      result.end.timedOut = true;
      stopGroup(pid, SIGTERM, spec.killGraceSeconds);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Whatever the command left running in its group goes with it (the leader, a zombie, still holds the id).
  kill(-pid, SIGKILL);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
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
