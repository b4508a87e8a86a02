// A run's output scanned in bounded memory (output_scan.h).
#include "nccl-tests-integration/run/output_scan.h"

#include <cctype>

#include "common/text.h"
#include "nccl-tests-integration/parse/nccl_tests_text.h"

namespace railtune::sweep {
namespace {

// NCCL's words when it refuses a forced NCCL_ALGO / NCCL_PROTO (docs/sweep.md, "Rejected choices"), lower case:
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

// nccl-tests' table header, after a launcher's prefix ("[1,0]<stdout>:", "3: ") if any: "#  size  count ...".
bool isTableHeader(std::string_view line) {
  const size_t hash = line.find('#');
  if (hash == std::string_view::npos) return false;
  const std::string_view before = trimmed(line.substr(0, hash));
  const bool launcher = before.empty() || before.ends_with(">:") ||
                        (before.size() >= 2 && before.back() == ':' &&
                         before.substr(0, before.size() - 1).find_first_not_of("0123456789") == std::string_view::npos);
  return launcher && trimmed(line.substr(hash + 1)).starts_with("size ");
}

// Where a batch of whole lines is cut for the table reader: before its trailing lines from the last one that is
// neither blank nor an NCCL INFO line (a row whose numbers INFO lines may still delay), when that is near the end.
size_t batchCut(std::string_view batch) {
  size_t end = batch.size();  // batch ends with '\n'
  while (end > 0 && batch.size() - end <= OutputScan::kMaxHeldBack) {
    const size_t newline = end >= 2 ? batch.rfind('\n', end - 2) : std::string_view::npos;
    const size_t start = newline == std::string_view::npos ? 0 : newline + 1;
    const std::string_view text = batch.substr(start, end - start);
    if (!trimmed(text).empty() && text.find(" NCCL INFO ") == std::string_view::npos)
      return start > 0 && batch.size() - start <= OutputScan::kMaxHeldBack ? start : batch.size();
    end = start;
  }
  return batch.size();
}

// The last table header among the lines of text, "" when none.
std::string_view lastTableHeader(std::string_view text) {
  size_t end = text.size();
  while (end > 0) {
    const size_t newline = end >= 2 ? text.rfind('\n', end - 2) : std::string_view::npos;
    const size_t start = newline == std::string_view::npos ? 0 : newline + 1;
    const std::string_view line = text.substr(start, end - start);
    if (line.find('#') != std::string_view::npos && isTableHeader(line)) return line;
    end = start;
  }
  return {};
}

}  // namespace

void OutputScan::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    const size_t newline = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, newline);
    if (partial_.empty() && !partialCut_ && newline != std::string_view::npos) {
      line(piece.substr(0, kMaxScannedLine));
    } else {
      const size_t room = kMaxScannedLine - partial_.size();
      partial_.append(piece.substr(0, room));
      partialCut_ = partialCut_ || piece.size() > room;
      if (newline == std::string_view::npos) return;
      line(partial_);
      partial_.clear();
      partialCut_ = false;
    }
    bytes.remove_prefix(newline + 1);
  }
}

void OutputScan::finish() {
  if (!partial_.empty() || partialCut_) line(partial_);
  partial_.clear();
  partialCut_ = false;
  countRows(true);
}

std::string OutputScan::failure() const {
  for (const std::string& line : failures_)
    if (!line.empty()) return line;
  return "";
}

void OutputScan::line(std::string_view text) {
  scanWords(text);
  batch_.append(text);
  batch_.push_back('\n');
  if (batch_.size() >= kTableBatch) countRows(false);
}

void OutputScan::scanWords(std::string_view text) {
  if (warnRejection_.empty()) {
    lower_.assign(text);
    for (char& c : lower_)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    for (std::string_view words : kRejectionWords) {
      if (lower_.find(words) == std::string::npos) continue;
      if (text.find("NCCL WARN") != std::string_view::npos) {
        warnRejection_ = fromMarker(text);
        break;
      }
      if (anyRejection_.empty()) anyRejection_ = fromMarker(text);
    }
  }
  for (size_t i = 0; i < kFailureWords.size(); ++i)
    if (failures_[i].empty() && text.find(kFailureWords[i]) != std::string_view::npos) failures_[i] = fromMarker(text);
  const std::string_view t = trimmed(text);
  if (!t.empty() && t.front() != '#') {  // assigned in place: one line after another, no allocation each
    lastWords_.assign(t.substr(0, kMaxReason));
    if (t.size() > kMaxReason) lastWords_ += "...";
  }
}

void OutputScan::countRows(bool all) {
  const size_t cut = all ? batch_.size() : batchCut(batch_);
  if (cut == 0) return;
  const std::string_view part = std::string_view(batch_).substr(0, cut);
  const std::string text = header_.empty() ? std::string(part) : header_ + "\n" + std::string(part);
  for (const TestRun& run : parseNcclTestsText(text).runs) rows_ += run.rows.size();
  if (const std::string_view header = lastTableHeader(part); !header.empty()) header_.assign(header);
  batch_.erase(0, cut);
}

}  // namespace railtune::sweep
