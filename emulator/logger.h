// The logger the emulator hands plugins (NCCL hands them ncclDebugLog): it formats each message and
// keeps the lines, thread-safely, for tests and the demo to read.
#pragma once

#include <string>
#include <vector>

#include "nccl/common.h"

namespace railtune::emu {

ncclDebugLogger_t pluginLogger();
// Lines logged so far ("WARN file:line text", "INFO ..."); takes them out of the store. At most 4096
// WARN/ABORT lines and 4096 others are kept between two calls; WARN lines past that are counted, and a
// last "WARN logger.cc:0 railtune emulator: N more WARN line(s) ... dropped" says how many.
std::vector<std::string> takePluginLog();

// What NCCL hands a v10+ net plugin as its profiler callback when no profiler is attached: succeeds and
// does nothing (NCCL checks for a profiler at call time).
ncclProfilerCallback_t idleProfilerCallback();

}  // namespace railtune::emu
