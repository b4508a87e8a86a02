// SocketEngine's data path and teardown: registration, isend/irecv/iflush/test, close.
#include "net_plugin/transports/socket/socket_comm.h"
#include "net_plugin/transports/socket/socket_engine.h"
#include "net_plugin/transports/socket/socket_setup.h"

namespace railtune::net::socket {
namespace {

CommBase& liveComm(void* comm, const char* call) {
  auto* base = static_cast<CommBase*>(comm);
  if (base == nullptr || (base->kind != CommKind::Send && base->kind != CommKind::Recv)) {
    throw NetError(ErrorKind::InvalidArgument, "unknown", -1,
                   std::string(call) + ": not a socket send or receive comm");
  }
  if (base->closed) {
    throw NetError(ErrorKind::InvalidUsage, base->peer, base->device, std::string(call) + " on a closed comm");
  }
  return *base;
}

template <typename Comm>
Comm& typedComm(void* comm, CommKind kind, const char* call) {
  CommBase& base = liveComm(comm, call);
  if (base.kind != kind) {
    throw NetError(ErrorKind::InvalidArgument, base.peer, base.device, std::string(call) + ": wrong kind of comm");
  }
  return *static_cast<Comm*>(base.object);
}

}  // namespace

MemoryRegion* SocketEngine::registerMemory(void* comm, void* /*data*/, size_t /*size*/, MemoryType type) {
  CommBase& base = liveComm(comm, "registerMemory");
  if (type == MemoryType::Cuda) {
    throw NetError(ErrorKind::InvalidArgument, base.peer, base.device,
                   "the socket transport cannot register CUDA memory (no GPU path: it advertises host pointers only)");
  }
  return reinterpret_cast<MemoryRegion*>(&hostRegion_);
}

MemoryRegion* SocketEngine::registerDmaBuf(void* comm, void* /*data*/, size_t /*size*/, uint64_t /*offset*/,
                                           int /*fd*/) {
  CommBase& base = liveComm(comm, "registerDmaBuf");
  throw NetError(ErrorKind::InvalidArgument, base.peer, base.device,
                 "the socket transport does not support DMA-BUF registration (host pointers only)");
}

void SocketEngine::deregisterMemory(void* comm, MemoryRegion* region) {
  CommBase& base = liveComm(comm, "deregisterMemory");
  if (region != reinterpret_cast<MemoryRegion*>(&hostRegion_)) {
    throw NetError(ErrorKind::InvalidArgument, base.peer, base.device, "deregisterMemory: not a region of this engine");
  }
}

Request* SocketEngine::isend(SendComm* comm, void* data, size_t size, int tag, MemoryRegion* /*region*/,
                             void* profilerHandle) {
  auto& send = typedComm<SocketSendComm>(comm, CommKind::Send, "isend");
  if (size > options_.maxMessageBytes) {
    throw NetError(
        ErrorKind::InvalidArgument, send.base.peer, send.base.device,
        "isend of " + std::to_string(size) + " bytes exceeds maxP2pBytes " + std::to_string(options_.maxMessageBytes));
  }
  if (data == nullptr && size > 0) {
    throw NetError(ErrorKind::InvalidArgument, send.base.peer, send.base.device, "isend: NULL data");
  }
  SendSlot* slot = send.post(data, size, tag, profilerHandle);
  return slot == nullptr ? nullptr : reinterpret_cast<Request*>(static_cast<RequestBase*>(slot));
}

Request* SocketEngine::irecv(RecvComm* comm, std::span<const RecvBuffer> buffers) {
  auto& recv = typedComm<SocketRecvComm>(comm, CommKind::Recv, "irecv");
  if (buffers.empty() || buffers.size() > static_cast<size_t>(kMaxRecvs)) {
    throw NetError(ErrorKind::InvalidArgument, recv.base.peer, recv.base.device,
                   "irecv of " + std::to_string(buffers.size()) + " buffers (1.." + std::to_string(kMaxRecvs) + ")");
  }
  for (const RecvBuffer& buffer : buffers) {
    if (buffer.data == nullptr && buffer.size > 0) {
      throw NetError(ErrorKind::InvalidArgument, recv.base.peer, recv.base.device, "irecv: NULL buffer");
    }
  }
  RecvSlot* slot = recv.post(buffers);
  return slot == nullptr ? nullptr : reinterpret_cast<Request*>(static_cast<RequestBase*>(slot));
}

// Host memory: the data is in place once test reported the receive, so a flush has nothing to wait for.
Request* SocketEngine::iflush(RecvComm* comm, std::span<const RecvBuffer> /*buffers*/) {
  auto& recv = typedComm<SocketRecvComm>(comm, CommKind::Recv, "iflush");
  return reinterpret_cast<Request*>(&recv.flushRequest);
}

Completion SocketEngine::test(Request* request) {
  auto* base = reinterpret_cast<RequestBase*>(request);
  if (base == nullptr || base->state != SlotState::Posted) {
    throw NetError(ErrorKind::InvalidUsage, "unknown", -1,
                   "test on a request that is not in flight (already reported done, or never posted)");
  }
  switch (base->kind) {
    case RequestKind::Send:
      return static_cast<SocketSendComm*>(base->owner)->test(*static_cast<SendSlot*>(base));
    case RequestKind::Recv:
      return static_cast<SocketRecvComm*>(base->owner)->test(*static_cast<RecvSlot*>(base));
    case RequestKind::Flush:
      break;
  }
  Completion done;
  done.done = true;
  return done;
}

void SocketEngine::closeSend(SendComm* comm) {
  typedComm<SocketSendComm>(comm, CommKind::Send, "closeSend").close();
}

void SocketEngine::closeRecv(RecvComm* comm) {
  typedComm<SocketRecvComm>(comm, CommKind::Recv, "closeRecv").close();
}

void SocketEngine::closeListen(ListenComm* listener) {
  auto* base = reinterpret_cast<CommBase*>(listener);
  if (base == nullptr || base->kind != CommKind::Listen) {
    throw NetError(ErrorKind::InvalidArgument, "unknown", -1, "closeListen: not a socket listen comm");
  }
  if (base->closed) throw NetError(ErrorKind::InvalidUsage, "unknown", base->device, "closeListen on a closed comm");
  static_cast<SocketListenComm*>(base->object)->close();
}

// Peers, flows and the collectives in use do not change how a TCP stream is driven; the stream
// count is the transport's own option. The hints matter to the verbs transport (QP placement).
void SocketEngine::setNetAttributes(std::optional<uint64_t> /*commId*/, const NetAttributes& /*attributes*/) {}

int SocketEngine::makeVirtualDevice(std::span<const int> /*members*/, size_t /*maxMembers*/) {
  throw NetError(ErrorKind::InvalidUsage, "unknown", -1,
                 "the socket transport has physical devices only; NIC fusion belongs to the plugin's device table");
}

}  // namespace railtune::net::socket
