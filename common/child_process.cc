// One command run as a child process to its end (child_process.h).
#include "common/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace railtune {
namespace {

volatile std::sig_atomic_t gInterruptSignal = 0;

extern "C" void recordInterrupt(int signal) {
  if (gInterruptSignal == 0) gInterruptSignal = signal;
}

using Clock = std::chrono::steady_clock;
constexpr int kPollMillis = 20;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The child's environment: ours, less spec.unset, with spec.env over it.
std::vector<std::string> childEnvironment(const ChildSpec& spec) {
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

// The parent's end of a captured stdout, read while the child runs (a full pipe would stall it): kept up to a
// limit, the rest read and dropped. Without a pipe (output into a file) a pause is a plain sleep.
class CapturedOutput {
 public:
  CapturedOutput(int fd, size_t limit) : fd_(fd), limit_(limit) {}
  CapturedOutput(const CapturedOutput&) = delete;
  CapturedOutput& operator=(const CapturedOutput&) = delete;
  ~CapturedOutput() { closePipe(); }

  // Waits up to `millis` for output and reads what came; sleeps that long when there is no pipe.
  void pause(int millis) {
    if (fd_ < 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(millis));
      return;
    }
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, millis) > 0 && !readSome()) closePipe();
  }

  // What is left in the pipe once the group is dead, without waiting: a process that left the group (setsid)
  // may hold the pipe and write on, so this reads at most a few times the pipe's capacity.
  void drain() {
    if (fd_ < 0) return;
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK);
    for (int i = 0; i < 64 && readSome(); ++i) {
    }
    closePipe();
  }

  std::string text;
  uint64_t bytes = 0;

 private:
  bool readSome() {  // false at EOF, on an error, or when nothing is there (non-blocking)
    char buffer[65536];
    ssize_t n = 0;
    do {
      n = ::read(fd_, buffer, sizeof buffer);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) return false;
    bytes += static_cast<uint64_t>(n);
    if (text.size() < limit_) text.append(buffer, std::min(static_cast<size_t>(n), limit_ - text.size()));
    return true;
  }
  void closePipe() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int fd_;
  size_t limit_;
};

// Waits for pid to end (unreaped) for at most seconds (< 0: no limit); true when it ended.
bool waitForEnd(pid_t pid, double seconds, CapturedOutput& output) {
  const Clock::time_point start = Clock::now();
  for (;;) {
    if (hasEnded(pid)) return true;
    if (seconds >= 0 && secondsSince(start) >= seconds) return false;
    output.pause(kPollMillis);
  }
}

// The signal (SIGTERM, or the interrupt's own) to the group, SIGKILL after the grace period. The leader has not
// been reaped, so the group's id is still its own.
void stopGroup(pid_t pid, int signal, double grace, CapturedOutput& output) {
  kill(-pid, signal);
  if (!waitForEnd(pid, grace, output)) {
    kill(-pid, SIGKILL);
    waitForEnd(pid, -1, output);
  }
}

// Until the run ends, the timeout passes or this process is interrupted; the group is stopped in the last two.
void waitForRun(pid_t pid, const ChildSpec& spec, Clock::time_point start, ChildRun& run, CapturedOutput& output) {
  for (;;) {
    if (hasEnded(pid)) return;
    if (const int signal = interruptSignal(); signal != 0) {
      run.interrupted = true;
      stopGroup(pid, signal, spec.killGraceSeconds, output);
      return;
    }
    if (spec.timeoutSeconds > 0 && secondsSince(start) >= spec.timeoutSeconds) {
      run.timedOut = true;
      stopGroup(pid, SIGTERM, spec.killGraceSeconds, output);
      return;
    }
    output.pause(kPollMillis);
  }
}

void closeAll(std::initializer_list<int> fds) {
  for (int fd : fds)
    if (fd >= 0) close(fd);
}

// Where the child's stdout and stderr go, opened before fork.
struct OutputFds {
  int out = -1;          // the child's stdout
  int err = -1;          // the child's stderr (File: the same file as out)
  int captureRead = -1;  // Capture: the parent's end of out
  std::string error;     // why they could not be opened
};

OutputFds openOutput(const ChildSpec& spec) {
  OutputFds fds;
  if (spec.output == ChildOutput::File) {
    fds.out = fds.err = open(spec.outputPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fds.out < 0) fds.error = "cannot write " + spec.outputPath + ": " + std::strerror(errno);
    return fds;
  }
  int pipeFds[2] = {-1, -1};
  fds.err = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (fds.err < 0 || pipe2(pipeFds, O_CLOEXEC) != 0) {
    fds.error = std::string("cannot start a process: ") + std::strerror(errno);
    closeAll({fds.err});
    return fds;
  }
  fds.captureRead = pipeFds[0];
  fds.out = pipeFds[1];
  return fds;
}

// What the child needs, built before fork: only async-signal-safe calls after it.
struct ChildArgs {
  std::string program;
  std::vector<std::string> envText, argvText;
  std::vector<char*> envp, argv;
  pid_t parent = 0;
  int out = -1, err = -1;
  int goRead = -1;     // the parent's go: one byte once the group is recorded; EOF when the parent died first
  int goWrite = -1;    // closed in the child, so that only the parent holds it
  int execWrite = -1;  // errno of a failed execve
};

ChildArgs childArgs(const ChildSpec& spec, const std::string& program, const OutputFds& output) {
  ChildArgs a;
  a.program = program;
  a.envText = childEnvironment(spec);
  for (std::string& e : a.envText) a.envp.push_back(e.data());
  a.envp.push_back(nullptr);
  a.argvText = spec.argv;
  for (std::string& w : a.argvText) a.argv.push_back(w.data());
  a.argv.push_back(nullptr);
  a.parent = getpid();
  a.out = output.out;
  a.err = output.err;
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
  dup2(a.out, STDOUT_FILENO);
  dup2(a.err, STDERR_FILENO);
  execve(a.program.c_str(), a.argv.data(), a.envp.data());
  const int error = errno;
  (void)!write(a.execWrite, &error, sizeof error);
  _exit(127);
}

int reap(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

ChildRun startError(std::string message, Clock::time_point start) {
  ChildRun run;
  run.startError = std::move(message);
  run.exitCode = 127;
  run.seconds = secondsSince(start);
  return run;
}

// The group recorded (spec.onStart), then the go to the child; "" or why the run cannot start.
std::string releaseChild(const ChildSpec& spec, pid_t pid, int goWrite) {
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

// Forks the child and lets it run the command once the group is recorded: its pid, or 0 and `error` set (the
// child, if there was one, killed and reaped).
pid_t startChild(const ChildSpec& spec, ChildArgs& args, std::string& error) {
  int execPipe[2] = {-1, -1}, goPipe[2] = {-1, -1};
  if (pipe2(execPipe, O_CLOEXEC) != 0 || pipe2(goPipe, O_CLOEXEC) != 0) {
    error = std::string("cannot start a process: ") + std::strerror(errno);
    closeAll({execPipe[0], execPipe[1]});
    return 0;
  }
  args.goRead = goPipe[0];
  args.goWrite = goPipe[1];
  args.execWrite = execPipe[1];
  const pid_t pid = fork();
  if (pid == 0) childMain(args);
  closeAll({execPipe[1], goPipe[0]});
  if (pid < 0) {
    error = std::string("cannot start a process: ") + std::strerror(errno);
    closeAll({execPipe[0], goPipe[1]});
    return 0;
  }
  error = releaseChild(spec, pid, goPipe[1]);
  close(goPipe[1]);  // a child not released reads EOF and exits
  const int execError = error.empty() ? execErrorOf(execPipe[0]) : 0;
  close(execPipe[0]);
  if (error.empty() && execError == 0) return pid;
  if (error.empty()) error = "cannot run " + args.program + ": " + std::strerror(execError);
  kill(pid, SIGKILL);  // not reaped yet: the id is still the child's
  reap(pid);
  return 0;
}

// How the run ended, from the leader's wait status.
void setEnd(int status, ChildRun& run) {
  if (WIFSIGNALED(status)) {
    run.signal = WTERMSIG(status);
    run.exitCode = 128 + run.signal;
  } else if (WIFEXITED(status)) {
    run.exitCode = WEXITSTATUS(status);
  }
}

std::string notFound(const std::string& name) {
  return "cannot run " + name + ": not found" +
         (name.find('/') == std::string::npos ? " in PATH" : " or not executable");
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

ChildRun runChild(const ChildSpec& spec) {
  const Clock::time_point start = Clock::now();
  if (spec.argv.empty()) {
    ChildRun run = startError("no command", start);
    run.exitCode = 0;
    return run;
  }
  const std::string& name = spec.program.empty() ? spec.argv.front() : spec.program;
  const std::optional<std::string> program = findExecutable(name);
  if (!program) return startError(notFound(name), start);
  const OutputFds output = openOutput(spec);
  if (!output.error.empty()) return startError(output.error, start);
  CapturedOutput captured(output.captureRead, spec.captureLimit);
  ChildArgs args = childArgs(spec, *program, output);
  std::string error;
  const pid_t pid = startChild(spec, args, error);
  if (spec.output == ChildOutput::Capture) closeAll({output.out, output.err});  // the child holds its own ends
  const int file = spec.output == ChildOutput::File ? output.out : -1;
  if (pid == 0) {
    closeAll({file});
    return startError(error, start);
  }
  ChildRun run;
  waitForRun(pid, spec, start, run, captured);
  // Whatever the command left running in its group goes with it (the leader, a zombie, still holds the id).
  kill(-pid, SIGKILL);
  setEnd(reap(pid), run);
  captured.drain();
  run.captured = std::move(captured.text);
  run.outputBytes = captured.bytes;
  // The output is what was written until now: a process that left the group (setsid) may write on.
  struct stat st = {};
  if (file >= 0 && fstat(file, &st) == 0) run.outputBytes = static_cast<uint64_t>(st.st_size);
  closeAll({file});
  run.seconds = secondsSince(start);
  return run;
}

}  // namespace railtune
