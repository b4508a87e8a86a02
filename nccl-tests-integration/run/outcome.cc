// How one nccl-tests run ended (outcome.h).
#include "nccl-tests-integration/run/outcome.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "nccl-tests-integration/parse/nccl_tests_json.h"
#include "nccl-tests-integration/parse/nccl_tests_text.h"

namespace railtune::sweep {
namespace {

// NCCL's words when it refuses a forced NCCL_ALGO / NCCL_PROTO (docs/sweep.md, "Rejected choices"):
//   2.5-2.23   WARN "Error : no algorithm/protocol available" (enqueue.cc:1184@v2.18.1, :1848@v2.23.4)
//   2.24-2.29  WARN "Error : no algorithm/protocol available for function %s with datatype %s. NCCL_ALGO was
//              set to ..." (enqueue.cc:1656@v2.24.3, :1966@v2.29.2)
//   2.30       WARN "No algorithm/protocol available for function ..." (enqueue.cc:2063@v2.30.7)
//   2.24+      a value NCCL cannot parse: "Unrecognized element token", "Unrecognized prefix token", "All entries
//              except the first must have a prefix" (graph/tuning.cc:73,109,119@v2.30.7)
// nccl-tests repeats NCCL's last WARN after " / " in its "Test NCCL failure" line (src/common.h:47@v2.19.6).
constexpr std::array<std::string_view, 4> kRejectionWords{
    "no algorithm/protocol available",
    "unrecognized element token",
    "unrecognized prefix token",
    "all entries except the first must have a prefix",
};

// Lines that say why a run failed, most telling first.
constexpr std::array<std::string_view, 6> kFailureWords{
    "Test NCCL failure", "Test CUDA failure", "Test timeout", "NCCL WARN", "NCCL failure", "FAILED",
};

constexpr size_t kMaxReason = 400;

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string shortened(std::string_view text) {
  text = trimmed(text);
  if (text.size() <= kMaxReason) return std::string(text);
  return std::string(text.substr(0, kMaxReason)) + "...";
}

// The line from its telling part on: "NCCL WARN ...", "Test NCCL failure ...", else the whole line.
std::string fromMarker(std::string_view line) {
  for (std::string_view marker : {"NCCL WARN ", "Test NCCL failure ", "NCCL failure "}) {
    const size_t at = line.find(marker);
    if (at != std::string_view::npos) return shortened(line.substr(at));
  }
  return shortened(line);
}

template <typename Visit>
void forEachLine(std::string_view text, Visit visit) {
  size_t start = 0;
  while (start < text.size()) {
    const size_t newline = text.find('\n', start);
    const size_t end = newline == std::string_view::npos ? text.size() : newline;
    if (!visit(text.substr(start, end - start))) return;
    start = end + 1;
  }
}

std::string failureLine(std::string_view output) {
  for (std::string_view words : kFailureWords) {
    std::string found;
    forEachLine(output, [&](std::string_view line) {
      if (line.find(words) == std::string_view::npos) return true;
      found = fromMarker(line);
      return false;
    });
    if (!found.empty()) return found;
  }
  return "";
}

// The last line that is not empty and not one of nccl-tests' '#' lines.
std::string lastWords(std::string_view output) {
  std::string last;
  forEachLine(output, [&](std::string_view line) {
    const std::string_view t = trimmed(line);
    if (!t.empty() && t.front() != '#') last = shortened(t);
    return true;
  });
  return last;
}

}  // namespace

std::string rejectionLine(std::string_view output) {
  std::string warnLine, anyLine;
  forEachLine(output, [&](std::string_view line) {
    const std::string low = lowerAscii(line);
    for (std::string_view words : kRejectionWords) {
      if (low.find(words) == std::string::npos) continue;
      if (line.find("NCCL WARN") != std::string_view::npos) {
        warnLine = fromMarker(line);
        return false;
      }
      if (anyLine.empty()) anyLine = fromMarker(line);
    }
    return true;
  });
  return warnLine.empty() ? anyLine : warnLine;
}

size_t tableRows(std::string_view output, std::string_view jsonText) {
  size_t rows = 0;
  for (const TestRun& run : parseNcclTestsText(output).runs) rows += run.rows.size();
  if (rows == 0 && !jsonText.empty())
    for (const TestRun& run : parseNcclTestsJson(jsonText).runs) rows += run.rows.size();
  return rows;
}

Outcome classifyRun(std::string_view output, std::string_view jsonText, const ProcessEnd& end) {
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
  if (const std::string rejection = rejectionLine(output); !rejection.empty()) {
    outcome.status = RunStatus::Rejected;
    outcome.reason = rejection;
    return outcome;
  }
  std::string line = failureLine(output);
  // Else what a launcher or the binary said last ("srun: error: Unable to allocate resources: ...").
  if (line.empty() && !end.timedOut && end.signal == 0 && end.exitCode != 0) line = lastWords(output);
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
