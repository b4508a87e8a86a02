// What the older net adapters share: narrowing v12 properties to an older struct (member names
// are the same across versions, so one template serves all; `requires` skips what a version
// lacks) and widening the int sizes of v6..v8 to size_t.
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
