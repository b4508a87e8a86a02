// libFuzzer target for the readers of nccl-tests' output (nccl-tests-integration/parse/): the input is read as
// text and as JSON. Besides crashes and sanitizer reports it checks the readers' promises: every diagnostic and
// every row names a line the input has, rows keep the input's order, and a value read is a number or absent.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "nccl-tests-integration/parse/nccl_tests_json.h"
#include "nccl-tests-integration/parse/nccl_tests_text.h"

namespace {

void require(bool promise) {
  if (!promise) std::abort();
}

void checkHalf(const railtune::sweep::Measurement& m) {
  for (const auto& value : {m.timeUs, m.algbwGBps, m.busbwGBps, m.wrong}) require(!value || !std::isnan(*value));
}

void check(const railtune::sweep::ParsedText& parsed, int lines) {
  for (const auto& d : parsed.diagnostics) require(d.line >= 1 && d.line <= lines && !d.message.empty());
  int last = 0;
  for (const auto& run : parsed.runs) {
    for (const auto& row : run.rows) {
      require(row.line >= 1 && row.line <= lines);
      require(row.line >= last);  // a split row is recorded at its first line, after the rows before it
      last = row.line;
      checkHalf(row.outOfPlace);
      checkHalf(row.inPlace);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  int lines = 1;
  for (char c : text) lines += c == '\n' ? 1 : 0;
  check(railtune::sweep::parseNcclTestsText(text), lines);
  check(railtune::sweep::parseNcclTestsJson(text), lines);
  return 0;
}
