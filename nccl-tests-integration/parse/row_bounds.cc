// The physical bounds of a row (row_bounds.h).
#include "nccl-tests-integration/parse/row_bounds.h"

#include <cmath>
#include <cstdio>

namespace railtune::sweep {
namespace {

// "" when value is a finite number in [0, max] (time: above 0); else why not.
std::string valueProblem(const char* half, const char* name, double value, double max, bool positive,
                         const char* unit) {
  if (value >= 0 && value <= max && (!positive || value > 0)) return "";  // NaN fails every comparison
  const std::string what = std::string(half) + name + " " + shortNumber(value);
  if (std::isnan(value)) return what + " is not a number";
  if (std::isinf(value)) return what + " is not finite";
  if (value < 0) return what + " is negative";
  if (value == 0) return what + " is zero";
  return what + " is over " + shortNumber(max) + unit;
}

std::string halfProblem(const char* half, const Measurement& m, bool countColumn) {
  std::string why;
  if (m.timeUs) why = valueProblem(half, "time", *m.timeUs, kMaxTimeUs, true, " us (a week)");
  if (why.empty() && m.algbwGBps)
    why = valueProblem(half, "algbw", *m.algbwGBps, kMaxBandwidthGBps, false, " GB/s (100 TB/s)");
  if (why.empty() && m.busbwGBps)
    why = valueProblem(half, "busbw", *m.busbwGBps, kMaxBandwidthGBps, false, " GB/s (100 TB/s)");
  if (why.empty() && m.wrong) {
    why = valueProblem(half, "#wrong", *m.wrong, kMaxWrong, false, " (2^48)");
    if (why.empty() && countColumn && *m.wrong != std::floor(*m.wrong))
      why = std::string(half) + "#wrong " + shortNumber(*m.wrong) + " is not a whole count";
  }
  return why;
}

}  // namespace

std::string shortNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

std::string rowProblem(uint64_t size, uint64_t count, const Measurement& outOfPlace, const Measurement& inPlace,
                       bool countColumn) {
  if (size > kMaxRowBytes) return "size " + std::to_string(size) + " is over 2^48 bytes";
  if (count > kMaxRowBytes) return "count " + std::to_string(count) + " is over 2^48 elements";
  std::string why = halfProblem("out-of-place ", outOfPlace, countColumn);
  if (why.empty()) why = halfProblem("in-place ", inPlace, countColumn);
  return why;
}

}  // namespace railtune::sweep
