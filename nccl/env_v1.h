// Env ABI v1 (symbol ncclEnvPlugin_v1): every ncclGetEnv of NCCL goes through getEnv once loaded.
#pragma once

#include "nccl/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  const char* name;
  ncclResult_t (*init)(uint8_t ncclMajor, uint8_t ncclMinor, uint8_t ncclPatch, const char* suffix);
  ncclResult_t (*finalize)(void);
  // The returned pointer stays valid until finalize or the next getEnv of the same name.
  const char* (*getEnv)(const char* name);
} ncclEnv_v1_t;

#ifdef __cplusplus
}
#endif
