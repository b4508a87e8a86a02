// The logger a benchmark hands the plugin it loads (NCCL's ncclDebugLogger_t): only warnings reach
// stderr, so a benchmark that fails says why and one that works stays quiet.
#pragma once

#include <cstdarg>
#include <cstdio>

#include "nccl/common.h"

namespace railtune::bench {

__attribute__((format(printf, 5, 6))) inline void benchLogger(ncclDebugLogLevel level, unsigned long /*flags*/,
                                                              const char* file, int line, const char* fmt, ...) {
  if (level != NCCL_LOG_WARN) return;
  std::fprintf(stderr, "railtune WARN %s:%d ", file != nullptr ? file : "?", line);
  va_list args;
  va_start(args, fmt);
  std::vfprintf(stderr, fmt, args);
  va_end(args);
  std::fputc('\n', stderr);
}

}  // namespace railtune::bench
