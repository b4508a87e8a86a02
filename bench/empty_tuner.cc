#include "bench/empty_tuner.h"

extern "C" ncclResult_t railtuneBenchEmptyGetCollInfo(void*, ncclFunc_t, size_t, int, float**, int, int, int, int*) {
  return ncclSuccess;
}
