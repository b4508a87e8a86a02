// Running the railtune CLI from a scenario, as a user would (`railtune emu net-job`, `railtune paths check`, ...):
// a child process with its output in files, a time limit, and what became of it. Emulated scenarios use it because
// `emu net-job` forks its ranks from a single-threaded process, and because the commands themselves (their
// options, their printed answer, their exit status) are what is scored.
#pragma once

#include <string>
#include <vector>

namespace railtune::eval {

struct CommandRun {
  int exitCode = -1;  // -1: killed by a signal, timed out or not started
  int signal = 0;
  bool timedOut = false;
  std::string out, err;
  std::string describe() const;  // "exit status 2", "killed by signal 11", "no answer within 60 s"...
};

// Runs argv[0] (a path) with stdout and stderr in `<scratch>/<name>.out|.err`; kills it after `timeoutSeconds`.
CommandRun runCli(const std::vector<std::string>& argv, const std::string& scratch, const std::string& name,
                  int timeoutSeconds);

// The command line, quoted enough to paste into a shell (for a miss's message and the accuracy table).
std::string commandLine(const std::vector<std::string>& argv);

}  // namespace railtune::eval
