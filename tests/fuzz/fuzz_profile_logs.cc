// fuzz_profile_logs: any line through the fast collective-log reader of `railtune profile`
// (analysis/profile/fast_collective.h) and the strict reader (formats/profile_logs.h). They must
// agree: a line the fast reader accepts is accepted by the strict one with the same fields, and a
// record the strict reader accepts, as the profiler writes it, is accepted by the fast one.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tests/support/fast_collective_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  const std::string problem = railtune::testing::disagreement(line);
  if (!problem.empty()) {
    std::fprintf(stderr, "readers disagree: %s\n", problem.c_str());
    std::abort();
  }
  return 0;
}
