// libFuzzer target for the readers of nccl-tests' output (nccl-tests-integration/parse/): the input is read as
// text and as JSON. Besides crashes and sanitizer reports it checks the readers' promises: every diagnostic and
// every row names a line the input has, rows keep the input's order, every row kept is within the physical bounds
// (row_bounds.h: a value is a finite number in range or absent), every bad row is counted, and the streamed reader
// fed line by line gives the rows the whole-text reader gives.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <utility>
#include <vector>

#include "nccl-tests-integration/parse/nccl_tests_json.h"
#include "nccl-tests-integration/parse/nccl_tests_text.h"
#include "nccl-tests-integration/parse/row_bounds.h"

namespace {

void require(bool promise) {
  if (!promise) std::abort();
}

void checkHalf(const railtune::sweep::Measurement& m) {
  for (const auto& value : {m.timeUs, m.algbwGBps, m.busbwGBps, m.wrong}) require(!value || !std::isnan(*value));
}

void check(const railtune::sweep::ParsedText& parsed, int lines) {
  size_t bad = 0;
  for (const auto& d : parsed.diagnostics) {
    require(d.line >= 1 && d.line <= lines && !d.message.empty());
    bad += d.badRow ? 1 : 0;
  }
  require(bad == parsed.badRows);
  int last = 0;
  for (const auto& run : parsed.runs) {
    for (const auto& row : run.rows) {
      require(row.line >= 1 && row.line <= lines);
      require(row.line >= last);  // a split row is recorded at its first line, after the rows before it
      last = row.line;
      checkHalf(row.outOfPlace);
      checkHalf(row.inPlace);
      require(railtune::sweep::rowProblem(row, false).empty());
    }
  }
}

// The streamed reader, fed line by line: the same rows, in the same order, as the whole-text reader's.
struct CountingSink : railtune::sweep::TextSink {
  std::vector<std::pair<int, uint64_t>> rows;
  size_t runs = 0, bad = 0;
  void row(const railtune::sweep::TestRun& run, railtune::sweep::Row&& row) override {
    require(run.rows.empty());
    rows.emplace_back(row.line, row.size);
  }
  void runEnd(railtune::sweep::TestRun&&) override { ++runs; }
  void diagnostic(railtune::sweep::Diagnostic&& d) override { bad += d.badRow ? 1 : 0; }
};

void checkStreamed(std::string_view text, const railtune::sweep::ParsedText& whole) {
  CountingSink sink;
  railtune::sweep::NcclTestsTextReader reader(sink);
  int number = 0;
  for (size_t start = 0; start <= text.size();) {
    const size_t end = text.find('\n', start);
    reader.line(text.substr(start, end == std::string_view::npos ? text.size() - start : end - start), ++number);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  reader.finish();
  require(sink.runs == whole.runs.size() && sink.bad == whole.badRows);
  size_t i = 0;
  for (const auto& run : whole.runs)
    for (const auto& row : run.rows) {
      require(i < sink.rows.size() && sink.rows[i].first == row.line && sink.rows[i].second == row.size);
      ++i;
    }
  require(i == sink.rows.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  int lines = 1;
  for (char c : text) lines += c == '\n' ? 1 : 0;
  const railtune::sweep::ParsedText parsed = railtune::sweep::parseNcclTestsText(text);
  check(parsed, lines);
  checkStreamed(text, parsed);
  check(railtune::sweep::parseNcclTestsJson(text), lines);
  return 0;
}
