// One adapter for every tuner ABI, instantiated per version (adapters.cc) from that version's traits.
// What a version really changes is in its traits, nothing else:
//   Table          NCCL's table of that version
//   init           which of NCCL's two init signatures it has (below)
//   getCollInfo    which of its three getCollInfo signatures (v2's, without a cost table, in adapter_v2.cc)
//   hasChunkSize   whether the table ends with getChunkSize
// Each converts to the boundary's calls, which take the arguments of the newest ABI; an argument a
// version lacks is passed as "absent" (NULL, 0), as boundary.h says.
#pragma once

#include <cstddef>
#include <cstdint>

#include "nccl/tuner_v7.h"
#include "tuner_plugin/boundary.h"

namespace railtune::tuner::adapter {

// v2..v4: no communicator id, NVLink-domain info or cost-model constants.
template <int Version>
ncclResult_t initWithoutComm(size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction, void** ctx) {
  return boundary::init(
      {.context = ctx, .nRanks = nRanks, .nNodes = nNodes, .logger = logFunction, .abiVersion = Version});
}

// v5 on: the context first, then the communicator id; NVLink domains and the constants NCCL will use.
template <int Version>
ncclResult_t initWithComm(void** ctx, uint64_t commId, size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction,
                          ncclNvlDomainInfo_v5_t* nvlDomainInfo, ncclTunerConstants_v5_t* constants) {
  return boundary::init({.context = ctx,
                         .commId = commId,
                         .nRanks = nRanks,
                         .nNodes = nNodes,
                         .logger = logFunction,
                         .nvlDomainInfo = nvlDomainInfo,
                         .constants = constants,
                         .abiVersion = Version});
}

// v7: the same call with five compute-capability rows. railtune's engine knows rows 0..3 (its GPUs are
// Blackwell, NCCL_BLACKWELL_COMPCAP_IDX): it tunes a four-row copy, as NCCL's own v5/v6 adapters hand a
// plugin, and only rows 0..3 are copied back, after a successful init. Row 4 (NCCL_RUBIN_COMPCAP_IDX) keeps
// NCCL's value, as it does for a v5/v6 plugin; it is read nowhere else.
template <int Version>
ncclResult_t initWithCommV7(void** ctx, uint64_t commId, size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction,
                            ncclNvlDomainInfo_v7_t* nvlDomainInfo, ncclTunerConstants_v7_t* constants) {
  if (constants == nullptr)
    return initWithComm<Version>(ctx, commId, nRanks, nNodes, logFunction, nvlDomainInfo, nullptr);
  ncclTunerConstants_v5_t rows;
  tunerConstantsV7ToV5(&rows, constants);
  const ncclResult_t r = initWithComm<Version>(ctx, commId, nRanks, nNodes, logFunction, nvlDomainInfo, &rows);
  if (r == ncclSuccess) tunerConstantsV5ToV7(constants, &rows);
  return r;
}

// v4 on: NCCL's cost table and whether the user buffer is registered.
inline ncclResult_t getCollInfoWithRegBuff(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps,
                                           float** collCostTable, int numAlgo, int numProto, int regBuff,
                                           int* nChannels) {
  return boundary::getCollInfo(context, {.collType = static_cast<int>(collType),
                                         .nBytes = nBytes,
                                         .numPipeOps = numPipeOps,
                                         .collCostTable = collCostTable,
                                         .numAlgo = numAlgo,
                                         .numProto = numProto,
                                         .regBuff = regBuff,
                                         .nChannels = nChannels});
}

// v3: the cost table without regBuff, reported to the engine as "not registered".
inline ncclResult_t getCollInfoWithoutRegBuff(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps,
                                              float** collCostTable, int numAlgo, int numProto, int* nChannels) {
  return getCollInfoWithRegBuff(context, collType, nBytes, numPipeOps, collCostTable, numAlgo, numProto, 0, nChannels);
}

// v2: no cost table; adapter_v2.cc builds one and reports the engine's preference as algorithm/protocol.
ncclResult_t getCollInfoWithoutCostTable(void* context, ncclFunc_t collType, size_t nBytes, int collNetSupport,
                                         int nvlsSupport, int numPipeOps, int* algorithm, int* protocol,
                                         int* nChannels);

// v6 on.
inline ncclResult_t getChunkSize(void* context, ncclFunc_t collType, size_t nBytes, int algo, int proto, int nChannels,
                                 size_t* chunkSize) {
  return boundary::getChunkSize(context, {.collType = static_cast<int>(collType),
                                          .nBytes = nBytes,
                                          .algorithm = algo,
                                          .protocol = proto,
                                          .nChannels = nChannels,
                                          .chunkSize = chunkSize});
}

// `destroy` up to v4, `finalize` from v5: the same call.
inline ncclResult_t finalize(void* context) {
  return boundary::finalize(context);
}

template <typename Abi>
struct Adapter {
  using Table = typename Abi::Table;

  // The exported table: NCCL's order of members; getChunkSize last, where a version has it.
  static constexpr Table table() {
    if constexpr (Abi::hasChunkSize) {
      static_assert(sizeof(Table) == 5 * sizeof(void*), "a tuner table with getChunkSize is a name and 4 pointers");
      return {"railtune", Abi::init, Abi::getCollInfo, finalize, getChunkSize};
    } else {
      static_assert(sizeof(Table) == 4 * sizeof(void*), "a tuner table is a name and 3 function pointers");
      return {"railtune", Abi::init, Abi::getCollInfo, finalize};
    }
  }
};

}  // namespace railtune::tuner::adapter
