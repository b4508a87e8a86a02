// The one call that makes a communicator's CaptureEngine from the environment: RAILTUNE_PROFILE_MASK,
// RAILTUNE_PROFILE_OPERATIONS and RAILTUNE_PROFILE_EVENTS (common/params.cc). A rejected value is one
// WARN naming the variable, and its default is used.
#pragma once

#include <memory>

#include "common/log.h"
#include "common/params.h"
#include "profiler_plugin/capture/capture_engine.h"

namespace railtune::profiler {

// What the variables say, with the reasons for any value rejected (one line each).
struct CaptureSettings {
  CaptureOptions options;
  std::vector<std::string> errors;
};
CaptureSettings readCaptureSettings(EnvLookup env = processEnv);

// abiVersion: the profiler ABI NCCL bound (KernelCh events exist from v3 on). `sink` receives the
// completed records and must outlive the engine (the engine's destructor pushes the last ones).
std::unique_ptr<CaptureEngine> makeCaptureEngine(const CommInfo& comm, int abiVersion, RecordSink* sink, const Log& log,
                                                 EnvLookup env = processEnv);

}  // namespace railtune::profiler
