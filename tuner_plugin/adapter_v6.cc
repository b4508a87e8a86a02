// Tuner ABI v6 (NCCL 2.30), the native interface: arguments pass straight to the boundary.
#include "nccl/tuner_v6.h"
#include "tuner_plugin/boundary.h"

namespace {
using namespace railtune::tuner;

ncclResult_t initV6(void** ctx, uint64_t commId, size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction,
                    ncclNvlDomainInfo_v6_t* nvlDomainInfo, ncclTunerConstants_v6_t* constants) {
  return boundary::init({.context = ctx,
                         .commId = commId,
                         .nRanks = nRanks,
                         .nNodes = nNodes,
                         .logger = logFunction,
                         .nvlDomainInfo = nvlDomainInfo,
                         .constants = constants,
                         .abiVersion = 6});
}

ncclResult_t getCollInfoV6(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps, float** collCostTable,
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

ncclResult_t getChunkSizeV6(void* context, ncclFunc_t collType, size_t nBytes, int algo, int proto, int nChannels,
                            size_t* chunkSize) {
  return boundary::getChunkSize(context, {.collType = static_cast<int>(collType),
                                          .nBytes = nBytes,
                                          .algorithm = algo,
                                          .protocol = proto,
                                          .nChannels = nChannels,
                                          .chunkSize = chunkSize});
}

ncclResult_t finalizeV6(void* context) {
  return boundary::finalize(context);
}

}  // namespace

static_assert(sizeof(ncclTuner_v6_t) == 5 * sizeof(void*), "ncclTuner_v6_t: name + 4 function pointers");

extern "C" __attribute__((visibility("default")))
const ncclTuner_v6_t ncclTunerPlugin_v6 = {"railtune", initV6, getCollInfoV6, finalizeV6, getChunkSizeV6};
