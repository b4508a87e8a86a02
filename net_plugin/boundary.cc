// See boundary.h: init (stepping aside), devices, properties, finalize and net attributes.
#include "net_plugin/boundary.h"

#include <cstring>
#include <string>

#include "common/params.h"
#include "net_plugin/boundary_internal.h"

namespace railtune::net::boundary {
namespace detail {

ProcessState& processState() {
  static ProcessState state;
  return state;
}

Engine& requireEngine() {
  Engine* engine = processState().activeEngine.load(std::memory_order_acquire);
  if (engine == nullptr) {
    throw NetError(ErrorKind::InvalidUsage, "unknown", -1, "called without a successful init (ABI misuse)");
  }
  return *engine;
}

void requireArgument(bool ok, const char* reason) {
  if (!ok) throw NetError(ErrorKind::InvalidArgument, "unknown", -1, reason);
}

ncclResult_t reportFailure(const char* entry, ErrorKind kind, const char* peer, int device,
                           const char* reason) noexcept {
  const std::string deviceText = device >= 0 ? std::to_string(device) : "unknown";
  RT_WARN(processState().log, kFlags, "%s failed (peer %s, device %s): %s", entry, peer, deviceText.c_str(), reason);
  switch (kind) {
    case ErrorKind::System:
      return ncclSystemError;
    case ErrorKind::Remote:
      return ncclRemoteError;
    case ErrorKind::InvalidArgument:
      return ncclInvalidArgument;
    case ErrorKind::InvalidUsage:
      return ncclInvalidUsage;
    case ErrorKind::Internal:
      return ncclInternalError;
  }
  return ncclInternalError;
}

}  // namespace detail

namespace {
using namespace detail;

void readConfiguration(const Log& log) {
  const std::string faultError = armFaultsFromEnvironment();
  if (!faultError.empty()) RT_WARN(log, NCCL_INIT | NCCL_ENV, "%s", faultError.c_str());
}

// The process's engine, made by the first successful init and shared by every context.
std::shared_ptr<Engine> acquireEngine(const NetContext& ctx, ncclProfilerCallback_t profiler, const Log& log) {
  ProcessState& state = processState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (std::shared_ptr<Engine> existing = state.engine.lock()) return existing;
  std::shared_ptr<Engine> engine = makeEngine(EngineOptions{ctx.commId, ctx.config, profiler}, log);
  state.engine = engine;
  state.activeEngine.store(engine.get(), std::memory_order_release);
  return engine;
}

void releaseEngine(NetContext& ctx) {
  ProcessState& state = processState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (ctx.engine && ctx.engine.use_count() == 1) state.activeEngine.store(nullptr, std::memory_order_release);
  ctx.engine.reset();
}

void keepLegacyContext(std::unique_ptr<NetContext> ctx) {
  ProcessState& state = processState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.legacy) return;  // v6..v10 NCCL initialises once per process; a second init changes nothing
  state.legacy = std::move(ctx);
  state.legacyView.store(state.legacy.get(), std::memory_order_release);
}

ncclResult_t stepAside(const Log& log, const char* reason) {
  RT_WARN(log, NCCL_INIT | kFlags, "stepping aside: %s", reason);
  return ncclInternalError;  // any error: NCCL logs it at INFO and tries its next transport
}

void fillProperties(const DeviceProperties& in, ncclNetProperties_v12_t* out) {
  std::memset(out, 0, sizeof(*out));
  out->name = const_cast<char*>(in.name);  // NCCL's struct says char*; NCCL only reads it
  out->pciPath = const_cast<char*>(in.pciPath);
  out->guid = in.guid;
  out->ptrSupport = static_cast<int>(in.pointerSupport);
  out->regIsGlobal = in.regIsGlobal;
  out->forceFlush = in.forceFlush;
  out->speed = in.speedMbps;
  out->port = in.port;
  out->latency = in.latencyUs;
  out->maxComms = in.maxComms;
  out->maxRecvs = in.maxRecvs;
  out->netDeviceType = NCCL_NET_DEVICE_HOST;
  out->netDeviceVersion = NCCL_NET_DEVICE_INVALID_VERSION;
  out->vProps.ndevs = in.nPhysicalDevices;
  for (int i = 0; i < in.nPhysicalDevices && i < NCCL_NET_MAX_DEVS_PER_NIC_V12; ++i) {
    out->vProps.devs[i] = in.physicalDevices[i];
  }
  out->maxP2pBytes = in.maxP2pBytes;
  out->maxCollBytes = in.maxCollBytes;
  out->maxMultiRequestSize = in.maxMultiRequestSize;
  out->railId = static_cast<int16_t>(in.railId);
  out->planeId = static_cast<int16_t>(in.planeId);
}

}  // namespace

ncclResult_t init(const InitCall& call) noexcept {
  const Log log("net", call.logger);
  processState().log.setLogger(call.logger);
  if (call.context != nullptr) {
    *call.context = nullptr;
  } else if (call.abiVersion >= 11) {
    return stepAside(log, "init called with a NULL context pointer (ABI misuse)");
  }
  try {
    readConfiguration(log);
    injectFaultAt(FaultSite::NetInit);
    auto ctx = std::make_unique<NetContext>(log);
    ctx->commId = call.commId;
    if (call.config != nullptr) ctx->config.trafficClass = call.config->trafficClass;
    if (call.context != nullptr) ctx->config.commId = call.commId;  // v11+: one context per communicator
    ctx->abiVersion = call.abiVersion;
    ctx->engine = acquireEngine(*ctx, call.profiler, log);
    RT_INFO(log, NCCL_INIT | kFlags, "ABI v%d, engine %s", call.abiVersion, ctx->engine->name());
    if (call.context != nullptr) {
      *call.context = ctx.release();
    } else {
      keepLegacyContext(std::move(ctx));
    }
    return ncclSuccess;
  } catch (const StepAside& e) {
    return stepAside(log, e.what());
  } catch (const std::exception& e) {
    const std::string reason = std::string("init failed: ") + e.what();
    return stepAside(log, reason.c_str());
  } catch (...) {
    return stepAside(log, "init failed: unknown exception");
  }
}

void* legacyContext() noexcept {
  return processState().legacyView.load(std::memory_order_acquire);
}

ncclResult_t devices(int* ndev) noexcept {
  return guarded("devices", [&] {
    requireArgument(ndev != nullptr, "NULL ndev (ABI misuse)");
    *ndev = 0;
    injectFaultAt(FaultSite::NetDevices);
    *ndev = requireEngine().deviceCount();
  });
}

ncclResult_t getProperties(int dev, ncclNetProperties_v12_t* props) noexcept {
  return guarded("getProperties", [&] {
    requireArgument(props != nullptr, "NULL properties (ABI misuse)");
    injectFaultAt(FaultSite::NetGetProperties);
    Engine& engine = requireEngine();
    requireArgument(dev >= 0 && dev < engine.deviceCount(), "device index out of range (ABI misuse)");
    fillProperties(engine.properties(dev), props);
  });
}

ncclResult_t finalize(void* ctx) noexcept {
  if (ctx == nullptr) return ncclSuccess;  // NCCL 2.28 finalizes even after our init failed
  std::unique_ptr<NetContext> owned(static_cast<NetContext*>(ctx));
  ncclResult_t result = guarded("finalize", [&] { injectFaultAt(FaultSite::NetFinalize); });
  try {
    releaseEngine(*owned);
  } catch (...) {
    result = reportFailure("finalize", ErrorKind::Internal, "unknown", -1, "could not release the engine");
  }
  return result;
}

ncclResult_t setNetAttr(void* ctx, const ncclNetAttr_v12_t* attr) noexcept {
  return guarded("setNetAttr", [&] {
    requireArgument(ctx != nullptr, "NULL context (ABI misuse)");
    requireArgument(attr != nullptr, "NULL attributes (ABI misuse)");
    injectFaultAt(FaultSite::NetSetNetAttr);
    NetAttributes ours;
    ours.send = {attr->sendCommAttr.maxConcurrentPeers, attr->sendCommAttr.minConcurrentPeers,
                 attr->sendCommAttr.maxFlowsPerPeer, attr->sendCommAttr.minFlowsPerPeer};
    ours.recv = {attr->recvCommAttr.maxConcurrentPeers, attr->recvCommAttr.minConcurrentPeers,
                 attr->recvCommAttr.maxFlowsPerPeer, attr->recvCommAttr.minFlowsPerPeer};
    ours.collectives = attr->op;
    ours.algorithms = attr->algo;
    ours.protocols = attr->proto;
    requireEngine().setNetAttributes(static_cast<NetContext*>(ctx)->commId, ours);
  });
}

ncclResult_t makeVDevice(int* d, int ndevs, const int* devs, size_t maxMembers) noexcept {
  return guarded("makeVDevice", [&] {
    requireArgument(d != nullptr && devs != nullptr, "NULL device or properties (ABI misuse)");
    requireArgument(ndevs >= 1 && static_cast<size_t>(ndevs) <= maxMembers,
                    "makeVDevice: member count out of range for this ABI version (ABI misuse)");
    *d = requireEngine().makeVirtualDevice(std::span<const int>(devs, static_cast<size_t>(ndevs)), maxMembers);
  });
}

ncclResult_t rejectArgument(const char* entry, const char* reason) noexcept {
  return reportFailure(entry, ErrorKind::InvalidArgument, "unknown", -1, reason);
}

}  // namespace railtune::net::boundary
