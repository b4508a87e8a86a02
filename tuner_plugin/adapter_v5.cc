// Tuner ABI v5 (native in NCCL 2.28): v6 without getChunkSize; nothing else to convert.
#include "nccl/tuner_v5.h"
#include "tuner_plugin/boundary.h"

namespace {
using namespace railtune::tuner;

ncclResult_t initV5(void** ctx, uint64_t commId, size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction,
                    ncclNvlDomainInfo_v5_t* nvlDomainInfo, ncclTunerConstants_v5_t* constants) {
  return boundary::init({.context = ctx,
                         .commId = commId,
                         .nRanks = nRanks,
                         .nNodes = nNodes,
                         .logger = logFunction,
                         .nvlDomainInfo = nvlDomainInfo,
                         .constants = constants,
                         .abiVersion = 5});
}

ncclResult_t getCollInfoV5(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps, float** collCostTable,
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

ncclResult_t finalizeV5(void* context) {
  return boundary::finalize(context);
}

}  // namespace

static_assert(sizeof(ncclTuner_v5_t) == 4 * sizeof(void*), "ncclTuner_v5_t: name + 3 function pointers");
static_assert(sizeof(ncclTunerConstants_v5_t) == 144 * sizeof(double), "ncclTunerConstants_v5_t is 1152 bytes");
static_assert(sizeof(ncclNvlDomainInfo_v5_t) == 3 * sizeof(int));

extern "C" __attribute__((visibility("default")))
const ncclTuner_v5_t ncclTunerPlugin_v5 = {"railtune", initV5, getCollInfoV5, finalizeV5};
