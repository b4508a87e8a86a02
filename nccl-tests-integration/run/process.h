// One command run for a sweep: the tools' runner (common/child_process.h), its output into the run's file, its
// end told as the sweep's ProcessEnd. The command runs in its own session and process group, with the
// environment of this process less some variables and plus others, stdout and stderr both into one file, an
// optional timeout (SIGTERM to the group, SIGKILL after a grace period) and SIGINT/SIGTERM of this process
// forwarded to the group; it dies with this process, and its group is named to the caller before it starts, so
// that a later sweep can kill what the command started in its group.
#pragma once

#include <cstdint>

#include "common/child_process.h"
#include "nccl-tests-integration/run/outcome.h"

namespace railtune::sweep {

using ProcessSpec = ChildSpec;  // output: ChildOutput::File, into outputPath

struct ProcessResult {
  ProcessEnd end;
  double seconds = 0;        // wall time
  uint64_t outputBytes = 0;  // the output file's length when the run ended (its group killed and reaped)
};

// Runs to the end (or the timeout, or an interrupt). Never throws for the child's failures: a command that
// cannot be started is end.startError.
ProcessResult runProcess(const ProcessSpec& spec);

using railtune::catchInterrupts;  // interrupts recorded, forwarded to the running command's group
using railtune::findExecutable;
using railtune::interruptSignal;

}  // namespace railtune::sweep
