// Net ABI v11 (native in NCCL 2.28): v12's calls with v11's config, attribute and property types
// (properties without rail/plane ids, 4 physical devices per virtual device).
#include "nccl/net_v11.h"
#include "net_plugin/adapter_convert.h"

namespace {
using namespace railtune::net;

ncclResult_t initV11(void** ctx, uint64_t commId, ncclNetCommConfig_v11_t* config, ncclDebugLogger_t logFunction,
                     ncclProfilerCallback_t profFunction) {
  ncclNetCommConfig_v12_t newest{};
  if (config != nullptr) newest.trafficClass = config->trafficClass;
  return boundary::init({.context = ctx,
                         .commId = commId,
                         .config = config != nullptr ? &newest : nullptr,
                         .logger = logFunction,
                         .profiler = profFunction,
                         .abiVersion = 11});
}

ncclResult_t getPropertiesV11(int dev, ncclNetProperties_v11_t* props) {
  return adapter::getPropertiesAs(dev, props);
}

ncclResult_t connectV11(void* ctx, int dev, void* handle, void** sendComm, ncclNetDeviceHandle_v11_t** sendDevComm) {
  return boundary::connect(ctx, dev, nullptr, handle, sendComm, sendDevComm);
}

ncclResult_t setNetAttrV11(void* ctx, ncclNetAttr_v11_t* attr) {
  if (attr == nullptr) return boundary::setNetAttr(ctx, nullptr);
  ncclNetAttr_v12_t newest;
  newest.sendCommAttr = {attr->sendCommAttr.maxConcurrentPeers, attr->sendCommAttr.minConcurrentPeers,
                         attr->sendCommAttr.maxFlowsPerPeer, attr->sendCommAttr.minFlowsPerPeer};
  newest.recvCommAttr = {attr->recvCommAttr.maxConcurrentPeers, attr->recvCommAttr.minConcurrentPeers,
                         attr->recvCommAttr.maxFlowsPerPeer, attr->recvCommAttr.minFlowsPerPeer};
  newest.op = attr->op;
  newest.algo = attr->algo;
  newest.proto = attr->proto;
  return boundary::setNetAttr(ctx, &newest);
}

ncclResult_t makeVDeviceV11(int* d, ncclNetVDeviceProps_v11_t* props) {
  if (props == nullptr) return boundary::rejectArgument("makeVDevice", "NULL properties (ABI misuse)");
  return boundary::makeVDevice(d, props->ndevs, props->devs, NCCL_NET_MAX_DEVS_PER_NIC_V9);
}

}  // namespace

static_assert(sizeof(ncclNet_v11_t) == 22 * sizeof(void*), "ncclNet_v11_t: name + 21 function pointers");

extern "C" __attribute__((visibility("default"))) const ncclNet_v11_t ncclNetPlugin_v11 = {
    .name = "railtune",
    .init = initV11,
    .devices = boundary::devices,
    .getProperties = getPropertiesV11,
    .listen = boundary::listen,
    .connect = connectV11,
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
    .makeVDevice = makeVDeviceV11,
    .finalize = boundary::finalize,
    .setNetAttr = setNetAttrV11,
};
