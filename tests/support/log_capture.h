// A logger with NCCL's ncclDebugLogger_t signature that keeps every line, for tests that count the
// WARN lines a plugin printed. Shared by the unit and e2e tests.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "nccl/common.h"

namespace railtune::testing {

struct LoggedLine {
  ncclDebugLogLevel level = NCCL_LOG_NONE;
  unsigned long flags = 0;
  std::string file;
  int line = 0;
  std::string text;
};

class LogCapture {
 public:
  static LogCapture& instance() {
    static LogCapture capture;
    return capture;
  }
  void add(LoggedLine line) {
    std::lock_guard<std::mutex> lock(mutex_);
    lines_.push_back(std::move(line));
  }
  std::vector<LoggedLine> lines() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return lines_;
  }
  std::vector<LoggedLine> warnings() const {
    std::vector<LoggedLine> out;
    for (LoggedLine& l : lines()) {
      if (l.level == NCCL_LOG_WARN) out.push_back(std::move(l));
    }
    return out;
  }
  // All captured text, one line each, for assertion messages.
  std::string dump() const {
    std::string out;
    for (const LoggedLine& l : lines()) out += (l.level == NCCL_LOG_WARN ? "WARN " : "INFO ") + l.text + "\n";
    return out;
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    lines_.clear();
  }

 private:
  mutable std::mutex mutex_;
  std::vector<LoggedLine> lines_;
};

__attribute__((format(printf, 5, 6))) inline void captureLogger(ncclDebugLogLevel level, unsigned long flags,
                                                                const char* file, int line, const char* fmt, ...) {
  char text[2048];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(text, sizeof(text), fmt, args);
  va_end(args);
  LogCapture::instance().add(LoggedLine{level, flags, file ? file : "", line, text});
}

}  // namespace railtune::testing
