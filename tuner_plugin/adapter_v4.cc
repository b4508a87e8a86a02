// Tuner ABI v4: init(nRanks, nNodes, logger, ctx) without commId, NVLink-domain info or constants;
// getCollInfo is already v5's.
#include "nccl/tuner_v4.h"
#include "tuner_plugin/boundary.h"

namespace {
using namespace railtune::tuner;

ncclResult_t initV4(size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction, void** ctx) {
  return boundary::init({.context = ctx, .nRanks = nRanks, .nNodes = nNodes, .logger = logFunction, .abiVersion = 4});
}

ncclResult_t getCollInfoV4(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps, float** collCostTable,
                           int numAlgo, int numProto, int regBuff, int* nChannels) {
  return boundary::getCollInfo(context, {.collType = static_cast<int>(collType),
                                         .nBytes = nBytes,
                                         .numPipeOps = numPipeOps,
                                         .collCostTable = collCostTable,
                                         .numAlgo = numAlgo,
                                         .numProto = numProto,
                                         .regBuff = regBuff,
                                         .nChannels = nChannels});
}

ncclResult_t destroyV4(void* context) {
  return boundary::finalize(context);
}

}  // namespace

static_assert(sizeof(ncclTuner_v4_t) == 4 * sizeof(void*), "ncclTuner_v4_t: name + 3 function pointers");

extern "C" __attribute__((visibility("default")))
const ncclTuner_v4_t ncclTunerPlugin_v4 = {"railtune", initV4, getCollInfoV4, destroyV4};
