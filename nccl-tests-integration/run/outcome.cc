// How one nccl-tests run ended (outcome.h).
#include "nccl-tests-integration/run/outcome.h"

#include <csignal>
#include <cstdio>
#include <cstring>

#include "nccl-tests-integration/parse/nccl_tests_json.h"

namespace railtune::sweep {

std::string rejectionLine(std::string_view output) {
  OutputScan scan;
  scan.feed(output);
  scan.finish();
  return scan.rejection();
}

size_t tableRows(std::string_view output, std::string_view jsonText) {
  OutputScan scan;
  scan.feed(output);
  scan.finish();
  return tableRows(scan, jsonText);
}

size_t tableRows(const OutputScan& output, std::string_view jsonText) {
  size_t rows = output.rows();
  if (rows == 0 && !jsonText.empty())
    for (const TestRun& run : parseNcclTestsJson(jsonText).runs) rows += run.rows.size();
  return rows;
}

Outcome classifyRun(std::string_view output, std::string_view jsonText, const ProcessEnd& end) {
  OutputScan scan;
  scan.feed(output);
  scan.finish();
  return classifyRun(scan, jsonText, end);
}

Outcome classifyRun(const OutputScan& output, std::string_view jsonText, const ProcessEnd& end) {
  Outcome outcome;
  if (!end.startError.empty()) {
    outcome.reason = end.startError;
    return outcome;
  }
  outcome.rows = tableRows(output, jsonText);
  if (end.interrupted) {
    outcome.reason = "interrupted";
    return outcome;
  }
  const bool exited = end.signal == 0 && !end.timedOut;
  if (exited && end.exitCode == 0 && outcome.rows > 0) {
    outcome.status = RunStatus::Ok;
    return outcome;
  }
  // A rejection on one rank may leave the others waiting until the timeout: the rejection is the reason.
  if (const std::string rejection = output.rejection(); !rejection.empty()) {
    outcome.status = RunStatus::Rejected;
    outcome.reason = rejection;
    return outcome;
  }
  std::string line = output.failure();
  // Else what a launcher or the binary said last ("srun: error: Unable to allocate resources: ...").
  if (line.empty() && !end.timedOut && end.signal == 0 && end.exitCode != 0) line = output.lastWords();
  if (end.timedOut) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", end.timeoutSeconds);
    outcome.reason = std::string("timed out after ") + seconds + " s (--timeout): killed";
  } else if (end.signal != 0) {
    const char* name = strsignal(end.signal);
    outcome.reason = "killed by signal " + std::to_string(end.signal) + (name ? std::string(" (") + name + ")" : "");
  } else if (end.exitCode != 0) {
    outcome.reason = "exit status " + std::to_string(end.exitCode);
  } else {
    outcome.reason = "no table in the output (exit status 0)";
  }
  if (!line.empty())
    outcome.reason += ": " + line;
  else if (outcome.rows == 0 && end.exitCode != 0 && !end.timedOut && end.signal == 0)
    outcome.reason += ", no table";
  return outcome;
}

}  // namespace railtune::sweep
