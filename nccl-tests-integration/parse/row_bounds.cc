// The physical bounds of a row (row_bounds.h).
#include "nccl-tests-integration/parse/row_bounds.h"

#include <cmath>
#include <cstdio>
#include <optional>

namespace railtune::sweep {
namespace {

bool within(const std::optional<double>& value, double max, bool positive) {
  return !value || (*value >= 0 && *value <= max && (!positive || *value > 0));  // NaN fails every comparison
}

bool halfWithin(const Measurement& m, bool countColumn) {
  return within(m.timeUs, kMaxTimeUs, true) && within(m.algbwGBps, kMaxBandwidthGBps, false) &&
         within(m.busbwGBps, kMaxBandwidthGBps, false) && within(m.wrong, kMaxWrong, false) &&
         (!countColumn || !m.wrong || *m.wrong == std::floor(*m.wrong));
}

// Why a value is out of its bounds (it is).
std::string valueProblem(const char* half, const char* name, double value, double max, const char* unit) {
  const std::string what = std::string(half) + name + " " + shortNumber(value);
  if (std::isnan(value)) return what + " is not a number";
  if (std::isinf(value)) return what + " is not finite";
  if (value < 0) return what + " is negative";
  if (value == 0) return what + " is zero";
  return what + " is over " + shortNumber(max) + unit;
}

// Why a half is out of its bounds (it is).
std::string halfProblem(const char* half, const Measurement& m) {
  if (!within(m.timeUs, kMaxTimeUs, true)) return valueProblem(half, "time", *m.timeUs, kMaxTimeUs, " us (a week)");
  if (!within(m.algbwGBps, kMaxBandwidthGBps, false))
    return valueProblem(half, "algbw", *m.algbwGBps, kMaxBandwidthGBps, " GB/s (100 TB/s)");
  if (!within(m.busbwGBps, kMaxBandwidthGBps, false))
    return valueProblem(half, "busbw", *m.busbwGBps, kMaxBandwidthGBps, " GB/s (100 TB/s)");
  if (!within(m.wrong, kMaxWrong, false)) return valueProblem(half, "#wrong", *m.wrong, kMaxWrong, " (2^48)");
  return std::string(half) + "#wrong " + shortNumber(*m.wrong) + " is not a whole count";
}

}  // namespace

std::string shortNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

std::string rowProblem(uint64_t size, uint64_t count, const Measurement& outOfPlace, const Measurement& inPlace,
                       bool countColumn) {
  // The common case first, with no string made.
  if (size <= kMaxRowBytes && count <= kMaxRowBytes && halfWithin(outOfPlace, countColumn) &&
      halfWithin(inPlace, countColumn))
    return {};
  if (size > kMaxRowBytes) return "size " + std::to_string(size) + " is over 2^48 bytes";
  if (count > kMaxRowBytes) return "count " + std::to_string(count) + " is over 2^48 elements";
  if (!halfWithin(outOfPlace, countColumn)) return halfProblem("out-of-place ", outOfPlace);
  return halfProblem("in-place ", inPlace);
}

}  // namespace railtune::sweep
