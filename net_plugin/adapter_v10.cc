// Net ABI v10: init(logger, profiler) once per process, no context in listen/connect, a traffic
// class per connect, no finalize or setNetAttr.
#include "nccl/net_v10.h"
#include "net_plugin/adapter_convert.h"

namespace {
using namespace railtune::net;

ncclResult_t initV10(ncclDebugLogger_t logFunction, ncclProfilerCallback_t profFunction) {
  return boundary::init({.logger = logFunction, .profiler = profFunction, .abiVersion = 10});
}

ncclResult_t getPropertiesV10(int dev, ncclNetProperties_v10_t* props) {
  return adapter::getPropertiesAs(dev, props);
}

ncclResult_t connectV10(int dev, ncclNetCommConfig_v10_t* config, void* handle, void** sendComm,
                        ncclNetDeviceHandle_v10_t** sendDevComm) {
  ncclNetCommConfig_v12_t newest{};
  if (config != nullptr) newest.trafficClass = config->trafficClass;
  return boundary::connect(boundary::legacyContext(), dev, config != nullptr ? &newest : nullptr, handle, sendComm,
                           sendDevComm);
}

ncclResult_t makeVDeviceV10(int* d, ncclNetVDeviceProps_v10_t* props) {
  if (props == nullptr) return boundary::rejectArgument("makeVDevice", "NULL properties (ABI misuse)");
  return boundary::makeVDevice(d, props->ndevs, props->devs, NCCL_NET_MAX_DEVS_PER_NIC_V9);
}

}  // namespace

static_assert(sizeof(ncclNet_v10_t) == 20 * sizeof(void*), "ncclNet_v10_t: name + 19 function pointers");

extern "C" __attribute__((visibility("default"))) const ncclNet_v10_t ncclNetPlugin_v10 = {
    .name = "railtune",
    .init = initV10,
    .devices = boundary::devices,
    .getProperties = getPropertiesV10,
    .listen = adapter::listenLegacy,
    .connect = connectV10,
    .accept = boundary::accept,
    .regMr = boundary::regMr,
    .regMrDmaBuf = boundary::regMrDmaBuf,
    .deregMr = boundary::deregMr,
    .isend = boundary::isend,
    .irecv = boundary::irecv,
    .iflush = boundary::iflush,
    .test = boundary::test,
    .closeSend = boundary::closeSend,
    .closeRecv = boundary::closeRecv,
    .closeListen = boundary::closeListen,
    .getDeviceMr = nullptr,
    .irecvConsumed = nullptr,
    .makeVDevice = makeVDeviceV10,
};
