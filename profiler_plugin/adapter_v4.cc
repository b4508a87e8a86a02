// Profiler ABI v4: init argument order differs from v5; 8-bit event type; no API events.
#include "nccl/profiler_v4.h"
#include "profiler_plugin/boundary.h"
#include "profiler_plugin/descr_convert.h"

namespace {
using namespace railtune::profiler;

// v4 takes commHash AFTER commName (v5 moved the id to the front).
ncclResult_t initV4(void** context, int* eActivationMask, const char* commName, uint64_t commHash, int nNodes,
                    int nRanks, int rank, ncclDebugLogger_t logfn) {
  return boundary::init({.context = context,
                         .commId = commHash,
                         .eActivationMask = eActivationMask,
                         .commName = commName,
                         .nNodes = nNodes,
                         .nRanks = nRanks,
                         .rank = rank,
                         .logger = logfn,
                         .abiVersion = 4});
}

ncclResult_t startEventV4(void* context, void** eHandle, ncclProfilerEventDescr_v4_t* eDescr) {
  if (eDescr == nullptr) return boundary::startEvent(context, eHandle, nullptr);
  const EventDescriptor descr = convertDescriptor(*eDescr);
  return boundary::startEvent(context, eHandle, &descr);
}

ncclResult_t stopEventV4(void* eHandle) {
  return boundary::stopEvent(eHandle);
}

ncclResult_t recordEventStateV4(void* eHandle, ncclProfilerEventState_v4_t eState,
                                ncclProfilerEventStateArgs_v4_t* eStateArgs) {
  const auto state = static_cast<EventState>(eState);
  return boundary::recordEventState(eHandle, state, convertStateArgs(state, eStateArgs));
}

ncclResult_t finalizeV4(void* context) {
  return boundary::finalize(context);
}

}  // namespace

static_assert(sizeof(ncclProfiler_v4_t) == 6 * sizeof(void*), "ncclProfiler_v4: name + 5 function pointers");

extern "C" __attribute__((visibility("default"))) const ncclProfiler_v4_t ncclProfiler_v4 = {
    "railtune", initV4, startEventV4, stopEventV4, recordEventStateV4, finalizeV4};
