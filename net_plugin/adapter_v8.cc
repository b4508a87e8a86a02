// Net ABI v8: as v9 with int isend/irecv sizes and no virtual devices.
#include "nccl/net_v8.h"
#include "net_plugin/adapter_convert.h"

namespace {
using namespace railtune::net;

ncclResult_t initV8(ncclDebugLogger_t logFunction) {
  return boundary::init({.logger = logFunction, .abiVersion = 8});
}

ncclResult_t getPropertiesV8(int dev, ncclNetProperties_v8_t* props) {
  return adapter::getPropertiesAs(dev, props);
}

ncclResult_t connectV8(int dev, void* handle, void** sendComm, ncclNetDeviceHandle_v8_t** sendDevComm) {
  return boundary::connect(boundary::legacyContext(), dev, nullptr, handle, sendComm, sendDevComm);
}

}  // namespace

static_assert(sizeof(ncclNet_v8_t) == 19 * sizeof(void*), "ncclNet_v8_t: name + 18 function pointers");

extern "C" __attribute__((visibility("default"))) const ncclNet_v8_t ncclNetPlugin_v8 = {
    .name = "railtune",
    .init = initV8,
    .devices = boundary::devices,
    .getProperties = getPropertiesV8,
    .listen = adapter::listenLegacy,
    .connect = connectV8,
    .accept = boundary::accept,
    .regMr = boundary::regMr,
    .regMrDmaBuf = boundary::regMrDmaBuf,
    .deregMr = boundary::deregMr,
    .isend = adapter::isendIntSize,
    .irecv = adapter::irecvIntSizes,
    .iflush = boundary::iflush,
    .test = boundary::test,
    .closeSend = boundary::closeSend,
    .closeRecv = boundary::closeRecv,
    .closeListen = boundary::closeListen,
    .getDeviceMr = nullptr,
    .irecvConsumed = nullptr,
};
