// The one place every exported tuner call enters (architecture rule 1). Each function catches
// everything and applies the failure table:
//   init          success with a pass-through context; an error only under RAILTUNE_STRICT=1
//   getCollInfo,  always success with the cost table / chunk size untouched; after an internal
//   getChunkSize  failure (or ABI misuse) the communicator's context disables itself
// The adapters (adapter.h, instantiated per version in adapters.cc) call these with the arguments
// of the newest ABI.
#pragma once

#include <cstdint>
#include <optional>

#include "nccl/tuner_v6.h"

namespace railtune::tuner::boundary {

struct InitCall {
  void** context = nullptr;
  std::optional<uint64_t> commId{};  // v5+
  size_t nRanks = 0;
  size_t nNodes = 0;
  ncclDebugLogger_t logger = nullptr;
  const ncclNvlDomainInfo_v5_t* nvlDomainInfo = nullptr;  // v5+; NULL before
  ncclTunerConstants_v5_t* constants = nullptr;           // v5+; NULL before
  int abiVersion = 0;                                     // the ABI version NCCL bound, for logs
};

struct CollCall {
  int collType = ncclFuncAllReduce;  // ncclFunc_t as a number: NCCL (C) may pass values our enum lacks
  size_t nBytes = 0;
  int numPipeOps = 0;
  float** collCostTable = nullptr;  // really float[NCCL_NUM_ALGORITHMS][NCCL_NUM_PROTOCOLS]
  int numAlgo = 0;
  int numProto = 0;
  int regBuff = 0;  // v4+; 0 before
  int* nChannels = nullptr;
};

struct ChunkCall {
  int collType = ncclFuncAllReduce;  // ncclFunc_t as a number: NCCL (C) may pass values our enum lacks
  size_t nBytes = 0;
  int algorithm = NCCL_ALGO_UNDEF;
  int protocol = NCCL_PROTO_UNDEF;
  int nChannels = 0;
  size_t* chunkSize = nullptr;
};

ncclResult_t init(const InitCall& call) noexcept;
ncclResult_t getCollInfo(void* context, const CollCall& call) noexcept;
ncclResult_t getChunkSize(void* context, const ChunkCall& call) noexcept;
ncclResult_t finalize(void* context) noexcept;

}  // namespace railtune::tuner::boundary
