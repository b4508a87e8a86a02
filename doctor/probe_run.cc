// The parent's side of the probe child: the railtune binary started again by the tools' runner
// (common/child_process.h), its stdout captured under the deadline, then read for the child's answer.
#include <cstring>

#include "common/child_process.h"
#include "doctor/probe.h"

namespace railtune::doctor {
namespace {

constexpr size_t kMaxProbeOutput = 1 << 20;  // a library that floods stdout is cut off here
constexpr const char* kPrefix = "railtune-probe:";

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

// How the child ended, as the checks word it.
void setEnd(const ChildRun& run, ProbeResult& result) {
  if (!run.startError.empty()) {
    result.end = ProbeResult::End::SpawnFailed;
    result.spawnError = run.startError;
  } else if (run.timedOut) {
    result.end = ProbeResult::End::TimedOut;
  } else if (run.signal != 0) {
    result.end = ProbeResult::End::Signalled;
    result.signal = run.signal;
  } else {
    result.end = ProbeResult::End::Exited;
    result.exitCode = run.exitCode;
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
  ChildSpec spec;
  spec.program = "/proc/self/exe";
  spec.argv = {"railtune", "doctor", "probe", "--"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.output = ChildOutput::Capture;
  spec.captureLimit = kMaxProbeOutput;
  spec.timeoutSeconds = timeoutSeconds;
  spec.killGraceSeconds = 0;  // what hangs in a library's constructor is not waited for
  const ChildRun run = runChild(spec);
  ProbeResult result;
  setEnd(run, result);
  parseLines(run.captured, result);
  return result;
}

}  // namespace railtune::doctor
