// Net ABI v7: as v8 with an int regMr size and no regIsGlobal property.
#include "nccl/net_v7.h"
#include "net_plugin/adapter_convert.h"

namespace {
using namespace railtune::net;

ncclResult_t initV7(ncclDebugLogger_t logFunction) {
  return boundary::init({.logger = logFunction, .abiVersion = 7});
}

ncclResult_t getPropertiesV7(int dev, ncclNetProperties_v7_t* props) {
  return adapter::getPropertiesAs(dev, props);
}

ncclResult_t connectV7(int dev, void* handle, void** sendComm, ncclNetDeviceHandle_v7_t** sendDevComm) {
  return boundary::connect(boundary::legacyContext(), dev, nullptr, handle, sendComm, sendDevComm);
}

}  // namespace

static_assert(sizeof(ncclNet_v7_t) == 19 * sizeof(void*), "ncclNet_v7_t: name + 18 function pointers");

extern "C" __attribute__((visibility("default"))) const ncclNet_v7_t ncclNetPlugin_v7 = {
    .name = "railtune",
    .init = initV7,
    .devices = boundary::devices,
    .getProperties = getPropertiesV7,
    .listen = adapter::listenLegacy,
    .connect = connectV7,
    .accept = boundary::accept,
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
    .getDeviceMr = nullptr,
    .irecvConsumed = nullptr,
};
