// The hang watchdog's settings: how long an operation may stay incomplete before it is reported
// (RAILTUNE_HANG_TIMEOUT) and how often the watchdog looks.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "common/params.h"

namespace railtune::profiler {

struct HangSettings {
  uint64_t timeoutNs = 0;  // 0: the watchdog is off
  std::chrono::milliseconds interval{1000};
  std::string error;  // non-empty: RAILTUNE_HANG_TIMEOUT was rejected and the default applies
  bool enabled() const { return timeoutNs != 0; }
};

// RAILTUNE_HANG_TIMEOUT in seconds (0 disables; negative or above a day is rejected with a message
// and the default is used), checked every second.
HangSettings readHangSettings(EnvLookup env = processEnv);

}  // namespace railtune::profiler
