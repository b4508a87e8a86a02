// See boundary.h. Anything that goes wrong inside throws; here it is caught, logged once and
// turned into what NCCL needs for that entry point.
#include "profiler_plugin/boundary.h"

#include <atomic>
#include <exception>
#include <memory>
#include <new>
#include <string>

#include "common/fault.h"
#include "common/log.h"
#include "common/params.h"

namespace railtune::profiler::boundary {
namespace {

constexpr unsigned long kFlags = NCCL_PROFILE;

struct ProfilerContext {
  explicit ProfilerContext(const Log& l) : log(l) {}
  Log log;
  CommInfo comm;
  std::unique_ptr<Engine> engine;  // null in the context made after a failed init
  std::atomic<bool> disabled{false};
  int abiVersion = 0;
};

// stopEvent and recordEventState get only a handle, so their one WARN goes through the logger of
// the latest init, and "once" is per process (re-armed at each init, when faults are re-read).
struct ProcessState {
  Log log{"profiler"};
  OnceFlag startMisuseWarned;
  OnceFlag stopWarned;
  OnceFlag recordWarned;
};
ProcessState& processState() {
  static ProcessState state;
  return state;
}

void readConfiguration(const Log& log) {
  const std::string faultError = armFaultsFromEnvironment();
  if (!faultError.empty()) RT_WARN(log, NCCL_INIT | NCCL_ENV, "%s", faultError.c_str());
  ProcessState& state = processState();
  state.log.setLogger(log.logger());
  state.startMisuseWarned.reset();
  state.stopWarned.reset();
  state.recordWarned.reset();
}

std::unique_ptr<ProfilerContext> buildContext(const InitCall& call, const Log& log) {
  auto ctx = std::make_unique<ProfilerContext>(log);
  ctx->abiVersion = call.abiVersion;
  ctx->comm = CommInfo{call.commId, call.commName ? call.commName : "", call.nNodes, call.nRanks, call.rank};
  injectFaultAt(FaultSite::ProfilerInit);
  ctx->engine = makeEngine(ctx->comm, call.abiVersion, log);
  return ctx;
}

ncclResult_t initFailed(const InitCall& call, const Log& log, const char* reason) {
  RT_WARN(log, NCCL_INIT | kFlags, "init failed: %s; profiling off for this communicator (event mask 0)", reason);
  if (call.eActivationMask != nullptr) *call.eActivationMask = 0;
  auto* ctx = new (std::nothrow) ProfilerContext(log);
  if (ctx != nullptr) {
    ctx->abiVersion = call.abiVersion;
    ctx->disabled.store(true, std::memory_order_relaxed);
  }
  *call.context = ctx;
  return ncclSuccess;
}

void disable(ProfilerContext& ctx, const char* entry, const char* reason) {
  if (!ctx.disabled.exchange(true, std::memory_order_acq_rel)) {
    RT_WARN(ctx.log, kFlags, "%s failed: %s; profiling off for this communicator", entry, reason);
  }
}

void warnOnce(OnceFlag& flag, const char* entry, const char* reason) {
  if (flag.first()) RT_WARN(processState().log, kFlags, "%s failed: %s; event dropped", entry, reason);
}

}  // namespace

ncclResult_t init(const InitCall& call) noexcept {
  const Log log("profiler", call.logger);
  if (call.context == nullptr) {
    RT_WARN(log, NCCL_INIT | kFlags, "init called with a NULL context pointer (ABI misuse)");
    if (call.eActivationMask != nullptr) *call.eActivationMask = 0;
    return ncclSuccess;
  }
  *call.context = nullptr;
  try {
    readConfiguration(log);
    if (call.eActivationMask == nullptr) return initFailed(call, log, "NULL eActivationMask (ABI misuse)");
    std::unique_ptr<ProfilerContext> ctx = buildContext(call, log);
    const EventMask mask = ctx->engine->activationMask();
    RT_INFO(log, NCCL_INIT | kFlags,
            "ABI v%d, comm 0x%llx '%s' rank %d of %d on %d nodes, engine %s, event mask 0x%llx", call.abiVersion,
            static_cast<unsigned long long>(call.commId.value_or(0)), ctx->comm.commName.c_str(),
            call.rank.value_or(-1), call.nRanks.value_or(-1), call.nNodes.value_or(-1), ctx->engine->name(),
            static_cast<unsigned long long>(mask));
    *call.eActivationMask = static_cast<int>(mask);
    *call.context = ctx.release();
    return ncclSuccess;
  } catch (const std::exception& e) {
    return initFailed(call, log, e.what());
  } catch (...) {
    return initFailed(call, log, "unknown exception");
  }
}

ncclResult_t startEvent(void* context, void** eHandle, const EventDescriptor* descr) noexcept {
  if (eHandle == nullptr) {
    warnOnce(processState().startMisuseWarned, "startEvent", "NULL eHandle (ABI misuse)");
    return ncclSuccess;
  }
  *eHandle = nullptr;
  auto* ctx = static_cast<ProfilerContext*>(context);
  if (ctx == nullptr || ctx->disabled.load(std::memory_order_relaxed)) return ncclSuccess;
  try {
    if (descr == nullptr) {
      disable(*ctx, "startEvent", "NULL descriptor (ABI misuse)");
      return ncclSuccess;
    }
    injectFaultAt(FaultSite::ProfilerStartEvent);
    Event* event = ctx->engine->startEvent(*descr);
    if (event != nullptr) event->engine = ctx->engine.get();
    *eHandle = event;
  } catch (const std::exception& e) {
    disable(*ctx, "startEvent", e.what());
  } catch (...) {
    disable(*ctx, "startEvent", "unknown exception");
  }
  return ncclSuccess;
}

ncclResult_t stopEvent(void* eHandle) noexcept {
  try {
    injectFaultAt(FaultSite::ProfilerStopEvent);
    if (eHandle == nullptr) return ncclSuccess;  // NCCL's net callback stops handles it never checked
    auto* event = static_cast<Event*>(eHandle);
    event->engine->stopEvent(event);
  } catch (const std::exception& e) {
    warnOnce(processState().stopWarned, "stopEvent", e.what());
  } catch (...) {
    warnOnce(processState().stopWarned, "stopEvent", "unknown exception");
  }
  return ncclSuccess;
}

ncclResult_t recordEventState(void* eHandle, EventState state, const StateArgs& args) noexcept {
  try {
    injectFaultAt(FaultSite::ProfilerRecordEventState);
    if (eHandle == nullptr) return ncclSuccess;
    auto* event = static_cast<Event*>(eHandle);
    event->engine->recordEventState(event, state, args);
  } catch (const std::exception& e) {
    warnOnce(processState().recordWarned, "recordEventState", e.what());
  } catch (...) {
    warnOnce(processState().recordWarned, "recordEventState", "unknown exception");
  }
  return ncclSuccess;
}

ncclResult_t finalize(void* context) noexcept {
  std::unique_ptr<ProfilerContext> ctx(static_cast<ProfilerContext*>(context));
  if (!ctx) return ncclSuccess;
  try {
    injectFaultAt(FaultSite::ProfilerFinalize);
    ctx->engine.reset();
  } catch (const std::exception& e) {
    RT_WARN(ctx->log, kFlags, "finalize failed: %s; context released anyway", e.what());
  } catch (...) {
    RT_WARN(ctx->log, kFlags, "finalize failed: unknown exception; context released anyway");
  }
  return ncclSuccess;
}

}  // namespace railtune::profiler::boundary
