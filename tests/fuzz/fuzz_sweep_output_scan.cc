// libFuzzer target for `railtune sweep run`'s scan of a run's output in bounded pieces (run/output_scan.h). Besides
// crashes and sanitizer reports it checks its promises: the input fed in pieces (cut where its first bytes say)
// gives the answers it gives fed whole; below a batch the rows are those the nccl-tests text reader finds in the
// whole text; the lines it keeps are bounded.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "nccl-tests-integration/parse/nccl_tests_text.h"
#include "nccl-tests-integration/run/output_scan.h"

namespace {

using namespace railtune::sweep;

void require(bool promise) {
  if (!promise) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  OutputScan whole;
  whole.feed(text);
  whole.finish();

  OutputScan pieces;
  const size_t step = size == 0 ? 1 : 1 + data[0] % 97;
  for (size_t at = 0; at < size; at += step) pieces.feed(text.substr(at, step));
  pieces.finish();

  require(pieces.rows() == whole.rows());
  require(pieces.rejection() == whole.rejection());
  require(pieces.failure() == whole.failure());
  require(pieces.lastWords() == whole.lastWords());
  require(whole.failure().size() <= 403 && whole.rejection().size() <= 403 && whole.lastWords().size() <= 403);
  if (size <= OutputScan::kMaxScannedLine) {  // one batch, no line cut
    size_t rows = 0;
    for (const TestRun& run : parseNcclTestsText(text).runs) rows += run.rows.size();
    require(whole.rows() == rows);
  }
  return 0;
}
