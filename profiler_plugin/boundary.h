// The one place every exported profiler call enters (architecture rule 1). The failure table:
//   init                        *eActivationMask = 0 and success (NCCL 2.28 keeps a plugin whose
//                               init failed, so an error would buy nothing)
//   startEvent                  success; *eHandle = NULL when the event cannot be recorded, and
//                               after an internal failure the communicator's context disables itself
//   stopEvent/recordEventState  success; a NULL handle is fine (NCCL's net callback passes one)
// Adapters convert NCCL's descriptors to EventDescriptor before calling in.
#pragma once

#include <cstdint>
#include <optional>

#include "nccl/common.h"
#include "profiler_plugin/engine.h"

namespace railtune::profiler::boundary {

struct InitCall {
  void** context = nullptr;
  std::optional<uint64_t> commId{};  // v4+
  int* eActivationMask = nullptr;
  const char* commName = nullptr;  // v4+
  std::optional<int> nNodes{}, nRanks{}, rank{};
  ncclDebugLogger_t logger = nullptr;  // v4+
  int abiVersion = 0;
};

ncclResult_t init(const InitCall& call) noexcept;
ncclResult_t startEvent(void* context, void** eHandle, const EventDescriptor* descr) noexcept;
ncclResult_t stopEvent(void* eHandle) noexcept;
ncclResult_t recordEventState(void* eHandle, EventState state, const StateArgs& args) noexcept;
ncclResult_t finalize(void* context) noexcept;

}  // namespace railtune::profiler::boundary
