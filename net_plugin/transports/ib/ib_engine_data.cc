// IbEngine's data path and teardown: registration, isend/irecv/iflush/test, close.
#include <cstring>
#include <stdexcept>

#include "net_plugin/transports/ib/ib_engine.h"

namespace railtune::net::ib {
namespace {

template <typename Comm>
Comm& typedComm(IbCommBase& base, IbCommKind kind, const char* call) {
  if (base.kind != kind)
    throw NetError(ErrorKind::InvalidArgument, base.peer, base.device, std::string(call) + ": wrong kind of comm");
  return *static_cast<Comm*>(base.object);
}

}  // namespace

MemoryRegion* IbEngine::registerMemory(void* comm, void* data, size_t size, MemoryType type) {
  IbCommBase& base = liveComm(comm, "registerMemory");
  if (type == MemoryType::Cuda && !options_.peerMemory) {
    throw NetError(ErrorKind::InvalidArgument, base.peer, base.device,
                   "CUDA memory without a peer-memory module (nvidia_peermem): this device advertised host pointers "
                   "and DMA-BUF only");
  }
  IbPort& p = portOf(base.device);
  auto region = std::make_unique<IbRegion>();
  region->port = &p;
  try {
    region->mr = p.mrCache->acquire(data, size);
  } catch (const std::runtime_error& e) {
    throw NetError(ErrorKind::System, base.peer, base.device,
                   "registering " + std::to_string(size) + " bytes on " + p.where() + ": " + e.what());
  }
  std::lock_guard lock(regionsMutex_);
  regions_.insert(region.get());
  return reinterpret_cast<MemoryRegion*>(region.release());
}

MemoryRegion* IbEngine::registerDmaBuf(void* comm, void* data, size_t size, uint64_t offset, int fd) {
  IbCommBase& base = liveComm(comm, "registerDmaBuf");
  IbPort& p = portOf(base.device);
  if (!dmabuf_[static_cast<size_t>(base.device)]) {
    throw NetError(ErrorKind::InvalidArgument, base.peer, base.device,
                   p.where() + " did not advertise DMA-BUF (ibv_reg_dmabuf_mr unsupported)");
  }
  auto region = std::make_unique<IbRegion>();
  region->port = &p;
  try {
    region->mr = p.mrCache->acquire(data, size, fd, offset);
  } catch (const std::runtime_error& e) {
    throw NetError(ErrorKind::System, base.peer, base.device,
                   "registering DMA-BUF fd " + std::to_string(fd) + " on " + p.where() + ": " + e.what());
  }
  std::lock_guard lock(regionsMutex_);
  regions_.insert(region.get());
  return reinterpret_cast<MemoryRegion*>(region.release());
}

void IbEngine::deregisterMemory(void* comm, MemoryRegion* handle) {
  IbCommBase& base = liveComm(comm, "deregisterMemory");
  auto* region = reinterpret_cast<IbRegion*>(handle);
  {
    std::lock_guard lock(regionsMutex_);
    if (regions_.erase(region) == 0) {
      throw NetError(ErrorKind::InvalidArgument, base.peer, base.device,
                     "deregisterMemory: not a region of this engine");
    }
  }
  const std::string where = region->port->where();
  const int rc = region->port->mrCache->release(region->mr);
  delete region;
  if (rc != 0) {  // as NCCL's ncclIbDeregMr, which returns the failure of ibv_dereg_mr
    throw NetError(ErrorKind::System, base.peer, base.device,
                   "ibv_dereg_mr on " + where + " failed: " + std::strerror(rc));
  }
}

Request* IbEngine::isend(SendComm* comm, void* data, size_t size, int tag, MemoryRegion* region, void* profilerHandle) {
  auto& send = typedComm<IbSendComm>(liveComm(comm, "isend"), IbCommKind::Send, "isend");
  if (size > options_.maxMessageBytes) {
    throw NetError(
        ErrorKind::InvalidArgument, send.base.peer, send.base.device,
        "isend of " + std::to_string(size) + " bytes exceeds maxP2pBytes " + std::to_string(options_.maxMessageBytes));
  }
  if (size > 0 && (data == nullptr || region == nullptr)) {
    throw NetError(ErrorKind::InvalidArgument, send.base.peer, send.base.device,
                   data == nullptr ? "isend: NULL data" : "isend: no memory region (NCCL registers every buffer)");
  }
  IbSendRequest* request = send.post(data, size, tag, reinterpret_cast<const IbRegion*>(region), profilerHandle);
  return reinterpret_cast<Request*>(static_cast<IbRequestBase*>(request));
}

Request* IbEngine::irecv(RecvComm* comm, std::span<const RecvBuffer> buffers) {
  auto& recv = typedComm<IbRecvComm>(liveComm(comm, "irecv"), IbCommKind::Recv, "irecv");
  if (buffers.empty() || buffers.size() > static_cast<size_t>(kMaxRecvs)) {
    throw NetError(ErrorKind::InvalidArgument, recv.base.peer, recv.base.device,
                   "irecv of " + std::to_string(buffers.size()) + " buffers (1.." + std::to_string(kMaxRecvs) + ")");
  }
  for (const RecvBuffer& buffer : buffers) {
    if (buffer.size > 0 && (buffer.data == nullptr || buffer.region == nullptr)) {
      throw NetError(ErrorKind::InvalidArgument, recv.base.peer, recv.base.device,
                     buffer.data == nullptr ? "irecv: NULL buffer" : "irecv: a buffer without a memory region");
    }
  }
  IbRecvRequest* request = recv.post(buffers);
  return reinterpret_cast<Request*>(static_cast<IbRequestBase*>(request));
}

Request* IbEngine::iflush(RecvComm* comm, std::span<const RecvBuffer> buffers) {
  auto& recv = typedComm<IbRecvComm>(liveComm(comm, "iflush"), IbCommKind::Recv, "iflush");
  IbFlushRequest* request = recv.flush(buffers);
  return reinterpret_cast<Request*>(static_cast<IbRequestBase*>(request));
}

Completion IbEngine::test(Request* handle) {
  auto* base = reinterpret_cast<IbRequestBase*>(handle);
  if (base == nullptr) throw NetError(ErrorKind::InvalidUsage, "unknown", -1, "test on a NULL request");
  if (base->kind == IbRequestKind::Flush) {
    auto* recv = static_cast<IbRecvComm*>(base->owner);
    auto* flush = static_cast<IbFlushRequest*>(base);
    if (recv->base.closed)  // its QP and CQ are gone
      throw NetError(ErrorKind::InvalidUsage, recv->base.peer, recv->base.device, "test of a flush after closeRecv");
    if (flush != &recv->doneFlush && !flush->posted)
      throw NetError(ErrorKind::InvalidUsage, recv->base.peer, recv->base.device,
                     "test on a flush already reported done");
    return recv->testFlush(*flush);
  }
  if (!base->posted) {
    throw NetError(ErrorKind::InvalidUsage, "unknown", -1,
                   "test on a request that is not in flight (already reported done, or never posted)");
  }
  if (base->kind == IbRequestKind::Send) {
    auto* send = static_cast<IbSendComm*>(base->owner);
    if (send->base.closed)
      throw NetError(ErrorKind::InvalidUsage, send->base.peer, send->base.device, "test after closeSend");
    return send->test(*static_cast<IbSendRequest*>(base));
  }
  auto* recv = static_cast<IbRecvComm*>(base->owner);
  if (recv->base.closed)
    throw NetError(ErrorKind::InvalidUsage, recv->base.peer, recv->base.device, "test after closeRecv");
  return recv->test(*static_cast<IbRecvRequest*>(base));
}

// A verbs object that will not go (EBUSY: an async event not acknowledged, a provider refusing) is one WARN
// naming the connection and every call that failed; the comm is closed either way.
void IbEngine::closeSend(SendComm* comm) {
  auto& send = typedComm<IbSendComm>(liveComm(comm, "closeSend"), IbCommKind::Send, "closeSend");
  const std::string failures = send.close();
  if (!failures.empty()) note(true, "closeSend of the connection to " + send.base.peer + ": " + failures);
}

void IbEngine::closeRecv(RecvComm* comm) {
  auto& recv = typedComm<IbRecvComm>(liveComm(comm, "closeRecv"), IbCommKind::Recv, "closeRecv");
  const std::string failures = recv.close();
  if (!failures.empty()) note(true, "closeRecv of the connection from " + recv.base.peer + ": " + failures);
}

void IbEngine::closeListen(ListenComm* listener) {
  auto* base = reinterpret_cast<IbCommBase*>(listener);
  if (base == nullptr || base->kind != IbCommKind::Listen)
    throw NetError(ErrorKind::InvalidArgument, "unknown", -1, "closeListen: not a verbs listen comm");
  if (base->closed) throw NetError(ErrorKind::InvalidUsage, "unknown", base->device, "closeListen on a closed comm");
  base->closed = true;
  auto* listen = static_cast<IbListenComm*>(base->object);
  listen->accepting.clear();
  listen->oob->close();
}

}  // namespace railtune::net::ib
