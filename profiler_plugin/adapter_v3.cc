// Profiler ABI v3: init(context, mask) only; coll/p2p carry name and commHash, kernelCh no timer.
#include "nccl/profiler_v3.h"
#include "profiler_plugin/boundary.h"
#include "profiler_plugin/descr_convert.h"

namespace {
using namespace railtune::profiler;

// v3's init knows nothing about the communicator and gets no logger.
ncclResult_t initV3(void** context, int* eActivationMask) {
  return boundary::init({.context = context, .eActivationMask = eActivationMask, .abiVersion = 3});
}

ncclResult_t startEventV3(void* context, void** eHandle, ncclProfilerEventDescr_v3_t* eDescr) {
  if (eDescr == nullptr) return boundary::startEvent(context, eHandle, nullptr);
  const EventDescriptor descr = convertDescriptor(*eDescr);
  return boundary::startEvent(context, eHandle, &descr);
}

ncclResult_t stopEventV3(void* eHandle) {
  return boundary::stopEvent(eHandle);
}

ncclResult_t recordEventStateV3(void* eHandle, ncclProfilerEventState_v3_t eState,
                                ncclProfilerEventStateArgs_v3_t* eStateArgs) {
  const auto state = static_cast<EventState>(eState);
  return boundary::recordEventState(eHandle, state, convertStateArgs(state, eStateArgs));
}

ncclResult_t finalizeV3(void* context) {
  return boundary::finalize(context);
}

}  // namespace

static_assert(sizeof(ncclProfiler_v3_t) == 6 * sizeof(void*), "ncclProfiler_v3: name + 5 function pointers");

extern "C" __attribute__((visibility("default"))) const ncclProfiler_v3_t ncclProfiler_v3 = {
    "railtune", initV3, startEventV3, stopEventV3, recordEventStateV3, finalizeV3};
