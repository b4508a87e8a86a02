// The exported tuner tables, v2..v7: one Adapter (adapter.h) per version, each version's traits being
// all it changes. The line above each says what that is, citing NCCL 2.30.7's declaration of it in
// src/include/plugin/tuner/tuner_vN.h (our copies: nccl/tuner_vN.h, pinned by tests/abi).
#include "nccl/tuner_v2.h"
#include "nccl/tuner_v3.h"
#include "nccl/tuner_v4.h"
#include "nccl/tuner_v7.h"  // and v5, v6, which it includes
#include "tuner_plugin/adapter.h"

namespace {
using namespace railtune::tuner::adapter;

// v2: init(nRanks, nNodes, logger, ctx) (tuner_v2.h:24); getCollInfo gets no cost table, returns algo/proto (:45-46).
struct V2 {
  using Table = ncclTuner_v2_t;
  static constexpr auto init = initWithoutComm<2>;
  static constexpr auto getCollInfo = getCollInfoWithoutCostTable;
  static constexpr bool hasChunkSize = false;
};

// v3: getCollInfo edits NCCL's cost table instead (tuner_v3.h:47-48).
struct V3 {
  using Table = ncclTuner_v3_t;
  static constexpr auto init = initWithoutComm<3>;
  static constexpr auto getCollInfo = getCollInfoWithoutRegBuff;
  static constexpr bool hasChunkSize = false;
};

// v4: v3 plus regBuff before nChannels (tuner_v4.h:49).
struct V4 {
  using Table = ncclTuner_v4_t;
  static constexpr auto init = initWithoutComm<4>;
  static constexpr auto getCollInfo = getCollInfoWithRegBuff;
  static constexpr bool hasChunkSize = false;
};

// v5: init(ctx, commId, ..., nvlDomainInfo, constants) (tuner_v5.h:53-54); destroy renamed finalize (:83).
struct V5 {
  using Table = ncclTuner_v5_t;
  static constexpr auto init = initWithComm<5>;
  static constexpr auto getCollInfo = getCollInfoWithRegBuff;
  static constexpr bool hasChunkSize = false;
};
static_assert(sizeof(ncclTunerConstants_v5_t) == 144 * sizeof(double), "ncclTunerConstants_v5_t is 1152 bytes");
static_assert(sizeof(ncclNvlDomainInfo_v5_t) == 3 * sizeof(int));

// v6 (native): v5 plus getChunkSize, last in the table (tuner_v6.h:79-80).
struct V6 {
  using Table = ncclTuner_v6_t;
  static constexpr auto init = initWithComm<6>;
  static constexpr auto getCollInfo = getCollInfoWithRegBuff;
  static constexpr bool hasChunkSize = true;
};

// v7: v6's entry points; the constants have a fifth compute-capability row (tuner_v7.h, at the commit that adds
// it; not bound by NCCL 2.31.2 or 2.32.3: docs/tuning.md). init converts as NCCL's v5/v6 adapters do.
struct V7 {
  using Table = ncclTuner_v7_t;
  static constexpr auto init = initWithCommV7<7>;
  static constexpr auto getCollInfo = getCollInfoWithRegBuff;
  static constexpr bool hasChunkSize = true;
};
static_assert(sizeof(ncclTunerConstants_v7_t) == 159 * sizeof(double), "ncclTunerConstants_v7_t is 1272 bytes");

}  // namespace

extern "C" __attribute__((visibility("default"))) constinit const ncclTuner_v2_t ncclTunerPlugin_v2 =
    Adapter<V2>::table();
extern "C" __attribute__((visibility("default"))) constinit const ncclTuner_v3_t ncclTunerPlugin_v3 =
    Adapter<V3>::table();
extern "C" __attribute__((visibility("default"))) constinit const ncclTuner_v4_t ncclTunerPlugin_v4 =
    Adapter<V4>::table();
extern "C" __attribute__((visibility("default"))) constinit const ncclTuner_v5_t ncclTunerPlugin_v5 =
    Adapter<V5>::table();
extern "C" __attribute__((visibility("default"))) constinit const ncclTuner_v6_t ncclTunerPlugin_v6 =
    Adapter<V6>::table();
extern "C" __attribute__((visibility("default"))) constinit const ncclTuner_v7_t ncclTunerPlugin_v7 =
    Adapter<V7>::table();
