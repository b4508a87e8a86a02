// Tuner ABI v7 (symbol ncclTunerPlugin_v7). Not bound by NCCL 2.31.2 nor 2.32.3, whose src/plugin/tuner.cc
// tries v6..v2; NCCL's release notes give it to 2.32.6 ("Rubin platform support"). Written from NCCL's
// src/include/plugin/tuner/tuner_v7.h and nccl_tuner.h at the commit that adds it (docs/tuning.md, "Tuner v7").
// The entry points are v6's; the constants gain a fifth compute-capability row, NCCL_RUBIN_COMPCAP_IDX.
// NCCL keeps a v7 table itself and hands v5/v6 plugins a four-row copy (rows 0..3), copying those rows
// back after their init: row 4 is never visible to them and keeps NCCL's value.
#pragma once

#include "nccl/tuner_v6.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NCCL_NUM_COMPCAPS_V7 5
#define NCCL_RUBIN_COMPCAP_IDX 4

typedef ncclNvlDomainInfo_v5_t ncclNvlDomainInfo_v7_t;

// v5's struct with NCCL_NUM_COMPCAPS_V7 rows in each of the five per-GPU arrays: 159 doubles, 1272 bytes.
typedef struct {
  double baseLatencies[NCCL_NUM_ALGORITHMS_V5][NCCL_NUM_PROTOCOLS_V5];                      // us
  double hwLatencies[NCCL_NUM_HW_LINKS_V5][NCCL_NUM_ALGORITHMS_V5][NCCL_NUM_PROTOCOLS_V5];  // us
  double llMaxBws[NCCL_NUM_COMPCAPS_V7][NCCL_NUM_TUNING_SCALES_V5];                         // GB/s, total
  double perChMaxRingLL128Bws[NCCL_NUM_COMPCAPS_V7][NCCL_NUM_TUNING_SCALES_V5];             // GB/s per channel
  double perChMaxTreeLL128Bws[NCCL_NUM_COMPCAPS_V7][NCCL_NUM_TUNING_SCALES_V5];             // GB/s per channel
  double perChMaxTreeBws[NCCL_NUM_COMPCAPS_V7][NCCL_NUM_TUNING_SCALES_V5];                  // GB/s per channel
  double perChMaxNVLSTreeBws[NCCL_NUM_COMPCAPS_V7][NCCL_NUM_TUNING_SCALES_V5];              // GB/s per channel
} ncclTunerConstants_v7_t;

typedef struct {
  const char* name;
  ncclResult_t (*init)(void** ctx, uint64_t commId, size_t nRanks, size_t nNodes, ncclDebugLogger_t logFunction,
                       ncclNvlDomainInfo_v7_t* nvlDomainInfo, ncclTunerConstants_v7_t* constants);
  ncclResult_t (*getCollInfo)(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps, float** collCostTable,
                              int numAlgo, int numProto, int regBuff, int* nChannels);
  ncclResult_t (*finalize)(void* context);
  // Optional (may be NULL), as in v6.
  ncclResult_t (*getChunkSize)(void* context, ncclFunc_t collType, size_t nBytes, int algo, int proto, int nChannels,
                               size_t* chunkSize);
} ncclTuner_v7_t;

// NCCL's two conversions (tuner_v7.h: ncclTunerConstants_v7_to_v5 / _v5_to_v7), which its v5 and v6 adapters
// apply around the plugin's init (src/plugin/tuner/tuner_v5.cc, tuner_v6.cc at the same commit): latencies
// whole, rows 0..NCCL_NUM_COMPCAPS_V5-1 of each per-GPU array. Row NCCL_RUBIN_COMPCAP_IDX is neither read
// by the first nor written by the second. The helper copies the four v5 rows of one per-GPU array.
static inline void tunerCopyCompCapRowsV5(double dst[][NCCL_NUM_TUNING_SCALES_V5],
                                          const double src[][NCCL_NUM_TUNING_SCALES_V5]) {
  for (int r = 0; r < NCCL_NUM_COMPCAPS_V5; ++r)
    for (int s = 0; s < NCCL_NUM_TUNING_SCALES_V5; ++s) dst[r][s] = src[r][s];
}

static inline void tunerConstantsV7ToV5(ncclTunerConstants_v5_t* dst, const ncclTunerConstants_v7_t* src) {
  for (int a = 0; a < NCCL_NUM_ALGORITHMS_V5; ++a)
    for (int p = 0; p < NCCL_NUM_PROTOCOLS_V5; ++p) {
      dst->baseLatencies[a][p] = src->baseLatencies[a][p];
      for (int l = 0; l < NCCL_NUM_HW_LINKS_V5; ++l) dst->hwLatencies[l][a][p] = src->hwLatencies[l][a][p];
    }
  tunerCopyCompCapRowsV5(dst->llMaxBws, src->llMaxBws);
  tunerCopyCompCapRowsV5(dst->perChMaxRingLL128Bws, src->perChMaxRingLL128Bws);
  tunerCopyCompCapRowsV5(dst->perChMaxTreeLL128Bws, src->perChMaxTreeLL128Bws);
  tunerCopyCompCapRowsV5(dst->perChMaxTreeBws, src->perChMaxTreeBws);
  tunerCopyCompCapRowsV5(dst->perChMaxNVLSTreeBws, src->perChMaxNVLSTreeBws);
}

static inline void tunerConstantsV5ToV7(ncclTunerConstants_v7_t* dst, const ncclTunerConstants_v5_t* src) {
  for (int a = 0; a < NCCL_NUM_ALGORITHMS_V5; ++a)
    for (int p = 0; p < NCCL_NUM_PROTOCOLS_V5; ++p) {
      dst->baseLatencies[a][p] = src->baseLatencies[a][p];
      for (int l = 0; l < NCCL_NUM_HW_LINKS_V5; ++l) dst->hwLatencies[l][a][p] = src->hwLatencies[l][a][p];
    }
  tunerCopyCompCapRowsV5(dst->llMaxBws, src->llMaxBws);
  tunerCopyCompCapRowsV5(dst->perChMaxRingLL128Bws, src->perChMaxRingLL128Bws);
  tunerCopyCompCapRowsV5(dst->perChMaxTreeLL128Bws, src->perChMaxTreeLL128Bws);
  tunerCopyCompCapRowsV5(dst->perChMaxTreeBws, src->perChMaxTreeBws);
  tunerCopyCompCapRowsV5(dst->perChMaxNVLSTreeBws, src->perChMaxNVLSTreeBws);
}

#ifdef __cplusplus
}
#endif
