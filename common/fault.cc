// Fault-site names and the armed set. The names are also the allowed items of RAILTUNE_INJECT_FAULT
// in common/params.cc; a unit test keeps the two lists equal.
#include "common/fault.h"

#include <string>

namespace railtune {
namespace detail {
std::atomic<uint64_t> armedFaults{0};
}

namespace {
constexpr const char* kSiteNames[] = {
    "tuner.init",
    "tuner.getCollInfo",
    "tuner.getChunkSize",
    "tuner.finalize",
    "net.init",
    "net.devices",
    "net.getProperties",
    "net.listen",
    "net.connect",
    "net.accept",
    "net.regMr",
    "net.deregMr",
    "net.isend",
    "net.irecv",
    "net.iflush",
    "net.test",
    "net.close",
    "net.finalize",
    "net.setNetAttr",
    "profiler.init",
    "profiler.startEvent",
    "profiler.stopEvent",
    "profiler.recordEventState",
    "profiler.finalize",
    "env.init",
    "env.getEnv",
};
static_assert(std::size(kSiteNames) == static_cast<size_t>(FaultSite::Count), "one name per fault site");
}  // namespace

const char* faultSiteName(FaultSite site) {
  const auto index = static_cast<size_t>(site);
  return index < std::size(kSiteNames) ? kSiteNames[index] : "unknown";
}

std::optional<FaultSite> parseFaultSite(const std::string& name) {
  for (size_t i = 0; i < std::size(kSiteNames); ++i) {
    if (name == kSiteNames[i]) return static_cast<FaultSite>(i);
  }
  return std::nullopt;
}

InjectedFault::InjectedFault(FaultSite site)
    : std::runtime_error(std::string("injected fault at ") + faultSiteName(site)), site_(site) {}

std::string armFaultsFromEnvironment(EnvLookup env) {
  const ParamValue<std::vector<std::string>> sites = readList("RAILTUNE_INJECT_FAULT", env);
  uint64_t mask = 0;
  if (sites.ok()) {
    for (const std::string& name : sites.value) {
      if (const auto site = parseFaultSite(name)) mask |= uint64_t{1} << static_cast<uint32_t>(*site);
    }
  }
  detail::armedFaults.store(mask, std::memory_order_relaxed);
  return sites.error;
}

void disarmAllFaults() {
  detail::armedFaults.store(0, std::memory_order_relaxed);
}

}  // namespace railtune
