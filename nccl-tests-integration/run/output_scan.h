// What `railtune sweep run` needs to know of a run's output (outcome.h), gathered from pieces of any size in
// bounded memory: a benchmark that prints gigabytes costs the sweep a few megabytes. Lines are split at '\n'; a
// line longer than kMaxScannedLine is scanned by its first kMaxScannedLine bytes. Table rows are counted by the
// nccl-tests text reader (parse/nccl_tests_text.h) over batches of whole lines, each batch preceded by the last
// table header seen, so that the columns carry over; a row split from its numbers by NCCL INFO lines is kept
// whole within one batch (up to kMaxHeldBack bytes of such lines).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace railtune::sweep {

class OutputScan {
 public:
  static constexpr size_t kMaxScannedLine = 64 * 1024;
  static constexpr size_t kTableBatch = 4 * 1024 * 1024;
  static constexpr size_t kMaxHeldBack = 1024 * 1024;

  void feed(std::string_view bytes);
  void finish();  // the last line, when the output does not end with a newline

  size_t rows() const { return rows_; }
  // The line that says NCCL rejected the forced choice (an NCCL WARN line first), "" when none does.
  std::string rejection() const { return warnRejection_.empty() ? anyRejection_ : warnRejection_; }
  // The first line with the most telling failure words ("Test NCCL failure", ...), "" when none.
  std::string failure() const;
  // The last line that is not empty and not one of nccl-tests' '#' lines, shortened.
  const std::string& lastWords() const { return lastWords_; }

 private:
  void line(std::string_view text);
  void scanWords(std::string_view text);
  void countRows(bool all);

  std::string partial_;  // the line being read, at most kMaxScannedLine bytes
  bool partialCut_ = false;
  std::string batch_;   // whole lines waiting for the table reader
  std::string header_;  // the last table header line ("#  size  count  type ...")
  size_t rows_ = 0;
  std::string warnRejection_, anyRejection_;
  std::array<std::string, 6> failures_;  // the first line with each of the failure words
  std::string lastWords_;
  std::string lower_;  // the line in lower case (rejection words are matched case-insensitively)
};

}  // namespace railtune::sweep
