// A sweep's plan run (`railtune sweep run`): one run after another, each one's output in DIR/runs/, one
// manifest line appended (and flushed to disk) as each ends, a progress line with an estimate of the time
// left. A sweep resumes: the runs whose last manifest line is ok or rejected are not run again, failed ones
// are. SIGINT/SIGTERM stop the sweep after forwarding the signal to the running command (recorded as failed,
// "interrupted").
#pragma once

#include <cstdio>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nccl-tests-integration/run/manifest.h"
#include "nccl-tests-integration/run/outcome.h"
#include "nccl-tests-integration/run/plan.h"

namespace railtune::sweep {

struct RunnerOptions {
  double timeoutSeconds = 0;        // per run; 0: none
  double killGraceSeconds = 10;     // SIGTERM, then SIGKILL after this
  bool restart = false;             // forget the manifest's earlier lines (the file is emptied)
  std::vector<std::string> unset;   // variables removed from the environment every run inherits
  std::FILE* progress = stderr;     // progress lines and warnings
  bool progressIsTerminal = false;  // also a "running" line, overwritten when the run ends
};

struct SweepResult {
  size_t toRun = 0;                         // runs this invocation had to do
  size_t ok = 0, rejected = 0, failed = 0;  // of the runs this invocation did
  size_t notRun = 0;                        // choices NCCL never offers (recorded as rejected, never run)
  size_t alreadyDone = 0;                   // ok or rejected in an earlier invocation
  std::vector<std::pair<std::string, std::string>> failures;  // id, reason
  int interruptSignal = 0;                                    // SIGINT/SIGTERM stopped the sweep
};

// The planned runs an earlier invocation finished (last line ok or rejected). Throws std::invalid_argument
// when one was made with another command line (the same folder used for another sweep).
std::set<std::string> finishedRuns(const Manifest& previous, const Plan& plan, const std::string& manifestPath);

// Runs the plan's runs in spec.dir (created). Throws std::runtime_error when the folder or the manifest
// cannot be written, or when another sweep holds the manifest.
SweepResult runSweep(const Plan& plan, const SweepSpec& spec, const RunnerOptions& options);

// Whether an nccl-tests help text (`BINARY -h`) offers -J (nccl-tests 2.17.3+: "[-J,--output_file <file> ...]").
bool listsJsonOption(std::string_view helpText);

// Runs `binary -h` (no launcher) in dir and reads whether it offers -J. note: why not, for the user.
struct JsonProbe {
  bool supported = false;
  std::string note;
  std::string help;  // the help text itself ("" when it could not be had): what else the binary offers
};
JsonProbe probeJsonSupport(const std::string& binary, const std::string& dir);

// "[12/40] allreduce.ring-ll128.r0 ok 14.2 s · ETA 6 min"
std::string progressLine(size_t done, size_t total, const std::string& id, const Outcome& outcome, double seconds,
                         double etaSeconds);
std::string formatDuration(double seconds);  // "45 s", "6 min", "1 h 20 min"

// UTC, ISO 8601 with milliseconds: "2026-07-10T09:15:02.123Z".
std::string utcNow();

}  // namespace railtune::sweep
