// The baseline of bench_tuner_call: a function with getCollInfo's exact signature that does nothing,
// compiled in its own file so that the call is a real call, not inlined away.
#pragma once

#include "nccl/tuner_v6.h"

extern "C" ncclResult_t railtuneBenchEmptyGetCollInfo(void* context, ncclFunc_t collType, size_t nBytes, int numPipeOps,
                                                      float** collCostTable, int numAlgo, int numProto, int regBuff,
                                                      int* nChannels);
