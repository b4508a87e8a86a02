// NetDriver: set-up calls (init, devices, properties, listen/connect/accept, close, finalize) through
// NCCL's call sites, with the conversions of NCCL's net_vN.cc adapters for versions before 11.
#include <type_traits>

#include "emulator/net_driver.h"
#include "emulator/net_props.h"
#include "emulator/net_tables.h"

namespace railtune::emu {

NetDriver::NetDriver(const Binding& binding)
    : binding_(binding), version_(binding.kind == PluginKind::Net ? binding.version : 0) {}

NetDriver::~NetDriver() = default;

const char* NetDriver::pluginName() const {
  return binding_.table ? *static_cast<const char* const*>(binding_.table) : "";
}

ncclResult_t NetDriver::violation(const std::string& call, const char* structName) {
  violations_.push_back(call + ": plugin wrote past the end of " + structName);
  return ncclInternalError;
}

ncclResult_t NetDriver::init(uint64_t commId, int trafficClass, ncclDebugLogger_t logger, ncclProfilerCallback_t prof) {
  if (version_ >= 11) return initWithContext(commId, trafficClass, logger, prof);
  return initOnce(trafficClass, logger, prof);
}

// v11+: init per communicator with its context, commId and config (a struct NCCL builds on its stack).
ncclResult_t NetDriver::initWithContext(uint64_t commId, int trafficClass, ncclDebugLogger_t logger,
                                        ncclProfilerCallback_t prof) {
  return withNetTable(version_, binding_.table, [&](const auto* t) -> ncclResult_t {
    if constexpr (kNetVersion<decltype(t)> >= 11) {
      Poisoned<NetInitConfigOf<decltype(t)>> config;
      config->trafficClass = trafficClass;
      ncclResult_t r = t->init(&context_, commId, config.get(), logger, prof);
      if (!config.intact()) return violation("net.init", "ncclNetCommConfig_t");
      return r;
    } else {
      return ncclInternalError;
    }
  });
}

// v6..v10: NCCL's adapters initialise the plugin once per process (a reference count) and keep the
// per-communicator config themselves; v10 gets it back on every connect.
ncclResult_t NetDriver::initOnce(int trafficClass, ncclDebugLogger_t logger, ncclProfilerCallback_t prof) {
  if (!binding_.library) return ncclInternalError;
  LibraryState& state = binding_.library->state();
  std::lock_guard<std::mutex> lock(state.mutex);
  std::unique_ptr<Poisoned<ncclNetCommConfig_v10_t>> config;
  if (version_ == 10) {
    config = std::make_unique<Poisoned<ncclNetCommConfig_v10_t>>();
    (*config)->trafficClass = trafficClass;
  }
  if (state.netAdapterRefCount == 0) {
    ncclResult_t r = withNetTable(version_, binding_.table, [&](const auto* t) -> ncclResult_t {
      if constexpr (kNetVersion<decltype(t)> == 10)
        return t->init(logger, prof);
      else if constexpr (kNetVersion<decltype(t)> < 10)
        return t->init(logger);
      else
        return ncclInternalError;
    });
    if (r != ncclSuccess) return r;  // the adapter leaves the context NULL
  }
  state.netAdapterRefCount++;
  v10Config_ = std::move(config);
  context_ = v10Config_ ? static_cast<void*>(v10Config_->get()) : nullptr;
  return ncclSuccess;
}

ncclResult_t NetDriver::finalize() {
  if (version_ >= 11) {
    return withNetTable(version_, binding_.table, [&](const auto* t) -> ncclResult_t {
      if constexpr (kNetVersion<decltype(t)> >= 11)
        return t->finalize(context_);
      else
        return ncclInternalError;
    });
  }
  // The adapter's finalize only drops its reference (even after a failed init, as 2.28 calls it then).
  if (!binding_.library) return ncclInternalError;
  LibraryState& state = binding_.library->state();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.netAdapterRefCount--;
  return ncclSuccess;
}

ncclResult_t NetDriver::devices(int* ndev) {
  return withNetTable(version_, binding_.table, [&](const auto* t) { return t->devices(ndev); });
}

ncclResult_t NetDriver::getProperties(int dev, ncclNetProperties_v12_t* props) {
  return withNetTable(version_, binding_.table, [&](const auto* t) -> ncclResult_t {
    Poisoned<NetPropertiesOf<decltype(t)>> own;
    ncclResult_t r = t->getProperties(dev, own.get());
    if (!own.intact()) return violation("net.getProperties", "ncclNetProperties_t");
    if (r != ncclSuccess) return r;
    widenProperties(*own, dev, props);
    return ncclSuccess;
  });
}

ncclResult_t NetDriver::listen(int dev, void* handle, void** listenComm) {
  return withNetTable(version_, binding_.table, [&](const auto* t) -> ncclResult_t {
    if constexpr (kNetVersion<decltype(t)> >= 11)
      return t->listen(context_, dev, handle, listenComm);
    else
      return t->listen(dev, handle, listenComm);
  });
}

ncclResult_t NetDriver::connect(int dev, void* handle, void** sendComm, ncclNetDeviceHandle_v12_t** sendDevComm) {
  return withNetTable(version_, binding_.table, [&](const auto* t) -> ncclResult_t {
    constexpr int v = kNetVersion<decltype(t)>;
    if constexpr (v >= 11) {
      return t->connect(context_, dev, handle, sendComm, sendDevComm);
    } else if constexpr (v == 10) {
      if (!v10Config_) return ncclInternalError;
      ncclResult_t r = t->connect(dev, v10Config_->get(), handle, sendComm, sendDevComm);
      if (!v10Config_->intact()) return violation("net.connect", "ncclNetCommConfig_v10_t");
      return r;
    } else if constexpr (v >= 7) {
      return t->connect(dev, handle, sendComm, sendDevComm);
    } else {
      return t->connect(dev, handle, sendComm);
    }
  });
}

ncclResult_t NetDriver::accept(void* listenComm, void** recvComm, ncclNetDeviceHandle_v12_t** recvDevComm) {
  return withNetTable(version_, binding_.table, [&](const auto* t) -> ncclResult_t {
    if constexpr (kNetVersion<decltype(t)> >= 7)
      return t->accept(listenComm, recvComm, recvDevComm);
    else
      return t->accept(listenComm, recvComm);
  });
}

ncclResult_t NetDriver::closeSend(void* sendComm) {
  return withNetTable(version_, binding_.table, [&](const auto* t) { return t->closeSend(sendComm); });
}

ncclResult_t NetDriver::closeRecv(void* recvComm) {
  return withNetTable(version_, binding_.table, [&](const auto* t) { return t->closeRecv(recvComm); });
}

ncclResult_t NetDriver::closeListen(void* listenComm) {
  return withNetTable(version_, binding_.table, [&](const auto* t) { return t->closeListen(listenComm); });
}

}  // namespace railtune::emu
