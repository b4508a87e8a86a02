// One command run as a child process to its end: the tools' one runner (the sweep's nccl-tests runs, doctor's
// probe children). The child runs in its own session and process group (setsid), with the environment of this
// process less some variables and plus others. Its stdout and stderr go into one file (the child writes it
// directly: nothing of the output passes through this process), or its stdout is captured into memory and its
// stderr dropped. An optional timeout stops the group (SIGTERM, SIGKILL after a grace period), and SIGINT or
// SIGTERM of this process, once catchInterrupts() was called, is forwarded to the group. The command dies with
// this process (Linux PR_SET_PDEATHSIG: a SIGKILL of the tool leaves nothing running under init), and its group
// is named to the caller before the command starts, so that a later run can kill what it left in its group.
//
// The group is signalled only while its leader (the child) is unreaped, running or a zombie that still holds
// the id; the leader is reaped last, after whatever it left in its group is killed. So no signal of the runner
// can reach a process that was later given the same id. POSIX; the parent-death signal is Linux's.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railtune {

enum class ChildOutput {
  File,     // stdout + stderr into ChildSpec::outputPath, truncated first
  Capture,  // stdout into ChildRun::captured (up to captureLimit bytes; the rest is read and dropped),
            // stderr to /dev/null
};

struct ChildSpec {
  std::vector<std::string> argv;           // argv[0] is looked up in PATH when it has no '/' and program is ""
  std::string program;                     // the file to run, when not argv[0] ("/proc/self/exe")
  std::vector<std::string> unset;          // variables removed from the inherited environment
  std::map<std::string, std::string> env;  // variables set (over the inherited ones)
  ChildOutput output = ChildOutput::File;
  std::string outputPath;         // ChildOutput::File
  size_t captureLimit = 1 << 20;  // ChildOutput::Capture: a command that floods stdout is cut off here
  double timeoutSeconds = 0;      // 0: none
  double killGraceSeconds = 10;   // after SIGTERM (timeout, interrupt), SIGKILL
  // Called with the child's process group (its pid) after fork and before the command is started: the child
  // waits until it returns. When it throws, the child is killed and the run is a start error.
  std::function<void(pid_t group)> onStart;
};

struct ChildRun {
  int exitCode = 0;          // the exit status; 128+N for signal N; 127 when it could not be started
  int signal = 0;            // the signal that ended it, 0 if it exited
  bool timedOut = false;     // stopped after timeoutSeconds
  bool interrupted = false;  // this process was interrupted (SIGINT/SIGTERM) while it ran
  std::string startError;    // it could not be started ("cannot run srun: not found in PATH"); "" when it ran
  double seconds = 0;        // wall time
  uint64_t outputBytes = 0;  // File: the file's length when the run ended (its group killed and reaped);
                             // Capture: the bytes the command wrote to stdout, kept or not
  std::string captured;      // Capture: the first captureLimit bytes of stdout
};

// Runs to the end (or the timeout, or an interrupt). Never throws for the child's failures: a command that
// cannot be started is startError.
ChildRun runChild(const ChildSpec& spec);

// SIGINT and SIGTERM of this process are recorded (not fatal) from here on; runChild forwards them to the
// running child's group and returns with interrupted. interruptSignal() is the first one received, 0 if none.
void catchInterrupts();
int interruptSignal();

// An executable file named name: itself when it contains '/', else the first in PATH; nullopt when none.
std::optional<std::string> findExecutable(std::string_view name);

}  // namespace railtune
