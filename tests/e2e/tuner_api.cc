#include "tests/e2e/tuner_api.h"

#include <gtest/gtest.h>

#include <cstring>

namespace railtune::testing {
namespace {

template <typename Table>
void bindCommon(TunerApi& api, const Table* t) {
  api.name = t->name;
  if constexpr (requires { t->destroy; }) {
    api.finalize = t->destroy;
  } else {
    api.finalize = t->finalize;
  }
}

// v3..v6 getCollInfo differ only in regBuff.
template <typename Table>
void bindTableGetCollInfo(TunerApi& api, const Table* t) {
  api.getCollInfo = [t](void* ctx, CollArgs& a) {
    if constexpr (std::is_same_v<Table, ncclTuner_v3_t>) {
      return t->getCollInfo(ctx, a.coll, a.nBytes, a.numPipeOps, a.table, a.numAlgo, a.numProto, a.nChannels);
    } else {
      return t->getCollInfo(ctx, a.coll, a.nBytes, a.numPipeOps, a.table, a.numAlgo, a.numProto, a.regBuff,
                            a.nChannels);
    }
  };
}

void bindV2(TunerApi& api, const ncclTuner_v2_t* t) {
  api.init = [t](void** ctx, const TunerInitArgs& a) { return t->init(a.nRanks, a.nNodes, a.logger, ctx); };
  api.getCollInfo = [t](void* ctx, CollArgs& a) {
    float(*table)[NCCL_NUM_PROTOCOLS] = reinterpret_cast<float(*)[NCCL_NUM_PROTOCOLS]>(a.table);
    const int nvls =
        table[NCCL_ALGO_NVLS][NCCL_PROTO_SIMPLE] != -1.0f || table[NCCL_ALGO_NVLS_TREE][NCCL_PROTO_SIMPLE] != -1.0f;
    const int collNet = table[NCCL_ALGO_COLLNET_CHAIN][NCCL_PROTO_SIMPLE] != -1.0f;
    const ncclResult_t r =
        t->getCollInfo(ctx, a.coll, a.nBytes, collNet, nvls, a.numPipeOps, &a.algorithm, &a.protocol, a.nChannels);
    if (a.algorithm >= 0 && a.algorithm < NCCL_NUM_ALGORITHMS && a.protocol >= 0 && a.protocol < NCCL_NUM_PROTOCOLS &&
        table[a.algorithm][a.protocol] != -1.0f) {
      table[a.algorithm][a.protocol] = 0.0f;
    }
    return r;
  };
  bindCommon(api, t);
}

template <typename Table>
void bindOldInit(TunerApi& api, const Table* t) {  // v3, v4
  api.init = [t](void** ctx, const TunerInitArgs& a) { return t->init(a.nRanks, a.nNodes, a.logger, ctx); };
  bindTableGetCollInfo(api, t);
  bindCommon(api, t);
}

template <typename Table>
void bindNewInit(TunerApi& api, const Table* t) {  // v5, v6
  api.init = [t](void** ctx, const TunerInitArgs& a) {
    ncclNvlDomainInfo_v5_t domains = a.domains;
    return t->init(ctx, a.commId, a.nRanks, a.nNodes, a.logger, &domains, a.constants);
  };
  bindTableGetCollInfo(api, t);
  bindCommon(api, t);
}

// v7 takes NCCL's five-row table: the harness's four rows widened into one whose row 4 holds a marker, and
// narrowed back after init; a plugin that wrote row 4 (or past the table) is caught here.
void bindV7(TunerApi& api, const ncclTuner_v7_t* t) {
  api.init = [t](void** ctx, const TunerInitArgs& a) {
    ncclNvlDomainInfo_v7_t domains = a.domains;
    if (a.constants == nullptr) return t->init(ctx, a.commId, a.nRanks, a.nNodes, a.logger, &domains, nullptr);
    struct {
      ncclTunerConstants_v7_t table;
      double past[4];
    } wide;
    std::memset(&wide, 0x7b, sizeof(wide));
    tunerConstantsV5ToV7(&wide.table, a.constants);
    decltype(wide) marked = wide;
    const ncclResult_t r = t->init(ctx, a.commId, a.nRanks, a.nNodes, a.logger, &domains, &wide.table);
    tunerConstantsV7ToV5(a.constants, &wide.table);
    // Whatever the plugin did to rows 0..3, nothing else moved: row 4 of each array and the bytes past the table.
    tunerConstantsV5ToV7(&marked.table, a.constants);
    EXPECT_EQ(std::memcmp(&wide, &marked, sizeof(wide)), 0) << "row 4 changed, or written past the v7 table";
    return r;
  };
  bindTableGetCollInfo(api, t);
  bindCommon(api, t);
  api.getChunkSize = t->getChunkSize;
}

}  // namespace

TunerApi bindTuner(const PluginLibrary& lib, int version) {
  TunerApi api;
  const std::string symbol = std::string("ncclTunerPlugin_v").append(std::to_string(version));
  switch (version) {
    case 2:
      if (auto* t = lib.table<ncclTuner_v2_t>(symbol)) {
        bindV2(api, t);
        api.version = 2;
      }
      break;
    case 3:
      if (auto* t = lib.table<ncclTuner_v3_t>(symbol)) {
        bindOldInit(api, t);
        api.version = 3;
      }
      break;
    case 4:
      if (auto* t = lib.table<ncclTuner_v4_t>(symbol)) {
        bindOldInit(api, t);
        api.version = 4;
      }
      break;
    case 5:
      if (auto* t = lib.table<ncclTuner_v5_t>(symbol)) {
        bindNewInit(api, t);
        api.version = 5;
      }
      break;
    case 6:
      if (auto* t = lib.table<ncclTuner_v6_t>(symbol)) {
        bindNewInit(api, t);
        api.getChunkSize = t->getChunkSize;
        api.version = 6;
      }
      break;
    case 7:
      if (auto* t = lib.table<ncclTuner_v7_t>(symbol)) {
        bindV7(api, t);
        api.version = 7;
      }
      break;
    default:
      break;
  }
  return api;
}

void fillNcclLikeTable(CostTable& table) {
  for (int a = 0; a < NCCL_NUM_ALGORITHMS; ++a) {
    for (int p = 0; p < NCCL_NUM_PROTOCOLS; ++p) table[a][p] = 5.0f + 1.25f * static_cast<float>(a * 3 + p);
  }
  for (int p = 0; p < NCCL_PROTO_SIMPLE; ++p) {  // NVLS and CollNet exist only with Simple
    for (int a : {NCCL_ALGO_NVLS, NCCL_ALGO_NVLS_TREE, NCCL_ALGO_COLLNET_DIRECT, NCCL_ALGO_COLLNET_CHAIN}) {
      table[a][p] = -1.0f;
    }
  }
}

}  // namespace railtune::testing
