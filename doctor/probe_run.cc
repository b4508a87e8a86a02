// The parent's side of the probe child: spawn, read under a deadline, reap.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "doctor/probe.h"

extern char** environ;

namespace railtune::doctor {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kMaxProbeOutput = 1 << 20;  // a library that floods stdout is cut off here
constexpr const char* kPrefix = "railtune-probe:";

int millisLeft(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1000));
}

// Reads the child's stdout until EOF or the deadline; false when the deadline passed first.
bool readUntilEof(int fd, Clock::time_point deadline, std::string& out) {
  char buffer[4096];
  while (true) {
    const int wait = millisLeft(deadline);
    if (wait == 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, wait);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    if (out.size() < kMaxProbeOutput) out.append(buffer, static_cast<size_t>(n));
  }
}

// Waits for the child to end until the deadline; kills it when the deadline passes.
void reap(pid_t pid, Clock::time_point deadline, bool deadlinePassed, ProbeResult& result) {
  int status = 0;
  while (!deadlinePassed) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) break;
    if (Clock::now() >= deadline)
      deadlinePassed = true;
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (deadlinePassed) {
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.end = ProbeResult::End::TimedOut;
    return;
  }
  if (WIFSIGNALED(status)) {
    result.end = ProbeResult::End::Signalled;
    result.signal = WTERMSIG(status);
  } else {
    result.end = ProbeResult::End::Exited;
    result.exitCode = WEXITSTATUS(status);
  }
}

void parseLines(const std::string& text, ProbeResult& result) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.rfind(kPrefix, 0) != 0) continue;
    const size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    const size_t keyStart = std::strlen(kPrefix);
    result.values[line.substr(keyStart, eq - keyStart)] = line.substr(eq + 1);
  }
}

}  // namespace

std::string ProbeResult::get(const std::string& key) const {
  auto it = values.find(key);
  return it == values.end() ? "" : it->second;
}

std::string ProbeResult::describeEnd(int timeoutSeconds) const {
  switch (end) {
    case End::Exited:
      return "exited with status " + std::to_string(exitCode);
    case End::Signalled:
      return "crashed with signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
    case End::TimedOut:
      return "did not finish within " + std::to_string(timeoutSeconds) + " s (killed)";
    case End::SpawnFailed:
      return "could not be started: " + spawnError;
  }
  return "";
}

ProbeResult runProbe(const std::vector<std::string>& args, int timeoutSeconds) {
  ProbeResult result;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    result.spawnError = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  std::vector<std::string> argv = {"railtune", "doctor", "probe", "--"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (std::string& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    result.spawnError = std::string("posix_spawn /proc/self/exe: ") + std::strerror(rc);
    return result;
  }
  const auto deadline = Clock::now() + std::chrono::seconds(timeoutSeconds);
  std::string output;
  const bool eof = readUntilEof(fds[0], deadline, output);
  ::close(fds[0]);
  reap(pid, deadline, !eof, result);
  parseLines(output, result);
  return result;
}

}  // namespace railtune::doctor
