// RAILTUNE_HANG_TIMEOUT through the parameter registry, with the range the watchdog accepts.
#include "profiler_plugin/watchdog/hang_settings.h"

#include <string>

namespace railtune::profiler {
namespace {

constexpr int64_t kNsPerSecond = 1000000000;
// A day: longer than any job waits on one collective, and far from overflowing nanoseconds.
constexpr int64_t kMaxTimeoutSeconds = 86400;

}  // namespace

HangSettings readHangSettings(EnvLookup env) {
  HangSettings settings;
  ParamValue<int64_t> seconds = readInt("RAILTUNE_HANG_TIMEOUT", env);
  const ParamValue<int64_t> fallback = readInt("RAILTUNE_HANG_TIMEOUT", nullptr);
  if (!seconds.ok()) {
    settings.error = seconds.error;
  } else if (seconds.value < 0 || seconds.value > kMaxTimeoutSeconds) {
    settings.error = "RAILTUNE_HANG_TIMEOUT='" + std::to_string(seconds.value) + "': expected 0 (off) to " +
                     std::to_string(kMaxTimeoutSeconds) + " seconds";
    seconds.value = fallback.value;
  }
  settings.timeoutNs = static_cast<uint64_t>(seconds.value) * kNsPerSecond;
  return settings;
}

}  // namespace railtune::profiler
