// The env plugin's three entry points behind NCCL's ncclEnvPlugin_v1 and _v2 (adapters.cc). NCCL calls init once
// per process, from inside std::call_once (src/init.cc:165-173@v2.30.7), then getEnv from any thread for every
// variable it reads, and finalize from atexit (src/plugin/env.cc:99,104-109@v2.30.7).
//
// getEnv answers in this order: the process environment when it holds a non-empty value (the user's variable always
// wins, read live, as NCCL's default plugin reads it: src/plugin/env/default_env.cc:21-23@v2.30.7); else this host's
// table (host_table.h) when it sets the name; else what the environment holds (nothing, or an empty value). Without a
// table (no rail map, an unknown host, a bad file: one WARN at init) every name passes through unchanged.
#pragma once

#include <cstdint>

#include "nccl/common.h"

namespace railtune::envplugin {

ncclResult_t init(uint8_t ncclMajor, uint8_t ncclMinor, uint8_t ncclPatch, const char* suffix,
                  ncclDebugLogger_t logger) noexcept;
ncclResult_t finalize() noexcept;
const char* getEnv(const char* name) noexcept;

}  // namespace railtune::envplugin
