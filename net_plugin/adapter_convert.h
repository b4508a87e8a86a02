// What the older net adapters share: narrowing v12 properties to an older struct (member names
// are the same across versions, so one template serves all; `requires` skips what a version
// lacks), widening an older config or attribute struct to v12's, and widening the int sizes of
// v6..v8 to size_t.
#pragma once

#include <algorithm>
#include <cstring>

#include "net_plugin/boundary.h"
#include "net_plugin/engine.h"

namespace railtune::net::adapter {

template <typename Props>
void narrowProperties(const ncclNetProperties_v12_t& in, Props* out) {
  std::memset(out, 0, sizeof(*out));
  out->name = in.name;
  out->pciPath = in.pciPath;
  out->guid = in.guid;
  out->ptrSupport = in.ptrSupport;
  out->speed = in.speed;
  out->port = in.port;
  out->latency = in.latency;
  out->maxComms = in.maxComms;
  out->maxRecvs = in.maxRecvs;
  if constexpr (requires { out->netDeviceType; }) {
    out->netDeviceType = in.netDeviceType;
    out->netDeviceVersion = in.netDeviceVersion;
  }
  if constexpr (requires { out->regIsGlobal; }) out->regIsGlobal = in.regIsGlobal;
  if constexpr (requires { out->forceFlush; }) out->forceFlush = in.forceFlush;
  if constexpr (requires { out->vProps; }) {
    constexpr int capacity = static_cast<int>(sizeof(out->vProps.devs) / sizeof(out->vProps.devs[0]));
    out->vProps.ndevs = std::min(in.vProps.ndevs, capacity);
    for (int i = 0; i < out->vProps.ndevs; ++i) out->vProps.devs[i] = in.vProps.devs[i];
  }
  if constexpr (requires { out->maxP2pBytes; }) {
    out->maxP2pBytes = in.maxP2pBytes;
    out->maxCollBytes = in.maxCollBytes;
  }
  if constexpr (requires { out->maxMultiRequestSize; }) out->maxMultiRequestSize = in.maxMultiRequestSize;
}

template <typename Props>
ncclResult_t getPropertiesAs(int dev, Props* props) {
  if (props == nullptr) return boundary::getProperties(dev, nullptr);  // the boundary reports the misuse
  ncclNetProperties_v12_t newest;
  const ncclResult_t result = boundary::getProperties(dev, &newest);
  if (result == ncclSuccess) narrowProperties(newest, props);
  return result;
}

// A communicator config as v12's: v12's own as it is; an older one's traffic class copied into `scratch` (v10 and v11
// have only that field); NULL stays NULL.
inline ncclNetCommConfig_v12_t* asNewest(ncclNetCommConfig_v12_t* config, ncclNetCommConfig_v12_t& /*scratch*/) {
  return config;
}
template <typename Config>
ncclNetCommConfig_v12_t* asNewest(Config* config, ncclNetCommConfig_v12_t& scratch) {
  if (config == nullptr) return nullptr;
  scratch.trafficClass = config->trafficClass;
  return &scratch;
}

// Network attributes as v12's: v12's own as they are; v11's copied field by field into `scratch`; NULL stays NULL.
inline ncclNetAttr_v12_t* asNewest(ncclNetAttr_v12_t* attr, ncclNetAttr_v12_t& /*scratch*/) {
  return attr;
}
template <typename Attr>
ncclNetAttr_v12_t* asNewest(Attr* attr, ncclNetAttr_v12_t& scratch) {
  if (attr == nullptr) return nullptr;
  scratch.sendCommAttr = {attr->sendCommAttr.maxConcurrentPeers, attr->sendCommAttr.minConcurrentPeers,
                          attr->sendCommAttr.maxFlowsPerPeer, attr->sendCommAttr.minFlowsPerPeer};
  scratch.recvCommAttr = {attr->recvCommAttr.maxConcurrentPeers, attr->recvCommAttr.minConcurrentPeers,
                          attr->recvCommAttr.maxFlowsPerPeer, attr->recvCommAttr.minFlowsPerPeer};
  scratch.op = attr->op;
  scratch.algo = attr->algo;
  scratch.proto = attr->proto;
  return &scratch;
}

inline ncclResult_t regMrIntSize(void* comm, void* data, int size, int type, void** mhandle) {
  if (size < 0) return boundary::rejectArgument("regMr", "negative size (ABI misuse)");
  return boundary::regMr(comm, data, static_cast<size_t>(size), type, mhandle);
}

inline ncclResult_t isendIntSize(void* sendComm, void* data, int size, int tag, void* mhandle, void** request) {
  if (size < 0) return boundary::rejectArgument("isend", "negative size (ABI misuse)");
  return boundary::isend(sendComm, data, static_cast<size_t>(size), tag, mhandle, nullptr, request);
}

inline ncclResult_t irecvIntSizes(void* recvComm, int n, void** data, int* sizes, int* tags, void** mhandles,
                                  void** request) {
  if (n < 1 || n > kMaxRecvs || sizes == nullptr) {
    return boundary::rejectArgument("irecv", "receive count out of range or NULL sizes (ABI misuse)");
  }
  size_t wide[kMaxRecvs];
  for (int i = 0; i < n; ++i) {
    if (sizes[i] < 0) return boundary::rejectArgument("irecv", "negative size (ABI misuse)");
    wide[i] = static_cast<size_t>(sizes[i]);
  }
  return boundary::irecv(recvComm, n, data, wide, tags, mhandles, nullptr, request);
}

// v6..v10 have no per-communicator context: their calls use the one their init made.
inline ncclResult_t listenLegacy(int dev, void* handle, void** listenComm) {
  return boundary::listen(boundary::legacyContext(), dev, handle, listenComm);
}

}  // namespace railtune::net::adapter
