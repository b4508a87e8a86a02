// One job of `railtune sweep parse` (parse_jobs.h) read into dataset lines: a text output streamed line by line
// (up to the manifest's output_bytes: what a process that escaped the run wrote after it is not read), a -J JSON
// file read whole, its rows written as they come through RowText to the job's slot of the ordered output, then its
// source line (what was dropped stays on record beside the rows).
#pragma once

#include <cstddef>
#include <vector>

#include "nccl-tests-integration/dataset/ordered_output.h"
#include "nccl-tests-integration/dataset/parse_jobs.h"

namespace railtune::sweep {

struct ParseJobResult {
  size_t rows = 0;
  std::vector<DatasetDiagnostic> diagnostics;  // the first keepDiagnostics of the file
  size_t moreDiagnostics = 0;                  // the rest, counted
  size_t runs = 0;
  size_t flagged = 0;  // rows with a non-zero #wrong (kept, never used for rules)
  size_t badRows = 0;  // rows dropped: impossible values, wrong column count, cut short
};

// A -J file is one JSON document, read whole: nccl-tests writes a few hundred bytes per size.
inline constexpr size_t kMaxJsonOutputBytes = size_t{64} << 20;
// A job's rows are handed to the output in pieces of about this size.
inline constexpr size_t kParsePieceBytes = size_t{1} << 20;

// Job `index` of the output: writes its lines, then marks it done.
void readParseJob(const ParseJob& job, size_t index, size_t keepDiagnostics, OrderedOutput& output,
                  ParseJobResult& result);

}  // namespace railtune::sweep
