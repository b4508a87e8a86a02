// libFuzzer target for what `railtune sweep` reads besides nccl-tests' tables: the sweep dataset (JSONL), the sweep
// manifest, a run's output judged for how it ended, and the rows built from any text read as nccl-tests output. Besides
// crashes and sanitizer reports it checks the promises: rows written are read back to the same bytes, every diagnostic
// names a line the input has, every row read is within the physical bounds (row_bounds.h), a source line read is
// written back to the same bytes, a row written in its run's parts is the row written whole, and the rules derived
// from whatever was read have ranges with min <= max inside the measured sizes and a finite gain.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "nccl-tests-integration/dataset/dataset.h"
#include "nccl-tests-integration/dataset/from_output.h"
#include "nccl-tests-integration/parse/nccl_tests_text.h"
#include "nccl-tests-integration/parse/row_bounds.h"
#include "nccl-tests-integration/rules/derive.h"
#include "nccl-tests-integration/run/manifest.h"
#include "nccl-tests-integration/run/outcome.h"

namespace {

using namespace railtune::sweep;

void require(bool promise) {
  if (!promise) std::abort();
}

std::string padded(std::string_view text) {
  std::string out(text);
  out.append(64, '\0');
  return out;
}

void checkRules(const Aggregate& aggregate) {
  const DerivedRules rules = deriveRules(aggregate, RulesOptions{});
  for (const DerivedRule& r : rules.rules) {
    require(r.minBytes <= r.maxBytes && !r.sizes.empty());
    require(r.minBytes <= r.sizes.front() && r.sizes.back() <= r.maxBytes);
    require(r.minGain > 0.05 && std::isfinite(r.minGain) && std::isfinite(r.maxGain));
    require(r.maxBytes <= kMaxRowBytes);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  size_t lines = 1;
  for (char c : text) lines += c == '\n' ? 1 : 0;

  // The input as a dataset.
  Aggregate read;
  std::vector<DatasetDiagnostic> diagnostics;
  const std::string p = padded(text);
  std::vector<std::string> sourceLines;
  readDatasetText(
      std::string_view(p.data(), text.size()), "in",
      [&](const DatasetRow& row) {
        require(rowProblem(row.size, row.count, row.outOfPlace, row.inPlace, false).empty());
        read.add(row);
      },
      diagnostics,
      [&](const DatasetSource& source) {
        sourceLines.emplace_back();
        appendDatasetSource(source, sourceLines.back());
      });
  for (const std::string& line : sourceLines) {  // written back, read again to the same bytes
    std::string again;
    std::vector<DatasetDiagnostic> none;
    const std::string q = padded(line);
    readDatasetText(
        std::string_view(q.data(), line.size()), "source", [](const DatasetRow&) { require(false); }, none,
        [&](const DatasetSource& source) { appendDatasetSource(source, again); });
    require(none.empty() && again == line);
  }
  for (const DatasetDiagnostic& d : diagnostics) require(d.line >= 1 && d.line <= lines && !d.message.empty());
  checkRules(read);

  // The input as a manifest.
  const Manifest manifest = readManifestText(text);
  for (const ManifestDiagnostic& d : manifest.diagnostics) require(d.line >= 1 && d.line <= lines);

  // The input as a run's output (and as its -J file): how it ended, with a reason whenever it did not end ok.
  ProcessEnd end;
  end.exitCode = size % 2 == 0 ? 0 : 3;
  const Outcome outcome = classifyRun(text, text, end);
  require(outcome.status == RunStatus::Ok ? outcome.rows > 0 : !outcome.reason.empty());

  // The input as nccl-tests output: rows written, read back to the same bytes.
  OutputContext context;
  context.source = "fuzz.txt";
  std::vector<DatasetRow> rows;
  std::vector<DatasetDiagnostic> built;
  appendRowsFromOutput(parseNcclTestsText(text), context, rows, built);
  std::string written;
  for (const DatasetRow& row : rows) {
    appendDatasetRow(row, written);
    std::string whole, inParts;
    appendDatasetRow(row, whole);
    appendDatasetRow(row, datasetLineParts(row), inParts);
    require(whole == inParts);
  }
  std::string again;
  std::vector<DatasetDiagnostic> backDiagnostics;
  Aggregate back;
  const std::string w = padded(written);
  readDatasetText(
      std::string_view(w.data(), written.size()), "written",
      [&](const DatasetRow& row) {
        appendDatasetRow(row, again);
        back.add(row);
      },
      backDiagnostics);
  require(backDiagnostics.empty());
  require(again == written);
  checkRules(back);
  return 0;
}
