// See make_capture.h.
#include "profiler_plugin/capture/make_capture.h"

#include "profiler_plugin/capture/mask.h"

namespace railtune::profiler {
namespace {

// A pool size within the range of the parameter table (common/params.cc: 16 slots, enough for one
// operation's worth of events, to 2^20, what 32-bit slot indices and sane memory allow), else the default.
uint32_t readSlots(const char* name, EnvLookup env, std::vector<std::string>& errors) {
  const ParamValue<int64_t> value = readInt(name, env);
  if (!value.ok()) errors.push_back(value.error + "; using the default");
  return static_cast<uint32_t>(value.value);
}

}  // namespace

CaptureSettings readCaptureSettings(EnvLookup env) {
  CaptureSettings settings;
  const ParamValue<std::vector<std::string>> names = readList("RAILTUNE_PROFILE_MASK", env);
  if (!names.ok()) settings.errors.push_back(names.error + "; using the default");
  const ParsedMask mask = parseProfileMask(names.value);
  if (!mask.error.empty()) {
    settings.errors.push_back("RAILTUNE_PROFILE_MASK: " + mask.error + "; using the default");
  }
  settings.options.mask = mask.mask;
  settings.options.operationSlots = readSlots("RAILTUNE_PROFILE_OPERATIONS", env, settings.errors);
  settings.options.eventSlots = readSlots("RAILTUNE_PROFILE_EVENTS", env, settings.errors);
  return settings;
}

std::unique_ptr<CaptureEngine> makeCaptureEngine(const CommInfo& comm, int abiVersion, RecordSink* sink, const Log& log,
                                                 EnvLookup env) {
  CaptureSettings settings = readCaptureSettings(env);
  for (const std::string& error : settings.errors) RT_WARN(log, NCCL_INIT | NCCL_ENV, "%s", error.c_str());
  settings.options.kernelEvents = abiVersion >= 3;
  settings.options.v7Events = abiVersion >= 7;
  // KernelPhase exists from v7 on; NCCL 2.31 strips it from an older plugin's mask itself
  // (profiler_v6.cc, ncclProfiler_init@v2.31.2), earlier releases never send it: asked only where it can come.
  if (abiVersion < 7) settings.options.mask &= ~static_cast<EventMask>(EventType::KernelPhase);
  if (abiVersion < 6) settings.options.mask &= ~static_cast<EventMask>(EventType::CeColl);  // v6's event
  RT_INFO(log, NCCL_INIT | NCCL_PROFILE, "capture: events %s, %u operation and %u event slots",
          profileMaskNames(settings.options.mask).c_str(), settings.options.operationSlots,
          settings.options.eventSlots);
  return std::make_unique<CaptureEngine>(comm, settings.options, sink);
}

}  // namespace railtune::profiler
