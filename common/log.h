// railtune's logging: everything goes through the ncclDebugLogger_t NCCL hands each plugin at init,
// with NCCL's subsystem flags (NCCL_INIT, NCCL_TUNING, NCCL_NET, ...), so that NCCL_DEBUG and
// NCCL_DEBUG_SUBSYS filter our lines like NCCL's own. Every line starts with "railtune <component>:".
// Without a logger (NULL from NCCL, or before init) WARN lines go to stderr and INFO lines are dropped.
#pragma once

#include <atomic>
#include <cstdarg>
#include <string>

#include "nccl/common.h"

namespace railtune {

// The file name without its directories: log lines name "boundary.cc", not the build machine's path.
constexpr const char* sourceBaseName(const char* path) {
  const char* base = path;
  for (const char* p = path; *p; ++p) {
    if (*p == '/') base = p + 1;
  }
  return base;
}

class Log {
 public:
  explicit Log(const char* component, ncclDebugLogger_t ncclLogger = nullptr)
      : component_(component), logger_(ncclLogger) {}
  Log(const Log& other) : component_(other.component_), logger_(other.logger()) {}
  Log& operator=(const Log&) = delete;

  void setLogger(ncclDebugLogger_t ncclLogger) { logger_.store(ncclLogger, std::memory_order_release); }
  ncclDebugLogger_t logger() const { return logger_.load(std::memory_order_acquire); }
  const char* component() const { return component_; }

  void warn(unsigned long flags, const char* file, int line, const char* fmt, ...) const
      __attribute__((format(printf, 5, 6)));
  void info(unsigned long flags, const char* file, int line, const char* fmt, ...) const
      __attribute__((format(printf, 5, 6)));

  // The one WARN for a bad configuration entry: names the configuration file, its line and why.
  void configError(const std::string& configFile, int configLine, const std::string& reason, const char* file,
                   int line) const;

 private:
  void emit(ncclDebugLogLevel level, unsigned long flags, const char* file, int line, const char* fmt,
            va_list args) const __attribute__((format(printf, 6, 0)));

  const char* component_;
  std::atomic<ncclDebugLogger_t> logger_;
};

// A flag that lets exactly one caller through: "log this failure once, not once per call".
class OnceFlag {
 public:
  bool first() { return !done_.exchange(true, std::memory_order_acq_rel); }
  bool done() const { return done_.load(std::memory_order_acquire); }
  void reset() { done_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> done_{false};
};

}  // namespace railtune

// Pass the call site's file and line; nothing else is hidden in these.
#define RT_WARN(log, flags, ...) (log).warn((flags), ::railtune::sourceBaseName(__FILE__), __LINE__, __VA_ARGS__)
#define RT_INFO(log, flags, ...) (log).info((flags), ::railtune::sourceBaseName(__FILE__), __LINE__, __VA_ARGS__)
