// Profiler ABI v6 (NCCL 2.30), the native interface: v5 plus copy-engine events.
#include "nccl/profiler_v6.h"
#include "profiler_plugin/boundary.h"
#include "profiler_plugin/descr_convert.h"

namespace {
using namespace railtune::profiler;

ncclResult_t initV6(void** context, uint64_t commId, int* eActivationMask, const char* commName, int nNodes, int nRanks,
                    int rank, ncclDebugLogger_t logfn) {
  return boundary::init({.context = context,
                         .commId = commId,
                         .eActivationMask = eActivationMask,
                         .commName = commName,
                         .nNodes = nNodes,
                         .nRanks = nRanks,
                         .rank = rank,
                         .logger = logfn,
                         .abiVersion = 6});
}

ncclResult_t startEventV6(void* context, void** eHandle, ncclProfilerEventDescr_v6_t* eDescr) {
  if (eDescr == nullptr) return boundary::startEvent(context, eHandle, nullptr);
  const EventDescriptor descr = convertDescriptor(*eDescr);
  return boundary::startEvent(context, eHandle, &descr);
}

ncclResult_t stopEventV6(void* eHandle) {
  return boundary::stopEvent(eHandle);
}

ncclResult_t recordEventStateV6(void* eHandle, ncclProfilerEventState_v6_t eState,
                                ncclProfilerEventStateArgs_v6_t* eStateArgs) {
  const auto state = static_cast<EventState>(eState);
  return boundary::recordEventState(eHandle, state, convertStateArgs(state, eStateArgs));
}

ncclResult_t finalizeV6(void* context) {
  return boundary::finalize(context);
}

}  // namespace

static_assert(sizeof(ncclProfiler_v6_t) == 6 * sizeof(void*), "ncclProfiler_v6: name + 5 function pointers");

extern "C" __attribute__((visibility("default"))) const ncclProfiler_v6_t ncclProfiler_v6 = {
    "railtune", initV6, startEventV6, stopEventV6, recordEventStateV6, finalizeV6};
