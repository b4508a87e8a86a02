// What every railtune benchmark program shares besides Google Benchmark: the median its counters report
// (a shared machine's slow rounds move a mean, not a median), and parsing of its own --name=value
// options, which Google Benchmark leaves in argv.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace railtune::bench {

inline double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

// A whole decimal number in [low, high]; false leaves `out` as it was.
inline bool parseCount(const std::string& text, int low, int high, int& out) {
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < low || value > high) return false;
  out = static_cast<int>(value);
  return true;
}

// "--name=value" -> {"--name", "value"}; nullopt when there is no '='.
inline std::optional<std::pair<std::string, std::string>> splitOption(const std::string& arg) {
  const size_t equals = arg.find('=');
  if (equals == std::string::npos) return std::nullopt;
  return std::make_pair(arg.substr(0, equals), arg.substr(equals + 1));
}

}  // namespace railtune::bench
