// Env ABI v2 (symbol ncclEnvPlugin_v2, NCCL 2.30): init gains NCCL's logger.
#pragma once

#include "nccl/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  const char* name;
  ncclResult_t (*init)(uint8_t ncclMajor, uint8_t ncclMinor, uint8_t ncclPatch, const char* suffix,
                       ncclDebugLogger_t logFunction);
  ncclResult_t (*finalize)(void);
  const char* (*getEnv)(const char* name);
} ncclEnv_v2_t;

#ifdef __cplusplus
}
#endif
