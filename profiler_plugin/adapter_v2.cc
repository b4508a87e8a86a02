// Profiler ABI v2: as v3 without kernel-channel and net-plugin events.
#include "nccl/profiler_v2.h"
#include "profiler_plugin/boundary.h"
#include "profiler_plugin/descr_convert.h"

namespace {
using namespace railtune::profiler;

// v2's init knows nothing about the communicator and gets no logger.
ncclResult_t initV2(void** context, int* eActivationMask) {
  return boundary::init({.context = context, .eActivationMask = eActivationMask, .abiVersion = 2});
}

ncclResult_t startEventV2(void* context, void** eHandle, ncclProfilerEventDescr_v2_t* eDescr) {
  if (eDescr == nullptr) return boundary::startEvent(context, eHandle, nullptr);
  const EventDescriptor descr = convertDescriptor(*eDescr);
  return boundary::startEvent(context, eHandle, &descr);
}

ncclResult_t stopEventV2(void* eHandle) {
  return boundary::stopEvent(eHandle);
}

ncclResult_t recordEventStateV2(void* eHandle, ncclProfilerEventState_v2_t eState,
                                ncclProfilerEventStateArgs_v2_t* eStateArgs) {
  const auto state = static_cast<EventState>(eState);
  return boundary::recordEventState(eHandle, state, convertStateArgs(state, eStateArgs));
}

ncclResult_t finalizeV2(void* context) {
  return boundary::finalize(context);
}

}  // namespace

static_assert(sizeof(ncclProfiler_v2_t) == 6 * sizeof(void*), "ncclProfiler_v2: name + 5 function pointers");

extern "C" __attribute__((visibility("default"))) const ncclProfiler_v2_t ncclProfiler_v2 = {
    "railtune", initV2, startEventV2, stopEventV2, recordEventStateV2, finalizeV2};
