// RAILTUNE_HANG_TIMEOUT through the parameter registry, with the range the watchdog accepts.
#include "profiler_plugin/watchdog/hang_settings.h"

#include <string>

namespace railtune::profiler {
namespace {

constexpr int64_t kNsPerSecond = 1000000000;

}  // namespace

// The range, 0 (off) to a day, is the parameter table's (common/params.cc); a rejected value gives the default.
HangSettings readHangSettings(EnvLookup env) {
  HangSettings settings;
  const ParamValue<int64_t> seconds = readInt("RAILTUNE_HANG_TIMEOUT", env);
  if (!seconds.ok()) settings.error = seconds.error;
  settings.timeoutNs = static_cast<uint64_t>(seconds.value) * kNsPerSecond;
  return settings;
}

}  // namespace railtune::profiler
