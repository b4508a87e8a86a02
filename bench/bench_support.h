// What every railtune benchmark program shares besides Google Benchmark: the median its counters report
// (a shared machine's slow rounds move a mean, not a median), and parsing of its own --name=value
// options, which Google Benchmark leaves in argv.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
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

// The program's own "--name=value" options, which Google Benchmark leaves in argv: each goes to the
// handler of its name, which returns false for a bad value. false, after naming the option and the
// `usage` line on stderr: an option without '=', an unknown name or a bad value.
using OptionHandlers = std::map<std::string, std::function<bool(const std::string& value)>>;
inline bool parseOptions(int argc, char** argv, const OptionHandlers& handlers, const char* program,
                         const char* usage) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t equals = arg.find('=');
    const auto handler = equals == std::string::npos ? handlers.end() : handlers.find(arg.substr(0, equals));
    if (handler == handlers.end() || !handler->second(arg.substr(equals + 1))) {
      std::fprintf(stderr, "%s: bad option '%s'\noptions: %s, and Google Benchmark's --benchmark_*\n", program, argv[i],
                   usage);
      return false;
    }
  }
  return true;
}

}  // namespace railtune::bench
