// Reading one job of `railtune sweep parse` (read_output.h).
#include "nccl-tests-integration/dataset/read_output.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "analysis/ingest/line_reader.h"
#include "common/regular_file.h"
#include "nccl-tests-integration/dataset/row_text.h"
#include "nccl-tests-integration/parse/nccl_tests_json.h"

namespace railtune::sweep {
namespace {

namespace fs = std::filesystem;

// The rows of a text output, streamed through the reader into the builder. Returns false when the file starts
// with '{' (nccl-tests' -J JSON: read whole by the caller) before any line was read as text.
bool readTextJob(const ParseJob& job, OutputRowBuilder& builder, ParseJobResult& result) {
  NcclTestsTextReader reader(builder);
  bool json = false, started = false;
  // The manifest's output_bytes: what the run wrote until it ended. Bytes after it (a process that escaped the
  // run's group wrote on) are not read: the line that crosses it is cut there, as the run left it.
  const uint64_t limit = job.byteLimit.value_or(UINT64_MAX);
  uint64_t offset = 0;
  analysis::ingest::LineHandlers handlers;
  handlers.line = [&](std::string_view line, int number, size_t) {
    if (offset >= limit) return false;
    if (line.size() > limit - offset) line = line.substr(0, static_cast<size_t>(limit - offset));
    offset += line.size() + 1;
    if (!started) {
      const size_t first = line.find_first_not_of(" \t\r");
      if (first == std::string_view::npos) return true;
      started = true;
      if (line[first] == '{') return !(json = true);
    }
    reader.line(line, number);
    return true;
  };
  handlers.tooLong = [&](int number, size_t bytes) {
    offset += bytes + 1;
    if (offset <= limit) builder.diagnostic({number, analysis::ingest::tooLongMessage(bytes), false});
  };
  const analysis::ingest::ReadOutcome outcome = analysis::ingest::forEachLine(job.path, 0, handlers);
  if (json) return false;
  std::error_code ec;
  const uint64_t size = fs::file_size(job.path, ec);
  if (!ec && size > limit)
    result.diagnostics.push_back(
        {job.path, 0, std::to_string(size - limit) + " bytes written after the run ended, ignored"});
  if (!outcome.error.empty()) {
    std::string error = outcome.reason.empty() ? outcome.error : outcome.reason;
    if (!error.ends_with("; skipped")) error += outcome.opened ? "; the rest of the file is not read" : "; skipped";
    result.diagnostics.push_back({job.path, 0, error});
  }
  reader.finish();
  return true;
}

void readJsonJob(const ParseJob& job, OutputRowBuilder& builder, ParseJobResult& result) {
  const RegularFile file = readRegularFile(job.path, kMaxJsonOutputBytes);
  if (!file.ok()) {
    result.diagnostics.push_back({job.path, 0, file.reason + " (a -J JSON file); skipped"});
    return;
  }
  std::string_view bytes = file.bytes;
  if (job.byteLimit && bytes.size() > *job.byteLimit) {  // a process that escaped the run's group wrote on
    result.diagnostics.push_back(
        {job.path, 0, std::to_string(bytes.size() - *job.byteLimit) + " bytes written after the run ended, ignored"});
    bytes = bytes.substr(0, *job.byteLimit);
  }
  ParsedText parsed = parseNcclTestsJson(bytes);
  for (Diagnostic& d : parsed.diagnostics) builder.diagnostic(std::move(d));
  for (TestRun& run : parsed.runs) {
    std::vector<Row> rows = std::move(run.rows);
    run.rows.clear();
    for (Row& row : rows) builder.row(run, std::move(row));
    builder.runEnd(std::move(run));
  }
}

}  // namespace

void readParseJob(const ParseJob& job, size_t index, size_t keepDiagnostics, OrderedOutput& output,
                  ParseJobResult& result) {
  RowText rows(kParsePieceBytes, [&](std::string& piece) { output.write(index, piece); });
  OutputRowBuilder builder(
      job.context, [&](const DatasetRow& row, const DatasetLineParts& parts) { rows.add(row, parts); },
      keepDiagnostics);
  if (!readTextJob(job, builder, result)) readJsonJob(job, builder, result);
  builder.finish();
  rows.finish();
  std::string text;
  if (const std::optional<DatasetSource> source = builder.sourceLine())
    appendDatasetSource(*source, text);  // what was dropped stays on record beside the rows
  output.write(index, text);
  output.done(index);
  for (DatasetDiagnostic& d : builder.diagnostics) result.diagnostics.push_back(std::move(d));
  result.moreDiagnostics = builder.moreDiagnostics;
  result.runs = builder.runs;
  result.rows = builder.rows;
  result.flagged = builder.flagged;
  result.badRows = builder.badRows;
  if (result.rows == 0) result.diagnostics.push_back({job.path, 0, "no nccl-tests result rows"});
}

}  // namespace railtune::sweep
