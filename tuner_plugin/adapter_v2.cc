// Tuner ABI v2: no cost table. The engine still works on a table: this adapter builds one in which
// every combination NCCL says it supports costs the same, lets the engine decide, and reports the
// entry the engine preferred (set to 0.0) as algorithm/protocol. With no preference the outputs
// are left alone, so NCCL keeps the NCCL_ALGO_UNDEF/NCCL_PROTO_UNDEF it put there. Its table is
// exported with the other versions' in adapters.cc.
#include "nccl/tuner_v2.h"
#include "tuner_plugin/adapter.h"
#include "tuner_plugin/boundary.h"

namespace {
constexpr float kUnknownCost = 1.0f;  // "available, cost unknown": any preference (0.0) is below it

void fillSupportedTable(float (&table)[NCCL_NUM_ALGORITHMS][NCCL_NUM_PROTOCOLS], int collNetSupport, int nvlsSupport) {
  for (auto& row : table) {
    for (float& cost : row) cost = kUnknownCost;
  }
  // NVLS, NVLS_TREE and both CollNet algorithms exist only with Simple, and only when supported.
  const int simpleOnly[] = {NCCL_ALGO_NVLS, NCCL_ALGO_NVLS_TREE, NCCL_ALGO_COLLNET_DIRECT, NCCL_ALGO_COLLNET_CHAIN};
  for (int algo : simpleOnly) {
    const bool supported = (algo == NCCL_ALGO_NVLS || algo == NCCL_ALGO_NVLS_TREE) ? nvlsSupport : collNetSupport;
    for (int proto = 0; proto < NCCL_NUM_PROTOCOLS; ++proto) {
      if (!supported || proto != NCCL_PROTO_SIMPLE) table[algo][proto] = static_cast<float>(NCCL_ALGO_PROTO_IGNORE);
    }
  }
}

// NCCL's pick rule restricted to preferences: the first 0.0 entry, algorithms then protocols.
bool preferredEntry(const float (&table)[NCCL_NUM_ALGORITHMS][NCCL_NUM_PROTOCOLS], int* algo, int* proto) {
  for (int a = 0; a < NCCL_NUM_ALGORITHMS; ++a) {
    for (int p = 0; p < NCCL_NUM_PROTOCOLS; ++p) {
      if (table[a][p] == 0.0f) {
        *algo = a;
        *proto = p;
        return true;
      }
    }
  }
  return false;
}

}  // namespace

namespace railtune::tuner::adapter {

ncclResult_t getCollInfoWithoutCostTable(void* context, ncclFunc_t collType, size_t nBytes, int collNetSupport,
                                         int nvlsSupport, int numPipeOps, int* algorithm, int* protocol,
                                         int* nChannels) {
  float table[NCCL_NUM_ALGORITHMS][NCCL_NUM_PROTOCOLS];
  fillSupportedTable(table, collNetSupport, nvlsSupport);
  const ncclResult_t result = boundary::getCollInfo(context, {.collType = static_cast<int>(collType),
                                                              .nBytes = nBytes,
                                                              .numPipeOps = numPipeOps,
                                                              .collCostTable = reinterpret_cast<float**>(table),
                                                              .numAlgo = NCCL_NUM_ALGORITHMS,
                                                              .numProto = NCCL_NUM_PROTOCOLS,
                                                              .regBuff = 0,
                                                              .nChannels = nChannels});
  int algo = NCCL_ALGO_UNDEF, proto = NCCL_PROTO_UNDEF;
  if (preferredEntry(table, &algo, &proto) && algorithm != nullptr && protocol != nullptr) {
    *algorithm = algo;
    *protocol = proto;
  }
  return result;
}

}  // namespace railtune::tuner::adapter
