// The two symbols NCCL looks for, newest first (src/plugin/env.cc:55-62@v2.30.7): ncclEnvPlugin_v2 (NCCL 2.30+,
// init with NCCL's logger) and ncclEnvPlugin_v1 (2.28.7+, no logger: WARN lines go to stderr). Both share one
// implementation (env_plugin.h); the plugin's name is "railtune".
#include "env_plugin/env_plugin.h"
#include "nccl/env_v1.h"
#include "nccl/env_v2.h"

namespace {

ncclResult_t initV1(uint8_t major, uint8_t minor, uint8_t patch, const char* suffix) {
  return railtune::envplugin::init(major, minor, patch, suffix, nullptr);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) constinit const ncclEnv_v2_t ncclEnvPlugin_v2 = {
    "railtune", railtune::envplugin::init, railtune::envplugin::finalize, railtune::envplugin::getEnv};

extern "C" __attribute__((visibility("default"))) constinit const ncclEnv_v1_t ncclEnvPlugin_v1 = {
    "railtune", initV1, railtune::envplugin::finalize, railtune::envplugin::getEnv};
