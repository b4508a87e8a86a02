// One command run for a sweep (process.h).
#include "nccl-tests-integration/run/process.h"

namespace railtune::sweep {

ProcessResult runProcess(const ProcessSpec& spec) {
  ChildSpec toFile = spec;
  toFile.output = ChildOutput::File;
  ChildRun run = runChild(toFile);
  ProcessResult result;
  result.end.exitCode = run.exitCode;
  result.end.signal = run.signal;
  result.end.timedOut = run.timedOut;
  result.end.timeoutSeconds = run.startError.empty() ? spec.timeoutSeconds : 0;
  result.end.interrupted = run.interrupted;
  result.end.startError = std::move(run.startError);
  result.seconds = run.seconds;
  result.outputBytes = run.outputBytes;
  return result;
}

}  // namespace railtune::sweep
