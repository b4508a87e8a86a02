// Profiler ABI v1: as v2, but func, datatype, algo and proto are numbers; this adapter names them
// (NCCL's own spellings) so that the engine sees strings as from every later version.
#include "nccl/profiler_v1.h"
#include "profiler_plugin/boundary.h"
#include "profiler_plugin/descr_convert.h"

namespace {
using namespace railtune::profiler;

template <size_t N>
const char* nameAt(const char* const (&names)[N], unsigned index) {
  return index < N ? names[index] : "unknown";
}

constexpr const char* kFuncNames[] = {"Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce", "SendRecv",
                                      "Send",      "Recv",   "AlltoAll",  "Scatter",       "Gather"};
constexpr const char* kDatatypeNames[] = {"ncclInt8",    "ncclUint8",    "ncclInt32",      "ncclUint32",
                                          "ncclInt64",   "ncclUint64",   "ncclFloat16",    "ncclFloat32",
                                          "ncclFloat64", "ncclBfloat16", "ncclFloat8e4m3", "ncclFloat8e5m2"};
constexpr const char* kAlgoNames[] = {"Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"};
constexpr const char* kProtoNames[] = {"LL", "LL128", "Simple"};

EventDescriptor convertV1(const ncclProfilerEventDescr_v1_t& in) {
  EventDescriptor out = convertDescriptor(in);  // type, parent, rank, proxy members
  if (out.type == EventType::Coll) {
    out.coll.seqNumber = in.coll.seqNumber;
    out.coll.func = nameAt(kFuncNames, in.coll.func);
    out.coll.count = in.coll.count;
    out.coll.root = in.coll.root;
    out.coll.datatype = nameAt(kDatatypeNames, in.coll.datatype);
    out.coll.nChannels = in.coll.nMaxChannels;
    out.coll.nWarps = in.coll.nWarps;
    out.coll.algo = nameAt(kAlgoNames, in.coll.algo);
    out.coll.proto = nameAt(kProtoNames, in.coll.proto);
  } else if (out.type == EventType::P2p) {
    out.p2p.func = nameAt(kFuncNames, in.p2p.func);
    out.p2p.count = in.p2p.count;
    out.p2p.datatype = nameAt(kDatatypeNames, in.p2p.datatype);
    out.p2p.peer = in.p2p.peer;
  }
  return out;
}

// v1's init knows nothing about the communicator and gets no logger.
ncclResult_t initV1(void** context, int* eActivationMask) {
  return boundary::init({.context = context, .eActivationMask = eActivationMask, .abiVersion = 1});
}

ncclResult_t startEventV1(void* context, void** eHandle, ncclProfilerEventDescr_v1_t* eDescr) {
  if (eDescr == nullptr) return boundary::startEvent(context, eHandle, nullptr);
  const EventDescriptor descr = convertV1(*eDescr);
  return boundary::startEvent(context, eHandle, &descr);
}

ncclResult_t stopEventV1(void* eHandle) {
  return boundary::stopEvent(eHandle);
}

ncclResult_t recordEventStateV1(void* eHandle, ncclProfilerEventState_v1_t eState,
                                ncclProfilerEventStateArgs_v1_t* eStateArgs) {
  const auto state = static_cast<EventState>(eState);
  return boundary::recordEventState(eHandle, state, convertStateArgs(state, eStateArgs));
}

ncclResult_t finalizeV1(void* context) {
  return boundary::finalize(context);
}

}  // namespace

static_assert(sizeof(ncclProfiler_v1_t) == 6 * sizeof(void*), "ncclProfiler_v1: name + 5 function pointers");

extern "C" __attribute__((visibility("default"))) const ncclProfiler_v1_t ncclProfiler_v1 = {
    "railtune", initV1, startEventV1, stopEventV1, recordEventStateV1, finalizeV1};
