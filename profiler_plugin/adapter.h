// One adapter for every profiler ABI: the five entry points NCCL calls, instantiated per version
// (adapters.cc) from that version's traits. What a version really changes is in its traits, nothing else:
//   Table, Descr, StateArgs  NCCL's types of that version
//   init                     which of NCCL's three init signatures it has (below)
//   convert                  its descriptor to the engine's EventDescriptor (descr_convert.h: members a
//                            version lacks stay at their defaults; v1's numeric names are named)
// The event state is one enum in every version (nccl/profiler_common.h), and the state arguments
// convert by the state code (convertStateArgs), so recordEventState, stopEvent and finalize are the
// same code for all.
#pragma once

#include <cstdint>

#include "nccl/profiler_common.h"
#include "profiler_plugin/boundary.h"
#include "profiler_plugin/descr_convert.h"

namespace railtune::profiler::adapter {

// v1..v3: init knows nothing about the communicator and gets no logger.
template <int Version>
ncclResult_t initWithoutComm(void** context, int* eActivationMask) {
  return boundary::init({.context = context, .eActivationMask = eActivationMask, .abiVersion = Version});
}

// v5 on: the communicator's id comes first.
template <int Version>
ncclResult_t initCommIdFirst(void** context, uint64_t commId, int* eActivationMask, const char* commName, int nNodes,
                             int nRanks, int rank, ncclDebugLogger_t logfn) {
  return boundary::init({.context = context,
                         .commId = commId,
                         .eActivationMask = eActivationMask,
                         .commName = commName,
                         .nNodes = nNodes,
                         .nRanks = nRanks,
                         .rank = rank,
                         .logger = logfn,
                         .abiVersion = Version});
}

// v4: the same arguments, the communicator's hash AFTER its name.
template <int Version>
ncclResult_t initCommHashAfterName(void** context, int* eActivationMask, const char* commName, uint64_t commHash,
                                   int nNodes, int nRanks, int rank, ncclDebugLogger_t logfn) {
  return initCommIdFirst<Version>(context, commHash, eActivationMask, commName, nNodes, nRanks, rank, logfn);
}

template <typename Abi>
struct Adapter {
  using Table = typename Abi::Table;
  using Descr = typename Abi::Descr;
  using StateArgs = typename Abi::StateArgs;

  static ncclResult_t startEvent(void* context, void** eHandle, Descr* eDescr) {
    if (eDescr == nullptr) return boundary::startEvent(context, eHandle, nullptr);
    const EventDescriptor descr = Abi::convert(*eDescr);
    return boundary::startEvent(context, eHandle, &descr);
  }

  static ncclResult_t stopEvent(void* eHandle) { return boundary::stopEvent(eHandle); }

  static ncclResult_t recordEventState(void* eHandle, ncclProfilerEventState_t eState, StateArgs* eStateArgs) {
    const auto state = static_cast<EventState>(eState);
    return boundary::recordEventState(eHandle, state, convertStateArgs(state, eStateArgs));
  }

  static ncclResult_t finalize(void* context) { return boundary::finalize(context); }

  // The exported table: NCCL's order of members, the same in every version.
  static constexpr Table table() {
    static_assert(sizeof(Table) == 6 * sizeof(void*), "a profiler table is a name and 5 function pointers");
    return {"railtune", Abi::init, startEvent, stopEvent, recordEventState, finalize};
  }
};

}  // namespace railtune::profiler::adapter
