// Formats once into a stack buffer (no allocation) and hands NCCL a plain "%s" line, so NCCL's
// logger never interprets text that came from a configuration file as a format string.
#include "common/log.h"

#include <cstdio>

namespace railtune {
namespace {
constexpr size_t kLineBytes = 1024;
}

void Log::emit(ncclDebugLogLevel level, unsigned long flags, const char* file, int line, const char* fmt,
               va_list args) const {
  char text[kLineBytes];
  const int prefix = std::snprintf(text, sizeof(text), "railtune %s: ", component_);
  const size_t used = prefix > 0 ? static_cast<size_t>(prefix) : 0;
  if (used < sizeof(text)) std::vsnprintf(text + used, sizeof(text) - used, fmt, args);
  const ncclDebugLogger_t ncclLogger = logger();
  if (ncclLogger != nullptr) {
    ncclLogger(level, flags, file, line, "%s", text);
  } else if (level == NCCL_LOG_WARN) {
    std::fprintf(stderr, "WARN %s\n", text);
  }
}

void Log::warn(unsigned long flags, const char* file, int line, const char* fmt, ...) const {
  va_list args;
  va_start(args, fmt);
  emit(NCCL_LOG_WARN, flags, file, line, fmt, args);
  va_end(args);
}

void Log::info(unsigned long flags, const char* file, int line, const char* fmt, ...) const {
  if (logger() == nullptr) return;  // INFO without NCCL's logger has nowhere useful to go
  va_list args;
  va_start(args, fmt);
  emit(NCCL_LOG_INFO, flags, file, line, fmt, args);
  va_end(args);
}

void Log::configError(const std::string& configFile, int configLine, const std::string& reason, const char* file,
                      int line) const {
  warn(NCCL_INIT | NCCL_ENV, file, line, "%s:%d: %s", configFile.c_str(), configLine, reason.c_str());
}

}  // namespace railtune
