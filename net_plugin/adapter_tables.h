// The exported tables of net ABI v7..v12, built by two templates: one per kind of table, instantiated per version
// in adapter_v7_v8.cc and adapter_v9_v12.cc, where each version's real delta is stated beside it. What differs
// only in types (the properties, virtual-device, config, attribute and device-handle structs of each version) is
// deduced from the version's own function-pointer types: a function template assigned to a member takes that
// member's types. What differs in calls is chosen here by the version number.
#pragma once

#include <cstdint>

#include "net_plugin/adapter_convert.h"
#include "net_plugin/boundary.h"

namespace railtune::net::adapter {

// --- the calls a version's table may use ------------------------------------------------------------------------

// v7..v9: init(logger).
template <int V>
ncclResult_t initLogger(ncclDebugLogger_t logFunction) {
  return boundary::init({.logger = logFunction, .abiVersion = V});
}

// v10: init(logger, profiler).
template <int V>
ncclResult_t initLoggerProfiler(ncclDebugLogger_t logFunction, ncclProfilerCallback_t profFunction) {
  return boundary::init({.logger = logFunction, .profiler = profFunction, .abiVersion = V});
}

// v11, v12: init(ctx, commId, config, logger, profiler), the config as v12's.
template <int V, typename Config>
ncclResult_t initContext(void** ctx, uint64_t commId, Config* config, ncclDebugLogger_t logFunction,
                         ncclProfilerCallback_t profFunction) {
  ncclNetCommConfig_v12_t scratch{};
  return boundary::init({.context = ctx,
                         .commId = commId,
                         .config = asNewest(config, scratch),
                         .logger = logFunction,
                         .profiler = profFunction,
                         .abiVersion = V});
}

// v7..v9: connect(dev, handle, sendComm, devComm), no context (the one init made) and no config.
template <typename DeviceHandle>
ncclResult_t connectLegacy(int dev, void* handle, void** sendComm, DeviceHandle** sendDevComm) {
  return boundary::connect(boundary::legacyContext(), dev, nullptr, handle, sendComm, sendDevComm);
}

// v10: connect(dev, config, handle, sendComm, devComm): a config per connect, no context.
template <typename Config, typename DeviceHandle>
ncclResult_t connectConfig(int dev, Config* config, void* handle, void** sendComm, DeviceHandle** sendDevComm) {
  ncclNetCommConfig_v12_t scratch{};
  return boundary::connect(boundary::legacyContext(), dev, asNewest(config, scratch), handle, sendComm, sendDevComm);
}

// v11, v12: connect(ctx, dev, handle, sendComm, devComm): the config came with init.
template <typename DeviceHandle>
ncclResult_t connectContext(void* ctx, int dev, void* handle, void** sendComm, DeviceHandle** sendDevComm) {
  return boundary::connect(ctx, dev, nullptr, handle, sendComm, sendDevComm);
}

// v9: isend/irecv with size_t sizes and no profiler handles.
inline ncclResult_t isendNoProfiler(void* sendComm, void* data, size_t size, int tag, void* mhandle, void** request) {
  return boundary::isend(sendComm, data, size, tag, mhandle, nullptr, request);
}
inline ncclResult_t irecvNoProfiler(void* recvComm, int n, void** data, size_t* sizes, int* tags, void** mhandles,
                                    void** request) {
  return boundary::irecv(recvComm, n, data, sizes, tags, mhandles, nullptr, request);
}

// v9..v12: makeVDevice with the version's physical-device capacity, the size of its props' array.
template <typename VDeviceProps>
ncclResult_t makeVDeviceAs(int* d, VDeviceProps* props) {
  if (props == nullptr) return boundary::rejectArgument("makeVDevice", "NULL properties (ABI misuse)");
  constexpr int capacity = static_cast<int>(sizeof(props->devs) / sizeof(props->devs[0]));
  return boundary::makeVDevice(d, props->ndevs, props->devs, capacity);
}

// v11, v12: setNetAttr, the attributes as v12's.
template <typename Attr>
ncclResult_t setNetAttrAs(void* ctx, Attr* attr) {
  ncclNetAttr_v12_t scratch;
  return boundary::setNetAttr(ctx, asNewest(attr, scratch));
}

// --- the two kinds of table -------------------------------------------------------------------------------------

// v7, v8: int isend/irecv sizes, a device handle at connect, no virtual devices. V: the version.
template <typename Net, int V>
constexpr Net intSizeNet() {
  Net net{};
  net.name = "railtune";
  net.init = initLogger<V>;
  net.devices = boundary::devices;
  net.getProperties = getPropertiesAs;
  net.listen = listenLegacy;
  net.connect = connectLegacy;
  net.accept = boundary::accept;
  if constexpr (V == 7) {
    net.regMr = regMrIntSize;
  } else {
    net.regMr = boundary::regMr;
  }
  net.regMrDmaBuf = boundary::regMrDmaBuf;
  net.deregMr = boundary::deregMr;
  net.isend = isendIntSize;
  net.irecv = irecvIntSizes;
  net.iflush = boundary::iflush;
  net.test = boundary::test;
  net.closeSend = boundary::closeSend;
  net.closeRecv = boundary::closeRecv;
  net.closeListen = boundary::closeListen;
  return net;  // getDeviceMr, irecvConsumed (device offload): NULL, NCCL checks before calling them
}

// v9..v12: size_t sizes and virtual devices; from v10 the profiler, from v11 a context per communicator
// (with finalize and setNetAttr). V: the version; v12 is the boundary's own interface.
template <typename Net, int V>
constexpr Net virtualDeviceNet() {
  static_assert(V >= 9 && V <= 12);
  Net net{};
  net.name = "railtune";
  if constexpr (V == 9) {
    net.init = initLogger<V>;
  } else if constexpr (V == 10) {
    net.init = initLoggerProfiler<V>;
  } else {
    net.init = initContext<V>;
  }
  net.devices = boundary::devices;
  if constexpr (V == 12) {
    net.getProperties = boundary::getProperties;
  } else {
    net.getProperties = getPropertiesAs;
  }
  if constexpr (V <= 10) {
    net.listen = listenLegacy;
  } else {
    net.listen = boundary::listen;
  }
  if constexpr (V == 9) {
    net.connect = connectLegacy;
  } else if constexpr (V == 10) {
    net.connect = connectConfig;
  } else {
    net.connect = connectContext;
  }
  net.accept = boundary::accept;
  net.regMr = boundary::regMr;
  net.regMrDmaBuf = boundary::regMrDmaBuf;
  net.deregMr = boundary::deregMr;
  if constexpr (V == 9) {
    net.isend = isendNoProfiler;
    net.irecv = irecvNoProfiler;
  } else {
    net.isend = boundary::isend;
    net.irecv = boundary::irecv;
  }
  net.iflush = boundary::iflush;
  net.test = boundary::test;
  net.closeSend = boundary::closeSend;
  net.closeRecv = boundary::closeRecv;
  net.closeListen = boundary::closeListen;
  net.makeVDevice = makeVDeviceAs;
  if constexpr (V >= 11) {
    net.finalize = boundary::finalize;
    net.setNetAttr = setNetAttrAs;
  }
  return net;  // getDeviceMr, irecvConsumed (device offload): NULL, NCCL checks before calling them
}

}  // namespace railtune::net::adapter
