// Drives a bound profiler of any version (v1..v7) as NCCL does: per-communicator init with the one
// process-wide activation mask, startEvent/stopEvent/recordEventState with descriptors built as
// the newest version (v7) and narrowed for older plugins the way NCCL's profiler_vN.cc adapters do.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "emulator/loader.h"
#include "nccl/profiler_v6.h"
#include "nccl/profiler_v7.h"

namespace railtune::emu {

class ProfilerDriver {
 public:
  ProfilerDriver(const Binding& binding, NcclBehaviour behaviour);
  ~ProfilerDriver();
  int version() const { return version_; }
  NcclBehaviour behaviour() const { return behaviour_; }
  const char* pluginName() const;

  // NCCL: init(&ctx, commHash, &ncclProfilerEventMask, commName, nNodes, nRanks, rank, ncclDebugLog)
  // (argument order per version). On failure 2.28 keeps the plugin with mask 0; 2.30 unloads it.
  // 2.31: an adapter of v1..v6 clears KernelPhase from the mask (profiler_v5.cc, profiler_v6.cc
  // ncclProfiler_init@v2.31.2), then KernelPhase implies KernelCh (profiler.cc ncclProfilerEnforceMaskDeps).
  ncclResult_t init(uint64_t commId, const char* commName, int nNodes, int nRanks, int rank);
  int activationMask() const;  // the process-wide mask after init
  bool loaded() const;         // false once 2.30 unloaded it after a failed init

  // Only events whose bit is in the mask (or an ancestor of one that is) are started, as in NCCL.
  ncclResult_t startEvent(ncclProfilerEventDescr_v7_t* descr, void** eHandle);
  ncclResult_t stopEvent(void* eHandle);
  ncclResult_t recordEventState(void* eHandle, ncclProfilerEventState_t state, ncclProfilerEventStateArgs_v7_t* args);
  // Callers that build v6 events: widened to v7 (v7 members zero), then as above.
  ncclResult_t startEvent(ncclProfilerEventDescr_v6_t* descr, void** eHandle);
  ncclResult_t recordEventState(void* eHandle, ncclProfilerEventState_t state, ncclProfilerEventStateArgs_v6_t* args);
  ncclResult_t finalize();

  const std::vector<std::string>& violations() const { return violations_; }
  const std::vector<std::string>& log() const { return log_; }  // INFO lines NCCL would print
  void* context() const { return context_; }

 private:
  int* maskSlot();
  ncclResult_t callInit(uint64_t commId, const char* commName, int nNodes, int nRanks, int rank);
  void applyMaskRules();
  template <typename Table, typename Descr>
  ncclResult_t startNarrowed(const ncclProfilerEventDescr_v7_t& descr, void** eHandle);
  template <typename Table, typename Args>
  ncclResult_t recordNarrowed(void* eHandle, ncclProfilerEventState_t state,
                              const ncclProfilerEventStateArgs_v7_t* args);

  Binding binding_;
  NcclBehaviour behaviour_;
  int version_ = 0;
  void* context_ = nullptr;
  bool loaded_ = true;
  std::vector<std::string> violations_;
  std::vector<std::string> log_;
};

// NCCL starts an event when its own bit or the bit of any event below it in the hierarchy is in the mask
// (asking for ProxyOp also produces its Group/Coll ancestors).
bool profilerEventWanted(uint64_t type, int mask);

}  // namespace railtune::emu
