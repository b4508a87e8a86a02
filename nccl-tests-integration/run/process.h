// One command run for a sweep: in its own session and process group (setsid), with the environment of this
// process less some variables and plus others, stdout and stderr both into one file (the child writes it
// directly: nothing of the output passes through this process), an optional timeout (SIGTERM to the group,
// SIGKILL after a grace period) and SIGINT/SIGTERM of this process forwarded to the group. The command dies
// with this process (Linux PR_SET_PDEATHSIG: a SIGKILL of `railtune sweep run` leaves no benchmark running
// under init), and its group is named to the caller before the command starts, so that a later sweep can kill
// what the command started in its group. POSIX; the parent-death signal is Linux's.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nccl-tests-integration/run/outcome.h"

namespace railtune::sweep {

struct ProcessSpec {
  std::vector<std::string> argv;           // argv[0] is looked up in PATH when it has no '/'
  std::vector<std::string> unset;          // variables removed from the inherited environment
  std::map<std::string, std::string> env;  // variables set (over the inherited ones)
  std::string outputPath;                  // stdout + stderr, truncated first
  double timeoutSeconds = 0;               // 0: none
  double killGraceSeconds = 10;            // after SIGTERM (timeout, interrupt), SIGKILL
  // Called with the child's process group (its pid) after fork and before the command is started: the child
  // waits until it returns. When it throws, the child is killed and the run is a start error.
  std::function<void(pid_t group)> onStart;
};

struct ProcessResult {
  ProcessEnd end;
  double seconds = 0;        // wall time
  uint64_t outputBytes = 0;  // the output file's length when the run ended (its group killed and reaped)
};

// Runs to the end (or the timeout, or an interrupt). Never throws for the child's failures: a command that
// cannot be started is end.startError.
ProcessResult runProcess(const ProcessSpec& spec);

// SIGINT and SIGTERM of this process are recorded (not fatal) from here on; runProcess forwards them to the
// running child's group and returns with end.interrupted. interruptSignal() is the first one received, 0 if none.
void catchInterrupts();
int interruptSignal();

// An executable file named name: itself when it contains '/', else the first in PATH; nullopt when none.
std::optional<std::string> findExecutable(std::string_view name);

}  // namespace railtune::sweep
