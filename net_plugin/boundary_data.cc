// See boundary.h: connection setup, memory registration and the data path. Every function checks
// the arguments NCCL must pass (a NULL comm or request is ABI misuse), then asks the engine; any
// failure becomes one WARN naming peer, device and reason, and the precise NCCL code.
#include <cstddef>
#include <span>

#include "net_plugin/boundary.h"
#include "net_plugin/boundary_internal.h"

namespace railtune::net::boundary {
namespace {
using namespace detail;

const CommConfig& contextConfig(void* ctx) {
  requireArgument(ctx != nullptr, "NULL context: init did not succeed (ABI misuse)");
  return static_cast<NetContext*>(ctx)->config;
}

// NCCL's receive/flush arrays as the engine's buffers; n is bounded by kMaxRecvs (no allocation).
size_t gatherBuffers(int n, void** data, const size_t* sizes, const int* sizesInt, int* tags, void** mhandles,
                     void** phandles, RecvBuffer (&out)[kMaxRecvs]) {
  requireArgument(n >= 1 && n <= kMaxRecvs, "receive count out of range (ABI misuse)");
  requireArgument(data != nullptr && (sizes != nullptr || sizesInt != nullptr),
                  "NULL data or sizes array (ABI misuse)");
  for (int i = 0; i < n; ++i) {
    if (sizesInt != nullptr) requireArgument(sizesInt[i] >= 0, "negative size (ABI misuse)");
    out[i].data = data[i];
    out[i].size = sizes != nullptr ? sizes[i] : static_cast<size_t>(sizesInt[i]);
    out[i].tag = tags != nullptr ? tags[i] : 0;
    out[i].region = mhandles != nullptr ? static_cast<MemoryRegion*>(mhandles[i]) : nullptr;
    out[i].profilerHandle = phandles != nullptr ? phandles[i] : nullptr;
  }
  return static_cast<size_t>(n);
}

}  // namespace

ncclResult_t listen(void* ctx, int dev, void* handle, void** listenComm) noexcept {
  return guarded("listen", [&] {
    requireArgument(handle != nullptr && listenComm != nullptr, "NULL handle or listenComm (ABI misuse)");
    *listenComm = nullptr;
    const CommConfig& config = contextConfig(ctx);
    injectFaultAt(FaultSite::NetListen);
    std::span<std::byte, kHandleBytes> bytes(static_cast<std::byte*>(handle), kHandleBytes);
    *listenComm = requireEngine().listen(dev, config, bytes);
  });
}

ncclResult_t connect(void* ctx, int dev, const ncclNetCommConfig_v12_t* config, void* handle, void** sendComm,
                     ncclNetDeviceHandle_v12_t** /*sendDevComm: no device offload; NCCL's NULL stays*/) noexcept {
  return guarded("connect", [&] {
    requireArgument(handle != nullptr && sendComm != nullptr, "NULL handle or sendComm (ABI misuse)");
    *sendComm = nullptr;
    CommConfig effective = contextConfig(ctx);
    if (config != nullptr) effective.trafficClass = config->trafficClass;
    injectFaultAt(FaultSite::NetConnect);
    std::span<const std::byte, kHandleBytes> bytes(static_cast<const std::byte*>(handle), kHandleBytes);
    *sendComm = requireEngine().connect(dev, effective, bytes);
  });
}

ncclResult_t accept(void* listenComm, void** recvComm, ncclNetDeviceHandle_v12_t** /*recvDevComm*/) noexcept {
  return guarded("accept", [&] {
    requireArgument(listenComm != nullptr && recvComm != nullptr, "NULL listenComm or recvComm (ABI misuse)");
    *recvComm = nullptr;
    injectFaultAt(FaultSite::NetAccept);
    *recvComm = requireEngine().accept(static_cast<ListenComm*>(listenComm));
  });
}

ncclResult_t regMr(void* comm, void* data, size_t size, int type, void** mhandle) noexcept {
  return guarded("regMr", [&] {
    requireArgument(comm != nullptr && mhandle != nullptr, "NULL comm or mhandle (ABI misuse)");
    requireArgument(type == NCCL_PTR_HOST || type == NCCL_PTR_CUDA, "unknown memory type (ABI misuse)");
    *mhandle = nullptr;
    injectFaultAt(FaultSite::NetRegMr);
    const MemoryType memory = type == NCCL_PTR_CUDA ? MemoryType::Cuda : MemoryType::Host;
    *mhandle = requireEngine().registerMemory(comm, data, size, memory);
  });
}

ncclResult_t regMrDmaBuf(void* comm, void* data, size_t size, int /*type*/, uint64_t offset, int fd,
                         void** mhandle) noexcept {
  return guarded("regMrDmaBuf", [&] {
    requireArgument(comm != nullptr && mhandle != nullptr, "NULL comm or mhandle (ABI misuse)");
    *mhandle = nullptr;
    injectFaultAt(FaultSite::NetRegMr);
    *mhandle = requireEngine().registerDmaBuf(comm, data, size, offset, fd);
  });
}

ncclResult_t deregMr(void* comm, void* mhandle) noexcept {
  return guarded("deregMr", [&] {
    requireArgument(comm != nullptr && mhandle != nullptr, "NULL comm or mhandle (ABI misuse)");
    injectFaultAt(FaultSite::NetDeregMr);
    requireEngine().deregisterMemory(comm, static_cast<MemoryRegion*>(mhandle));
  });
}

ncclResult_t isend(void* sendComm, void* data, size_t size, int tag, void* mhandle, void* phandle,
                   void** request) noexcept {
  return guarded("isend", [&] {
    requireArgument(sendComm != nullptr && request != nullptr, "NULL sendComm or request (ABI misuse)");
    *request = nullptr;
    injectFaultAt(FaultSite::NetIsend);
    *request = requireEngine().isend(static_cast<SendComm*>(sendComm), data, size, tag,
                                     static_cast<MemoryRegion*>(mhandle), phandle);
  });
}

ncclResult_t irecv(void* recvComm, int n, void** data, size_t* sizes, int* tags, void** mhandles, void** phandles,
                   void** request) noexcept {
  return guarded("irecv", [&] {
    requireArgument(recvComm != nullptr && request != nullptr, "NULL recvComm or request (ABI misuse)");
    // NCCL may preset *request to (void*)0x1 for optional completion; we always return a real one.
    *request = nullptr;
    RecvBuffer buffers[kMaxRecvs];
    const size_t count = gatherBuffers(n, data, sizes, nullptr, tags, mhandles, phandles, buffers);
    injectFaultAt(FaultSite::NetIrecv);
    *request = requireEngine().irecv(static_cast<RecvComm*>(recvComm), std::span<const RecvBuffer>(buffers, count));
  });
}

ncclResult_t iflush(void* recvComm, int n, void** data, int* sizes, void** mhandles, void** request) noexcept {
  return guarded("iflush", [&] {
    requireArgument(recvComm != nullptr && request != nullptr, "NULL recvComm or request (ABI misuse)");
    *request = nullptr;
    RecvBuffer buffers[kMaxRecvs];
    const size_t count = gatherBuffers(n, data, nullptr, sizes, nullptr, mhandles, nullptr, buffers);
    injectFaultAt(FaultSite::NetIflush);
    *request = requireEngine().iflush(static_cast<RecvComm*>(recvComm), std::span<const RecvBuffer>(buffers, count));
  });
}

ncclResult_t test(void* request, int* done, int* sizes) noexcept {
  return guarded("test", [&] {
    requireArgument(request != nullptr && done != nullptr, "NULL request or done (ABI misuse)");
    *done = 0;
    injectFaultAt(FaultSite::NetTest);
    const Completion completion = requireEngine().test(static_cast<Request*>(request));
    if (completion.done && sizes != nullptr) {
      for (int i = 0; i < completion.nSizes && i < kMaxRecvs; ++i) sizes[i] = static_cast<int>(completion.sizes[i]);
    }
    *done = completion.done ? 1 : 0;
  });
}

ncclResult_t closeSend(void* sendComm) noexcept {
  return guarded("closeSend", [&] {
    requireArgument(sendComm != nullptr, "NULL sendComm (ABI misuse)");
    injectFaultAt(FaultSite::NetClose);
    requireEngine().closeSend(static_cast<SendComm*>(sendComm));
  });
}

ncclResult_t closeRecv(void* recvComm) noexcept {
  return guarded("closeRecv", [&] {
    requireArgument(recvComm != nullptr, "NULL recvComm (ABI misuse)");
    injectFaultAt(FaultSite::NetClose);
    requireEngine().closeRecv(static_cast<RecvComm*>(recvComm));
  });
}

ncclResult_t closeListen(void* listenComm) noexcept {
  return guarded("closeListen", [&] {
    requireArgument(listenComm != nullptr, "NULL listenComm (ABI misuse)");
    injectFaultAt(FaultSite::NetClose);
    requireEngine().closeListen(static_cast<ListenComm*>(listenComm));
  });
}

}  // namespace railtune::net::boundary
