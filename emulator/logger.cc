#include "emulator/logger.h"

#include <cstdarg>
#include <cstdio>
#include <mutex>

namespace railtune::emu {
namespace {

// A bounded store: a chatty plugin cannot grow the emulator's memory without limit.
constexpr std::size_t kMaxLines = 4096;

std::mutex& storeMutex() {
  static std::mutex m;
  return m;
}
std::vector<std::string>& store() {
  static std::vector<std::string> lines;
  return lines;
}

const char* levelName(ncclDebugLogLevel level) {
  switch (level) {
    case NCCL_LOG_WARN:
      return "WARN";
    case NCCL_LOG_INFO:
      return "INFO";
    case NCCL_LOG_ABORT:
      return "ABORT";
    case NCCL_LOG_TRACE:
      return "TRACE";
    case NCCL_LOG_VERSION:
      return "VERSION";
    case NCCL_LOG_NONE:
      break;
  }
  return "NONE";
}

__attribute__((format(printf, 5, 6))) void logToStore(ncclDebugLogLevel level, unsigned long /*flags*/,
                                                      const char* file, int line, const char* fmt, ...) {
  char text[1024] = {};
  if (fmt != nullptr) {
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
  }
  std::string entry =
      std::string(levelName(level)) + " " + (file ? file : "?") + ":" + std::to_string(line) + " " + text;
  std::lock_guard<std::mutex> lock(storeMutex());
  if (store().size() < kMaxLines) store().push_back(std::move(entry));
}

ncclResult_t idleCallback(void** /*eHandle*/, int /*type*/, void* /*pHandle*/, int64_t /*pluginId*/,
                          void* /*extData*/) {
  return ncclSuccess;
}

}  // namespace

ncclDebugLogger_t pluginLogger() {
  return logToStore;
}

std::vector<std::string> takePluginLog() {
  std::lock_guard<std::mutex> lock(storeMutex());
  std::vector<std::string> out;
  out.swap(store());
  return out;
}

ncclProfilerCallback_t idleProfilerCallback() {
  return idleCallback;
}

}  // namespace railtune::emu
