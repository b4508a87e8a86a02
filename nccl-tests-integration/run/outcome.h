// How one nccl-tests run ended, from its output and its exit: ok (exit 0 with a table), rejected (NCCL refused
// the forced choice: its "no algorithm/protocol available" or "Unrecognized element token" lines, of every
// NCCL era, docs/sweep.md), or failed (anything else: an exit status, a signal, a timeout, no table).
#pragma once

#include <string>
#include <string_view>

#include "nccl-tests-integration/run/manifest.h"
#include "nccl-tests-integration/run/output_scan.h"

namespace railtune::sweep {

// How the process ended (process.h fills it).
struct ProcessEnd {
  int exitCode = 0;       // the exit status; 128+N for signal N
  int signal = 0;         // the signal that ended it, 0 if it exited
  bool timedOut = false;  // killed after timeoutSeconds
  double timeoutSeconds = 0;
  bool interrupted = false;  // the sweep was interrupted (SIGINT/SIGTERM) while it ran
  std::string startError;    // it could not be started ("cannot run srun: No such file or directory")
};

struct Outcome {
  RunStatus status = RunStatus::Failed;
  std::string reason;  // rejected / failed: the line that says why
  size_t rows = 0;     // table rows found (text, else the -J file)
};

// The line of an output that says NCCL rejected the forced choice, without NCCL's host:pid:tid prefix
// ("NCCL WARN Error : no algorithm/protocol available for function AllReduce ..."), or "" when none does.
std::string rejectionLine(std::string_view output);

// The table rows of an output: its text, else the -J file's results.
size_t tableRows(std::string_view output, std::string_view jsonText);
size_t tableRows(const OutputScan& output, std::string_view jsonText);

// From a scan of the output (the sweep's way: the output is never held whole), or from its text.
Outcome classifyRun(const OutputScan& output, std::string_view jsonText, const ProcessEnd& end);
Outcome classifyRun(std::string_view output, std::string_view jsonText, const ProcessEnd& end);

}  // namespace railtune::sweep
