// Net ABI v9: as v10 without the profiler (init, isend/irecv handles) and the per-connect config.
#include "nccl/net_v9.h"
#include "net_plugin/adapter_convert.h"

namespace {
using namespace railtune::net;

ncclResult_t initV9(ncclDebugLogger_t logFunction) {
  return boundary::init({.logger = logFunction, .abiVersion = 9});
}

ncclResult_t getPropertiesV9(int dev, ncclNetProperties_v9_t* props) {
  return adapter::getPropertiesAs(dev, props);
}

ncclResult_t connectV9(int dev, void* handle, void** sendComm, ncclNetDeviceHandle_v9_t** sendDevComm) {
  return boundary::connect(boundary::legacyContext(), dev, nullptr, handle, sendComm, sendDevComm);
}

ncclResult_t isendV9(void* sendComm, void* data, size_t size, int tag, void* mhandle, void** request) {
  return boundary::isend(sendComm, data, size, tag, mhandle, nullptr, request);
}

ncclResult_t irecvV9(void* recvComm, int n, void** data, size_t* sizes, int* tags, void** mhandles, void** request) {
  return boundary::irecv(recvComm, n, data, sizes, tags, mhandles, nullptr, request);
}

ncclResult_t makeVDeviceV9(int* d, ncclNetVDeviceProps_v9_t* props) {
  if (props == nullptr) return boundary::rejectArgument("makeVDevice", "NULL properties (ABI misuse)");
  return boundary::makeVDevice(d, props->ndevs, props->devs, NCCL_NET_MAX_DEVS_PER_NIC_V9);
}

}  // namespace

static_assert(sizeof(ncclNet_v9_t) == 20 * sizeof(void*), "ncclNet_v9_t: name + 19 function pointers");

extern "C" __attribute__((visibility("default"))) const ncclNet_v9_t ncclNetPlugin_v9 = {
    .name = "railtune",
    .init = initV9,
    .devices = boundary::devices,
    .getProperties = getPropertiesV9,
    .listen = adapter::listenLegacy,
    .connect = connectV9,
    .accept = boundary::accept,
    .regMr = boundary::regMr,
    .regMrDmaBuf = boundary::regMrDmaBuf,
    .deregMr = boundary::deregMr,
    .isend = isendV9,
    .irecv = irecvV9,
    .iflush = boundary::iflush,
    .test = boundary::test,
    .closeSend = boundary::closeSend,
    .closeRecv = boundary::closeRecv,
    .closeListen = boundary::closeListen,
    .getDeviceMr = nullptr,
    .irecvConsumed = nullptr,
    .makeVDevice = makeVDeviceV9,
};
