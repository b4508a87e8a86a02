// Net ABI v12 (NCCL 2.30), the native interface: the boundary takes v12's arguments as they are.
#include "nccl/net_v12.h"
#include "net_plugin/boundary.h"

namespace {
using namespace railtune::net;

ncclResult_t initV12(void** ctx, uint64_t commId, ncclNetCommConfig_v12_t* config, ncclDebugLogger_t logFunction,
                     ncclProfilerCallback_t profFunction) {
  return boundary::init({.context = ctx,
                         .commId = commId,
                         .config = config,
                         .logger = logFunction,
                         .profiler = profFunction,
                         .abiVersion = 12});
}

ncclResult_t connectV12(void* ctx, int dev, void* handle, void** sendComm, ncclNetDeviceHandle_v12_t** sendDevComm) {
  return boundary::connect(ctx, dev, nullptr, handle, sendComm, sendDevComm);
}

ncclResult_t setNetAttrV12(void* ctx, ncclNetAttr_v12_t* attr) {
  return boundary::setNetAttr(ctx, attr);
}

ncclResult_t makeVDeviceV12(int* d, ncclNetVDeviceProps_v12_t* props) {
  if (props == nullptr) return boundary::rejectArgument("makeVDevice", "NULL properties (ABI misuse)");
  return boundary::makeVDevice(d, props->ndevs, props->devs, NCCL_NET_MAX_DEVS_PER_NIC_V12);
}

}  // namespace

static_assert(sizeof(ncclNet_v12_t) == 22 * sizeof(void*), "ncclNet_v12_t: name + 21 function pointers");

// getDeviceMr/irecvConsumed (device offload) stay NULL: NCCL checks before calling them.
extern "C" __attribute__((visibility("default"))) const ncclNet_v12_t ncclNetPlugin_v12 = {
    .name = "railtune",
    .init = initV12,
    .devices = boundary::devices,
    .getProperties = boundary::getProperties,
    .listen = boundary::listen,
    .connect = connectV12,
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
    .makeVDevice = makeVDeviceV12,
    .finalize = boundary::finalize,
    .setNetAttr = setNetAttrV12,
};
