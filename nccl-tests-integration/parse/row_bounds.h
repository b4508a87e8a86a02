// What a row of nccl-tests output can physically hold (docs/sweep.md#impossible-values): a row outside these
// bounds is a typo, a corrupted file or a hand edit, never a measurement. The text and JSON readers drop such a
// row as a counted bad row naming its line and reason; `sweep rules` and `sweep compare` check the dataset's rows
// against the same bounds, so no rule and no figure ever comes from one.
#pragma once

#include <cstdint>
#include <string>

#include "nccl-tests-integration/parse/nccl_tests_text.h"

namespace railtune::sweep {

// 2^48 bytes (256 TiB): far above any buffer a GPU or a node holds (a GB300 NVL72 rack has 20 TiB of HBM), far
// below the 2^64 where a size read as an unsigned integer wraps.
inline constexpr uint64_t kMaxRowBytes = uint64_t{1} << 48;
// 100 TB/s (100,000 GB/s): a hundred times an NVLink5 GPU's 1.8 TB/s; above it a bandwidth is a typo.
inline constexpr double kMaxBandwidthGBps = 1e5;
// One week in microseconds: nccl-tests times one iteration; a longer one is no measurement.
inline constexpr double kMaxTimeUs = 7 * 24 * 3600 * 1e6;
// #wrong counts elements, at most one per element of the row.
inline constexpr double kMaxWrong = static_cast<double>(kMaxRowBytes);

// "" when every value of the row is within the bounds; else the first value that is not, and why
// ("busbw -94.94 is negative", "size 18446744073709551615 is over 2^48 bytes"). countColumn: #wrong is a count
// (nccl-tests 2.13+) rather than the largest error of the older "error" column.
std::string rowProblem(uint64_t size, uint64_t count, const Measurement& outOfPlace, const Measurement& inPlace,
                       bool countColumn);
inline std::string rowProblem(const Row& row, bool countColumn) {
  return rowProblem(row.size, row.count, row.outOfPlace, row.inPlace, countColumn);
}

// A value shortened for a message: "-94.94", "1e+308", "inf", "nan".
std::string shortNumber(double value);

}  // namespace railtune::sweep
