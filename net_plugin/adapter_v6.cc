// Net ABI v6: as v7 without device offload (connect/accept take no device handle) and without
// the device-type properties.
#include "nccl/net_v6.h"
#include "net_plugin/adapter_convert.h"

namespace {
using namespace railtune::net;

ncclResult_t initV6(ncclDebugLogger_t logFunction) {
  return boundary::init({.logger = logFunction, .abiVersion = 6});
}

ncclResult_t getPropertiesV6(int dev, ncclNetProperties_v6_t* props) {
  return adapter::getPropertiesAs(dev, props);
}

ncclResult_t connectV6(int dev, void* handle, void** sendComm) {
  return boundary::connect(boundary::legacyContext(), dev, nullptr, handle, sendComm, nullptr);
}

ncclResult_t acceptV6(void* listenComm, void** recvComm) {
  return boundary::accept(listenComm, recvComm, nullptr);
}

}  // namespace

static_assert(sizeof(ncclNet_v6_t) == 17 * sizeof(void*), "ncclNet_v6_t: name + 16 function pointers");

extern "C" __attribute__((visibility("default"))) const ncclNet_v6_t ncclNetPlugin_v6 = {
    .name = "railtune",
    .init = initV6,
    .devices = boundary::devices,
    .getProperties = getPropertiesV6,
    .listen = adapter::listenLegacy,
    .connect = connectV6,
    .accept = acceptV6,
    .regMr = adapter::regMrIntSize,
    .regMrDmaBuf = boundary::regMrDmaBuf,
    .deregMr = boundary::deregMr,
    .isend = adapter::isendIntSize,
    .irecv = adapter::irecvIntSizes,
    .iflush = boundary::iflush,
    .test = boundary::test,
    .closeSend = boundary::closeSend,
    .closeRecv = boundary::closeRecv,
    .closeListen = boundary::closeListen,
};
