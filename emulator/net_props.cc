// Field-by-field widening as NCCL's adapters do it: what an old version lacks gets the adapter's value
// (regIsGlobal/forceFlush 0, HOST device, one virtual device, 1 GiB / 512 MiB limits, one request per
// multi-request, rail and plane undefined).
#include "emulator/net_props.h"

namespace railtune::emu {
namespace {

template <typename P>
void copyBase(const P& in, ncclNetProperties_v12_t* out) {
  out->name = in.name;
  out->pciPath = in.pciPath;
  out->guid = in.guid;
  out->ptrSupport = in.ptrSupport;
  out->speed = in.speed;
  out->port = in.port;
  out->latency = in.latency;
  out->maxComms = in.maxComms;
  out->maxRecvs = in.maxRecvs;
}

void defaultsBeforeV9(int dev, ncclNetProperties_v12_t* out) {
  out->forceFlush = 0;
  out->vProps.ndevs = 1;
  out->vProps.devs[0] = dev;
  out->maxP2pBytes = static_cast<size_t>(NCCL_MAX_NET_SIZE_V8);
  out->maxCollBytes = static_cast<size_t>(NCCL_MAX_COLLNET_SIZE);
}

void defaultsBeforeV12(ncclNetProperties_v12_t* out) {
  out->railId = NCCL_NET_ID_UNDEF;
  out->planeId = NCCL_NET_ID_UNDEF;
}

template <typename P>
void copyFromV9(const P& in, ncclNetProperties_v12_t* out) {
  copyBase(in, out);
  out->regIsGlobal = in.regIsGlobal;
  out->forceFlush = in.forceFlush;
  out->netDeviceType = in.netDeviceType;
  out->netDeviceVersion = in.netDeviceVersion;
  out->vProps.ndevs = in.vProps.ndevs;
  for (int i = 0; i < in.vProps.ndevs && i < NCCL_NET_MAX_DEVS_PER_NIC_V9; i++) out->vProps.devs[i] = in.vProps.devs[i];
  out->maxP2pBytes = in.maxP2pBytes;
  out->maxCollBytes = in.maxCollBytes;
  out->maxMultiRequestSize = 1;
  defaultsBeforeV12(out);
}

}  // namespace

void widenProperties(const ncclNetProperties_v6_t& in, int dev, ncclNetProperties_v12_t* out) {
  copyBase(in, out);
  out->regIsGlobal = 0;
  out->netDeviceType = NCCL_NET_DEVICE_HOST;
  out->netDeviceVersion = NCCL_NET_DEVICE_INVALID_VERSION;
  defaultsBeforeV9(dev, out);
  out->maxMultiRequestSize = 1;
  defaultsBeforeV12(out);
}

void widenProperties(const ncclNetProperties_v7_t& in, int dev, ncclNetProperties_v12_t* out) {
  copyBase(in, out);
  out->regIsGlobal = 0;
  out->netDeviceType = in.netDeviceType;
  out->netDeviceVersion = in.netDeviceVersion;
  defaultsBeforeV9(dev, out);
  out->maxMultiRequestSize = 1;
  defaultsBeforeV12(out);
}

void widenProperties(const ncclNetProperties_v8_t& in, int dev, ncclNetProperties_v12_t* out) {
  copyBase(in, out);
  out->regIsGlobal = in.regIsGlobal;
  out->netDeviceType = in.netDeviceType;
  out->netDeviceVersion = in.netDeviceVersion;
  defaultsBeforeV9(dev, out);
  out->maxMultiRequestSize = 1;
  defaultsBeforeV12(out);
}

void widenProperties(const ncclNetProperties_v9_t& in, int, ncclNetProperties_v12_t* out) {
  copyFromV9(in, out);
}

void widenProperties(const ncclNetProperties_v10_t& in, int, ncclNetProperties_v12_t* out) {
  copyFromV9(in, out);
}

void widenProperties(const ncclNetProperties_v11_t& in, int, ncclNetProperties_v12_t* out) {
  copyFromV9(in, out);
  out->maxMultiRequestSize = in.maxMultiRequestSize;
}

void widenProperties(const ncclNetProperties_v12_t& in, int, ncclNetProperties_v12_t* out) {
  *out = in;
}

}  // namespace railtune::emu
