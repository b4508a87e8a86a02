#include "emulator/logger.h"

#include <cstdarg>
#include <cstdio>
#include <mutex>

namespace railtune::emu {
namespace {

// A bounded store: a chatty plugin cannot grow the emulator's memory without limit. WARN and ABORT
// lines have their own room, so that INFO lines cannot push them out; past it they are counted, and
// the count is the last line takePluginLog() returns.
constexpr std::size_t kMaxLines = 4096;

struct Store {
  std::vector<std::string> lines;
  std::size_t others = 0;    // lines below WARN kept
  std::size_t warnings = 0;  // WARN and ABORT lines kept
  std::size_t droppedWarnings = 0;
};

std::mutex& storeMutex() {
  static std::mutex m;
  return m;
}
Store& store() {
  static Store s;
  return s;
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
  const bool warning = level == NCCL_LOG_WARN || level == NCCL_LOG_ABORT;
  std::lock_guard<std::mutex> lock(storeMutex());
  Store& s = store();
  std::size_t& kept = warning ? s.warnings : s.others;
  if (kept < kMaxLines) {
    s.lines.push_back(std::move(entry));
    ++kept;
  } else if (warning) {
    ++s.droppedWarnings;
  }
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
  Store taken;
  std::swap(taken, store());
  if (taken.droppedWarnings > 0)
    taken.lines.push_back("WARN logger.cc:0 railtune emulator: " + std::to_string(taken.droppedWarnings) +
                          " more WARN line(s) of the plugins dropped (the emulator keeps " + std::to_string(kMaxLines) +
                          ")");
  return std::move(taken.lines);
}

ncclProfilerCallback_t idleProfilerCallback() {
  return idleCallback;
}

}  // namespace railtune::emu
