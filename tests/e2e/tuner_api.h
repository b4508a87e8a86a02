// The tuner plugin's exported versions seen through one shape, calling each version's own struct
// exactly as NCCL's call sites do (for v2: NCCL's adapter, deriving support flags from the table
// and zeroing the chosen entry). Used by the direct-dlopen tests.
#pragma once

#include <functional>
#include <string>

#include "nccl/tuner_v2.h"
#include "nccl/tuner_v3.h"
#include "nccl/tuner_v4.h"
#include "nccl/tuner_v5.h"
#include "nccl/tuner_v7.h"
#include "tests/e2e/plugin_fixture.h"

namespace railtune::testing {

using CostTable = float[NCCL_NUM_ALGORITHMS][NCCL_NUM_PROTOCOLS];

struct TunerInitArgs {
  uint64_t commId = 0xC0FFEE;
  size_t nRanks = 16;
  size_t nNodes = 2;
  ncclDebugLogger_t logger = captureLogger;
  ncclNvlDomainInfo_v5_t domains{2, 8, 8};
  ncclTunerConstants_v5_t* constants = nullptr;
};

struct CollArgs {
  ncclFunc_t coll = ncclFuncAllReduce;
  size_t nBytes = 1 << 20;
  int numPipeOps = 1;
  float** table = nullptr;  // NCCL's float[7][3], passed as float**
  int numAlgo = NCCL_NUM_ALGORITHMS;
  int numProto = NCCL_NUM_PROTOCOLS;
  int regBuff = 0;
  int* nChannels = nullptr;
  // v2 only: what the plugin returned (NCCL presets UNDEF).
  int algorithm = NCCL_ALGO_UNDEF;
  int protocol = NCCL_PROTO_UNDEF;
};

struct TunerApi {
  int version = 0;
  const char* name = nullptr;
  std::function<ncclResult_t(void** ctx, const TunerInitArgs&)> init;
  std::function<ncclResult_t(void* ctx, CollArgs&)> getCollInfo;
  std::function<ncclResult_t(void* ctx)> finalize;
  // v6 only; empty before.
  std::function<ncclResult_t(void* ctx, ncclFunc_t, size_t, int algo, int proto, int nChannels, size_t*)> getChunkSize;
};

// Empty api (version 0) when the symbol is missing.
TunerApi bindTuner(const PluginLibrary& lib, int version);

// A table like the one NCCL builds: every entry a distinct positive cost, a few disabled (-1).
void fillNcclLikeTable(CostTable& table);

}  // namespace railtune::testing
