// The one place every exported net call enters (architecture rule 1). The failure table:
//   init          an error, so that NCCL moves on to its next transport (railtune steps aside),
//                 always with one WARN saying why
//   data path     a precise error (ncclSystemError, ncclRemoteError; ncclInvalidArgument for ABI
//                 misuse such as a NULL comm) with one WARN naming peer, device and reason
//   finalize      accepts NULL (NCCL 2.28 finalizes after a failed init)
// The adapters call these with the newest ABI's arguments (v12); v6..v10 have one process-wide
// context (legacyContext()) where v11+ pass a per-communicator one.
#pragma once

#include <cstdint>
#include <optional>

#include "nccl/net_v12.h"

namespace railtune::net::boundary {

struct InitCall {
  void** context = nullptr;  // v11+ (NULL there is misuse); NULL for v6..v10, whose context is kept here
  std::optional<uint64_t> commId{};
  const ncclNetCommConfig_v12_t* config = nullptr;  // v11+
  ncclDebugLogger_t logger = nullptr;
  ncclProfilerCallback_t profiler = nullptr;  // v10+
  int abiVersion = 0;
};

ncclResult_t init(const InitCall& call) noexcept;
void* legacyContext() noexcept;  // v6..v10: what their init made; NULL until one succeeded
ncclResult_t devices(int* ndev) noexcept;
ncclResult_t getProperties(int dev, ncclNetProperties_v12_t* props) noexcept;
ncclResult_t listen(void* ctx, int dev, void* handle, void** listenComm) noexcept;
// config: v10 passes one per connection; NULL uses the context's.
ncclResult_t connect(void* ctx, int dev, const ncclNetCommConfig_v12_t* config, void* handle, void** sendComm,
                     ncclNetDeviceHandle_v12_t** sendDevComm) noexcept;
ncclResult_t accept(void* listenComm, void** recvComm, ncclNetDeviceHandle_v12_t** recvDevComm) noexcept;
ncclResult_t regMr(void* comm, void* data, size_t size, int type, void** mhandle) noexcept;
ncclResult_t regMrDmaBuf(void* comm, void* data, size_t size, int type, uint64_t offset, int fd,
                         void** mhandle) noexcept;
ncclResult_t deregMr(void* comm, void* mhandle) noexcept;
ncclResult_t isend(void* sendComm, void* data, size_t size, int tag, void* mhandle, void* phandle,
                   void** request) noexcept;
ncclResult_t irecv(void* recvComm, int n, void** data, size_t* sizes, int* tags, void** mhandles, void** phandles,
                   void** request) noexcept;
ncclResult_t iflush(void* recvComm, int n, void** data, int* sizes, void** mhandles, void** request) noexcept;
ncclResult_t test(void* request, int* done, int* sizes) noexcept;
ncclResult_t closeSend(void* sendComm) noexcept;
ncclResult_t closeRecv(void* recvComm) noexcept;
ncclResult_t closeListen(void* listenComm) noexcept;
ncclResult_t finalize(void* ctx) noexcept;
ncclResult_t setNetAttr(void* ctx, const ncclNetAttr_v12_t* attr) noexcept;
// NIC fusion (v9+): the adapters pass their version's props; maxMembers is that version's limit.
ncclResult_t makeVDevice(int* d, int ndevs, const int* devs, size_t maxMembers) noexcept;

// For an adapter that finds a version-specific argument unusable (a negative int size, too many
// receive buffers): the one WARN, and ncclInvalidArgument.
ncclResult_t rejectArgument(const char* entry, const char* reason) noexcept;

}  // namespace railtune::net::boundary
