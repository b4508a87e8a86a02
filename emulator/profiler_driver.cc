// ProfilerDriver: NCCL's profiler.cc call sites, per-version init argument orders, and the adapters'
// narrowing of descriptors and state arguments (profiler_narrow.cc).
#include "emulator/profiler_driver.h"

#include <cerrno>
#include <cstring>
#include <mutex>
#include <type_traits>

#include "emulator/logger.h"
#include "emulator/plugin_open.h"
#include "emulator/poison.h"
#include "emulator/profiler_narrow.h"

namespace railtune::emu {
namespace {

// Each event type with the events NCCL nests below it (profiler.cc's per-event masks).
uint64_t withDescendants(uint64_t type) {
  constexpr uint64_t net = ncclProfileNetPlugin;
  constexpr uint64_t step = ncclProfileProxyStep | net;
  constexpr uint64_t op = ncclProfileProxyOp | step;
  constexpr uint64_t task = op | ncclProfileKernelCh | ncclProfileKernelPhase;
  constexpr uint64_t group = ncclProfileGroup | ncclProfileColl | ncclProfileP2p | task;
  constexpr uint64_t ce = ncclProfileCeColl | ncclProfileCeSync | ncclProfileCeBatch;
  switch (type) {
    case ncclProfileGroupApi:
      return ncclProfileGroupApi | ncclProfileCollApi | ncclProfileP2pApi | ncclProfileKernelLaunch | group | ce;
    case ncclProfileCollApi:
      return ncclProfileCollApi | ncclProfileColl | task | ce;
    case ncclProfileP2pApi:
      return ncclProfileP2pApi | ncclProfileP2p | task;
    case ncclProfileGroup:
      return group;
    case ncclProfileColl:
      return ncclProfileColl | task;
    case ncclProfileP2p:
      return ncclProfileP2p | task;
    case ncclProfileProxyOp:
      return op;
    case ncclProfileProxyStep:
      return step;
    case ncclProfileCeColl:
      return ce;
    case ncclProfileKernelCh:
      return ncclProfileKernelCh | ncclProfileKernelPhase;
    default:
      return type;
  }
}

}  // namespace

bool profilerEventWanted(uint64_t type, int mask) {
  return (withDescendants(type) & static_cast<uint64_t>(static_cast<unsigned>(mask))) != 0;
}

ProfilerDriver::ProfilerDriver(const Binding& binding, NcclBehaviour behaviour)
    : binding_(binding),
      behaviour_(behaviour),
      version_(binding.kind == PluginKind::Profiler ? binding.version : 0),
      loaded_(binding.table != nullptr) {}

ProfilerDriver::~ProfilerDriver() = default;

const char* ProfilerDriver::pluginName() const {
  return binding_.table ? *static_cast<const char* const*>(binding_.table) : "";
}

int* ProfilerDriver::maskSlot() {
  return binding_.library ? &binding_.library->state().profilerEventMask : nullptr;
}

int ProfilerDriver::activationMask() const {
  return binding_.library ? __atomic_load_n(&binding_.library->state().profilerEventMask, __ATOMIC_RELAXED) : 0;
}

bool ProfilerDriver::loaded() const {
  return loaded_;
}

ncclResult_t ProfilerDriver::init(uint64_t commId, const char* commName, int nNodes, int nRanks, int rank) {
  if (!loaded_) return ncclSuccess;
  ncclResult_t r = callInit(commId, commName, nNodes, nRanks, rank);
  if (r == ncclSuccess || (version_ == 6 && behaviour_ >= NcclBehaviour::V2_31)) applyMaskRules();
  if (r == ncclSuccess) return ncclSuccess;
  if (behaviour_ >= NcclBehaviour::V2_30) {
    loaded_ = false;  // 2.30 unloads the plugin; 2.28 keeps it and whatever mask it left
    if (binding_.library) binding_.library->state().profilerUnloaded = true;
  }
  log_.push_back(infoLine("Profiler init failed with error '" + std::to_string(static_cast<int>(r)) +
                          "': " + std::strerror(errno) + ". Continue without profiler."));
  return ncclSuccess;  // NCCL never fails the communicator for its profiler
}

// NCCL 2.31 only: the adapters of v1..v6 clear KernelPhase (v6's even after a failed init, having no
// NCCLCHECK: profiler_v6.cc ncclProfiler_init@v2.31.2), then KernelPhase implies KernelCh.
void ProfilerDriver::applyMaskRules() {
  int* mask = maskSlot();
  if (mask == nullptr || behaviour_ < NcclBehaviour::V2_31) return;
  std::lock_guard<std::mutex> lock(binding_.library->state().mutex);
  if (version_ < 7) *mask &= ~ncclProfileKernelPhase;
  if ((*mask & ncclProfileKernelPhase) != 0) *mask |= ncclProfileKernelCh;
}

// v1..v3: (ctx, mask); v4: (ctx, mask, commName, commHash, nNodes, nRanks, rank, log);
// v5/v6: (ctx, commId, mask, commName, nNodes, nRanks, rank, log).
ncclResult_t ProfilerDriver::callInit(uint64_t commId, const char* commName, int nNodes, int nRanks, int rank) {
  int* mask = maskSlot();
  const void* t = binding_.table;
  switch (version_) {
    case 1:
      return static_cast<const ncclProfiler_v1_t*>(t)->init(&context_, mask);
    case 2:
      return static_cast<const ncclProfiler_v2_t*>(t)->init(&context_, mask);
    case 3:
      return static_cast<const ncclProfiler_v3_t*>(t)->init(&context_, mask);
    case 4:
      return static_cast<const ncclProfiler_v4_t*>(t)->init(&context_, mask, commName, commId, nNodes, nRanks, rank,
                                                            pluginLogger());
    case 5:
      return static_cast<const ncclProfiler_v5_t*>(t)->init(&context_, commId, mask, commName, nNodes, nRanks, rank,
                                                            pluginLogger());
    case 6:
      return static_cast<const ncclProfiler_v6_t*>(t)->init(&context_, commId, mask, commName, nNodes, nRanks, rank,
                                                            pluginLogger());
    case 7:
      return static_cast<const ncclProfiler_v7_t*>(t)->init(&context_, commId, mask, commName, nNodes, nRanks, rank,
                                                            pluginLogger());
    default:
      return ncclInternalError;
  }
}

template <typename Table, typename Descr>
ncclResult_t ProfilerDriver::startNarrowed(const ncclProfilerEventDescr_v7_t& descr, void** eHandle) {
  Poisoned<Descr> own;
  if constexpr (std::is_same_v<Descr, ncclProfilerEventDescr_v7_t>) {
    *own = descr;
  } else {
    ncclProfilerEventDescr_v6_t v6{};
    if (!narrowDescriptor(descr, &v6)) return ncclSuccess;  // KernelPhase: v7's
    if constexpr (std::is_same_v<Descr, ncclProfilerEventDescr_v6_t>) {
      *own = v6;
    } else {
      if (!narrowDescriptor(v6, own.get())) return ncclSuccess;  // this version does not know the event
    }
  }
  ncclResult_t r = static_cast<const Table*>(binding_.table)->startEvent(context_, eHandle, own.get());
  if (!checkPoison(own, "profiler.startEvent", "ncclProfilerEventDescr_t", violations_)) return ncclInternalError;
  return r;
}

ncclResult_t ProfilerDriver::startEvent(ncclProfilerEventDescr_v6_t* descr, void** eHandle) {
  if (descr == nullptr) return startEvent(static_cast<ncclProfilerEventDescr_v7_t*>(nullptr), eHandle);
  ncclProfilerEventDescr_v7_t wide = widenDescriptor(*descr);
  return startEvent(&wide, eHandle);
}

ncclResult_t ProfilerDriver::recordEventState(void* eHandle, ncclProfilerEventState_t state,
                                              ncclProfilerEventStateArgs_v6_t* args) {
  ncclProfilerEventStateArgs_v7_t wide{};
  static_assert(sizeof(wide) == sizeof(*args), "the same union");
  if (args != nullptr) std::memcpy(&wide, args, sizeof(wide));
  return recordEventState(eHandle, state, args != nullptr ? &wide : nullptr);
}

ncclResult_t ProfilerDriver::startEvent(ncclProfilerEventDescr_v7_t* descr, void** eHandle) {
  *eHandle = nullptr;  // NCCL's callers start from NULL; a dropped event stays NULL
  if (!loaded_ || descr == nullptr || !profilerEventWanted(descr->type, activationMask())) return ncclSuccess;
  switch (version_) {
    case 1:
      return startNarrowed<ncclProfiler_v1_t, ncclProfilerEventDescr_v1_t>(*descr, eHandle);
    case 2:
      return startNarrowed<ncclProfiler_v2_t, ncclProfilerEventDescr_v2_t>(*descr, eHandle);
    case 3:
      return startNarrowed<ncclProfiler_v3_t, ncclProfilerEventDescr_v3_t>(*descr, eHandle);
    case 4:
      return startNarrowed<ncclProfiler_v4_t, ncclProfilerEventDescr_v4_t>(*descr, eHandle);
    case 5:
      return startNarrowed<ncclProfiler_v5_t, ncclProfilerEventDescr_v5_t>(*descr, eHandle);
    case 6:
      return startNarrowed<ncclProfiler_v6_t, ncclProfilerEventDescr_v6_t>(*descr, eHandle);
    case 7:
      return startNarrowed<ncclProfiler_v7_t, ncclProfilerEventDescr_v7_t>(*descr, eHandle);
    default:
      return ncclInternalError;
  }
}

namespace {

// stopEvent and finalize have the same signature in every version; call them through the right type.
template <typename Fn>
ncclResult_t withProfilerTable(int version, const void* table, Fn&& fn) {
  switch (version) {
    case 1:
      return fn(static_cast<const ncclProfiler_v1_t*>(table));
    case 2:
      return fn(static_cast<const ncclProfiler_v2_t*>(table));
    case 3:
      return fn(static_cast<const ncclProfiler_v3_t*>(table));
    case 4:
      return fn(static_cast<const ncclProfiler_v4_t*>(table));
    case 5:
      return fn(static_cast<const ncclProfiler_v5_t*>(table));
    case 6:
      return fn(static_cast<const ncclProfiler_v6_t*>(table));
    case 7:
      return fn(static_cast<const ncclProfiler_v7_t*>(table));
    default:
      return ncclInternalError;
  }
}

}  // namespace

ncclResult_t ProfilerDriver::stopEvent(void* eHandle) {
  if (!loaded_) return ncclSuccess;
  return withProfilerTable(version_, binding_.table, [&](const auto* t) { return t->stopEvent(eHandle); });
}

template <typename Table, typename Args>
ncclResult_t ProfilerDriver::recordNarrowed(void* eHandle, ncclProfilerEventState_t state,
                                            const ncclProfilerEventStateArgs_v7_t* args) {
  Poisoned<Args> own;
  if constexpr (std::is_same_v<Table, ncclProfiler_v7_t>) {
    if (args) *own = *args;
  } else {
    ncclProfilerEventStateArgs_v6_t v6{};
    if (!narrowStateArgs(state, args, &v6)) return ncclSuccess;  // KernelPhaseStop: v7's
    if constexpr (std::is_same_v<Table, ncclProfiler_v6_t>) {
      if (args) *own = v6;
    } else {
      if (!narrowStateArgs(state, args ? &v6 : nullptr, own.get())) return ncclSuccess;  // unknown to this version
    }
  }
  ncclResult_t r = static_cast<const Table*>(binding_.table)->recordEventState(eHandle, state, own.get());
  if (!checkPoison(own, "profiler.recordEventState", "ncclProfilerEventStateArgs_t", violations_)) {
    return ncclInternalError;
  }
  return r;
}

ncclResult_t ProfilerDriver::recordEventState(void* eHandle, ncclProfilerEventState_t state,
                                              ncclProfilerEventStateArgs_v7_t* args) {
  if (!loaded_) return ncclSuccess;
  switch (version_) {
    case 1:
      return recordNarrowed<ncclProfiler_v1_t, ncclProfilerEventStateArgs_v1_t>(eHandle, state, args);
    case 2:
      return recordNarrowed<ncclProfiler_v2_t, ncclProfilerEventStateArgs_v2_t>(eHandle, state, args);
    case 3:
      return recordNarrowed<ncclProfiler_v3_t, ncclProfilerEventStateArgs_v3_t>(eHandle, state, args);
    case 4:
      return recordNarrowed<ncclProfiler_v4_t, ncclProfilerEventStateArgs_v4_t>(eHandle, state, args);
    case 5:
      return recordNarrowed<ncclProfiler_v5_t, ncclProfilerEventStateArgs_v5_t>(eHandle, state, args);
    case 6:
      return recordNarrowed<ncclProfiler_v6_t, ncclProfilerEventStateArgs_v6_t>(eHandle, state, args);
    case 7:
      return recordNarrowed<ncclProfiler_v7_t, ncclProfilerEventStateArgs_v7_t>(eHandle, state, args);
    default:
      return ncclInternalError;
  }
}

ncclResult_t ProfilerDriver::finalize() {
  // NCCL calls finalize only with a context (profiler.cc: "&& comm->profilerContext").
  if (!loaded_ || context_ == nullptr) return ncclSuccess;
  void* ctx = context_;
  context_ = nullptr;
  return withProfilerTable(version_, binding_.table, [&](const auto* t) { return t->finalize(ctx); });
}

}  // namespace railtune::emu
