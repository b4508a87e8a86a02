// Profiler ABI v5 (native in NCCL 2.28): the same functions as v6; the descriptor lacks CE events.
#include "nccl/profiler_v5.h"
#include "profiler_plugin/boundary.h"
#include "profiler_plugin/descr_convert.h"

namespace {
using namespace railtune::profiler;

ncclResult_t initV5(void** context, uint64_t commId, int* eActivationMask, const char* commName, int nNodes, int nRanks,
                    int rank, ncclDebugLogger_t logfn) {
  return boundary::init({.context = context,
                         .commId = commId,
                         .eActivationMask = eActivationMask,
                         .commName = commName,
                         .nNodes = nNodes,
                         .nRanks = nRanks,
                         .rank = rank,
                         .logger = logfn,
                         .abiVersion = 5});
}

ncclResult_t startEventV5(void* context, void** eHandle, ncclProfilerEventDescr_v5_t* eDescr) {
  if (eDescr == nullptr) return boundary::startEvent(context, eHandle, nullptr);
  const EventDescriptor descr = convertDescriptor(*eDescr);
  return boundary::startEvent(context, eHandle, &descr);
}

ncclResult_t stopEventV5(void* eHandle) {
  return boundary::stopEvent(eHandle);
}

ncclResult_t recordEventStateV5(void* eHandle, ncclProfilerEventState_v5_t eState,
                                ncclProfilerEventStateArgs_v5_t* eStateArgs) {
  const auto state = static_cast<EventState>(eState);
  return boundary::recordEventState(eHandle, state, convertStateArgs(state, eStateArgs));
}

ncclResult_t finalizeV5(void* context) {
  return boundary::finalize(context);
}

}  // namespace

static_assert(sizeof(ncclProfiler_v5_t) == 6 * sizeof(void*), "ncclProfiler_v5: name + 5 function pointers");

extern "C" __attribute__((visibility("default"))) const ncclProfiler_v5_t ncclProfiler_v5 = {
    "railtune", initV5, startEventV5, stopEventV5, recordEventStateV5, finalizeV5};
