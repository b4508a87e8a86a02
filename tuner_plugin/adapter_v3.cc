// Tuner ABI v3: as v4 but getCollInfo has no regBuff (reported to the engine as "not registered").
#include "nccl/tuner_v3.h"
#include "tuner_plugin/boundary.h"

namespace {
using namespace railtune::tuner;

ncclResult_t initV3(size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction, void** ctx) {
  return boundary::init({.context = ctx, .nRanks = nRanks, .nNodes = nNodes, .logger = logFunction, .abiVersion = 3});
}

ncclResult_t getCollInfoV3(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps, float** collCostTable,
                           int numAlgo, int numProto, int* nChannels) {
  return boundary::getCollInfo(context, {.collType = static_cast<int>(collType),
                                         .nBytes = nBytes,
                                         .numPipeOps = numPipeOps,
                                         .collCostTable = collCostTable,
                                         .numAlgo = numAlgo,
                                         .numProto = numProto,
                                         .regBuff = 0,
                                         .nChannels = nChannels});
}

ncclResult_t destroyV3(void* context) {
  return boundary::finalize(context);
}

}  // namespace

static_assert(sizeof(ncclTuner_v3_t) == 4 * sizeof(void*), "ncclTuner_v3_t: name + 3 function pointers");

extern "C" __attribute__((visibility("default")))
const ncclTuner_v3_t ncclTunerPlugin_v3 = {"railtune", initV3, getCollInfoV3, destroyV3};
