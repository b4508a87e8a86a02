#include "tests/hygiene/exercise.h"

#include <dlfcn.h>

#include <cstdlib>

#include "nccl/env_v2.h"
#include "nccl/net_v11.h"
#include "nccl/net_v12.h"
#include "nccl/profiler_v6.h"
#include "nccl/tuner_v6.h"

namespace railtune::hygiene {
namespace {

void quietLogger(ncclDebugLogLevel, unsigned long, const char*, int, const char*, ...) {}

ncclResult_t noProfilerEvent(void** eHandle, int, void*, int64_t, void*) {
  if (eHandle != nullptr) *eHandle = nullptr;
  return ncclSuccess;
}

template <typename T>
const T* table(void* handle, const char* symbol) {
  return static_cast<const T*>(dlsym(handle, symbol));
}

constexpr uint64_t kCommId = 0x5ca1ab1e0ddba11ULL;

}  // namespace

const char* exerciseTuner(void* handle, int) {
  const auto* tuner = table<ncclTuner_v6_t>(handle, "ncclTunerPlugin_v6");
  if (tuner == nullptr) return "ncclTunerPlugin_v6 not found";
  ncclNvlDomainInfo_v6_t domains{2, 4, 4};
  ncclTunerConstants_v6_t constants{};
  void* ctx = nullptr;
  if (tuner->init(&ctx, kCommId, 8, 2, quietLogger, &domains, &constants) != ncclSuccess) return "tuner init failed";
  float cost[NCCL_NUM_ALGORITHMS][NCCL_NUM_PROTOCOLS] = {};
  int nChannels = 0;
  // NCCL hands the table as a float[7][3] cast to float**.
  tuner->getCollInfo(ctx, ncclFuncAllReduce, 1 << 20, 1, reinterpret_cast<float**>(cost), NCCL_NUM_ALGORITHMS,
                     NCCL_NUM_PROTOCOLS, 0, &nChannels);
  if (tuner->finalize(ctx) != ncclSuccess) return "tuner finalize failed";
  return nullptr;
}

// Even cycles follow NCCL 2.30 (v12, finalize only after a successful init); odd cycles follow
// NCCL 2.28 (v11, finalize called even after a failed init).
const char* exerciseNet(void* handle, int cycle) {
  void* ctx = nullptr;
  if (cycle % 2 == 0) {
    const auto* net = table<ncclNet_v12_t>(handle, "ncclNetPlugin_v12");
    if (net == nullptr) return "ncclNetPlugin_v12 not found";
    ncclNetCommConfig_v12_t config{NCCL_NET_TRAFFIC_CLASS_UNDEF};
    if (net->init(&ctx, kCommId, &config, quietLogger, noProfilerEvent) == ncclSuccess) net->finalize(ctx);
    return nullptr;
  }
  const auto* net = table<ncclNet_v11_t>(handle, "ncclNetPlugin_v11");
  if (net == nullptr) return "ncclNetPlugin_v11 not found";
  ncclNetCommConfig_v11_t config{NCCL_NET_TRAFFIC_CLASS_UNDEF};
  net->init(&ctx, kCommId, &config, quietLogger, noProfilerEvent);
  net->finalize(ctx);
  return nullptr;
}

const char* exerciseProfiler(void* handle, int) {
  const auto* profiler = table<ncclProfiler_v6_t>(handle, "ncclProfiler_v6");
  if (profiler == nullptr) return "ncclProfiler_v6 not found";
  void* ctx = nullptr;
  int mask = 0;
  if (profiler->init(&ctx, kCommId, &mask, "hygiene", 1, 1, 0, quietLogger) != ncclSuccess)
    return "profiler init failed";
  if (profiler->finalize(ctx) != ncclSuccess) return "profiler finalize failed";
  return nullptr;
}

const char* exerciseEnv(void* handle, int cycle) {
  const auto* env = table<ncclEnv_v2_t>(handle, "ncclEnvPlugin_v2");
  if (env == nullptr) return "ncclEnvPlugin_v2 not found";
  ::setenv("RAILTUNE_RAIL_MAP", RAILTUNE_SOURCE_DIR "/docs/formats/rail-map.example.json", 1);
  ::setenv("RAILTUNE_HOST", "dgx-h100-01", 1);
  if (env->init(2, 30, 7, "", quietLogger) != ncclSuccess) return "env init failed";
  const char* hca = env->getEnv("NCCL_IB_HCA");
  if (hca == nullptr || hca[0] != '=') return "env plugin did not answer NCCL_IB_HCA from the example rail map";
  if (cycle % 2 == 0 && env->finalize() != ncclSuccess) return "env finalize failed";  // odd cycles: unload without
  return nullptr;
}

}  // namespace railtune::hygiene
