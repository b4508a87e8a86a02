// Fault injection for tests of the failure table: RAILTUNE_INJECT_FAULT names entry points
// ("tuner.getCollInfo,net.init") at which a plugin raises an internal failure on purpose. The list
// is parsed when a plugin initialises; the check on a hot path is one relaxed atomic load.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "common/params.h"

namespace railtune {

enum class FaultSite : uint32_t {
  TunerInit,
  TunerGetCollInfo,
  TunerGetChunkSize,
  TunerFinalize,
  NetInit,
  NetDevices,
  NetGetProperties,
  NetListen,
  NetConnect,
  NetAccept,
  NetRegMr,
  NetDeregMr,
  NetIsend,
  NetIrecv,
  NetIflush,
  NetTest,
  NetClose,
  NetFinalize,
  NetSetNetAttr,
  ProfilerInit,
  ProfilerStartEvent,
  ProfilerStopEvent,
  ProfilerRecordEventState,
  ProfilerFinalize,
  EnvInit,
  EnvGetEnv,
  Count
};
static_assert(static_cast<uint32_t>(FaultSite::Count) <= 64, "the armed set is one 64-bit mask");

const char* faultSiteName(FaultSite site);  // "tuner.getCollInfo"
std::optional<FaultSite> parseFaultSite(const std::string& name);

// What an injected fault throws; the plugin boundary must catch it like any internal failure.
class InjectedFault : public std::runtime_error {
 public:
  explicit InjectedFault(FaultSite site);
  FaultSite site() const { return site_; }

 private:
  FaultSite site_;
};

// Reads RAILTUNE_INJECT_FAULT and arms exactly the sites it names (disarming the rest). Returns the
// rejection text when the value is bad (then nothing is armed); empty when it was accepted.
std::string armFaultsFromEnvironment(EnvLookup env = processEnv);
void disarmAllFaults();

namespace detail {
extern std::atomic<uint64_t> armedFaults;
}

inline bool faultArmed(FaultSite site) {
  return (detail::armedFaults.load(std::memory_order_relaxed) >> static_cast<uint32_t>(site)) & 1U;
}

// Throws InjectedFault when the site is armed; otherwise costs one relaxed load.
inline void injectFaultAt(FaultSite site) {
  if (faultArmed(site)) [[unlikely]]
    throw InjectedFault(site);
}

}  // namespace railtune
