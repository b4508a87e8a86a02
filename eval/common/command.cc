// See command.h.
#include "eval/common/command.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace railtune::eval {
namespace {

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string CommandRun::describe() const {
  if (timedOut) return "no answer within its time limit";
  if (signal != 0) return "killed by signal " + std::to_string(signal);
  if (exitCode < 0) return "not started: " + err;
  return "exit status " + std::to_string(exitCode);
}

CommandRun runCli(const std::vector<std::string>& argv, const std::string& scratch, const std::string& name,
                  int timeoutSeconds) {
  CommandRun run;
  const std::string outPath = scratch + "/" + name + ".out", errPath = scratch + "/" + name + ".err";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    run.err = "cannot start " + argv[0];
    return run;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);  // net-job's ranks die with it (PR_SET_PDEATHSIG)
      ::waitpid(pid, &status, 0);
      run.timedOut = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!run.timedOut && WIFEXITED(status)) run.exitCode = WEXITSTATUS(status);
  if (!run.timedOut && WIFSIGNALED(status)) run.signal = WTERMSIG(status);
  run.out = readAll(outPath), run.err = readAll(errPath);
  return run;
}

std::string commandLine(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& a : argv) {
    const bool plain = a.find_first_of(" \t'\"$\\;&|<>*?()") == std::string::npos && !a.empty();
    line += (line.empty() ? "" : " ") + (plain ? a : "'" + a + "'");
  }
  return line;
}

}  // namespace railtune::eval
