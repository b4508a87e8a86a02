// SocketEngine: argument checks, comm ownership and dispatch to the comms (socket_send.cc,
// socket_recv.cc, socket_setup.cc). Pointers handed to NCCL are the comms' CommBase and the
// requests' RequestBase, so each call can tell what it was given and whether it was closed.
#include "net_plugin/transports/socket/socket_engine.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <set>

#include "net_plugin/transports/socket/socket_comm.h"
#include "net_plugin/transports/socket/socket_setup.h"

namespace railtune::net::socket {
namespace {

[[noreturn]] void invalid(int device, const std::string& reason) {
  throw NetError(ErrorKind::InvalidArgument, "unknown", device, reason);
}

CommBase& commBase(void* comm, CommKind kind, const char* call) {
  auto* base = static_cast<CommBase*>(comm);
  if (base == nullptr || base->kind != kind) invalid(-1, std::string(call) + ": not a socket comm of the right kind");
  if (base->closed) {
    throw NetError(ErrorKind::InvalidUsage, base->peer, base->device, std::string(call) + " on a closed comm");
  }
  return *base;
}

std::array<std::byte, kPreambleBytes> preambleOf(const SocketDevice& device) {
  std::array<std::byte, kPreambleBytes> out{};
  std::copy_n(device.preamble.begin(), std::min(device.preamble.size(), out.size()), out.begin());
  return out;
}

void checkOptions(const SocketEngineOptions& options) {
  if (options.streams < 1 || options.streams > kMaxStreams) {
    invalid(-1, "streams per connection must be 1.." + std::to_string(kMaxStreams) + ", not " +
                    std::to_string(options.streams));
  }
  if (options.timeoutSeconds < 1) invalid(-1, "timeout must be at least 1 second");
  if (options.chunkBytes < kMinChunkBytes || options.chunkBytes > kMaxChunkBytes) {
    invalid(-1,
            "chunk size must be " + std::to_string(kMinChunkBytes) + ".." + std::to_string(kMaxChunkBytes) + " bytes");
  }
  if (options.maxMessageBytes == 0 || options.maxMessageBytes > static_cast<size_t>(INT_MAX)) {
    invalid(-1, "maximum message size must be 1.." + std::to_string(INT_MAX) + " bytes (NCCL takes sizes as int)");
  }
}

}  // namespace

SocketEngine::SocketEngine(std::vector<SocketDevice> devices, SocketEngineOptions options)
    : devices_(std::move(devices)), options_(options) {
  checkOptions(options_);
  std::set<std::string> names;
  for (size_t i = 0; i < devices_.size(); ++i) {
    const int dev = static_cast<int>(i);
    sockaddr_storage address{};
    if (devices_[i].name.empty() || !names.insert(devices_[i].name).second) {
      invalid(dev, "device " + std::to_string(i) + ": empty or duplicate name '" + devices_[i].name + "'");
    }
    if (!devices_[i].preamble.empty() && devices_[i].preamble.size() != kPreambleBytes) {
      invalid(dev, "device " + devices_[i].name + ": a preamble must be " + std::to_string(kPreambleBytes) + " bytes");
    }
    if (!tcp_setup::parseAddress(devices_[i].bindAddress, address)) {
      invalid(dev, "device " + devices_[i].name + ": bind address '" + devices_[i].bindAddress +
                       "' is not a numeric IPv4 or IPv6 address");
    }
  }
}

SocketEngine::~SocketEngine() = default;

const SocketDevice& SocketEngine::device(int dev) const {
  if (dev < 0 || static_cast<size_t>(dev) >= devices_.size()) {
    invalid(dev, "device " + std::to_string(dev) + " out of range (" + std::to_string(devices_.size()) + " devices)");
  }
  return devices_[static_cast<size_t>(dev)];
}

DeviceProperties SocketEngine::properties(int dev) {
  const SocketDevice& d = device(dev);
  DeviceProperties p;
  p.name = d.name.c_str();
  p.pciPath = d.pciPath.empty() ? nullptr : d.pciPath.c_str();
  p.guid = static_cast<uint64_t>(dev);  // as NCCL's own socket transport: distinct per device
  p.pointerSupport = kPointerHost;
  p.speedMbps = d.speedMbps;
  p.maxComms = 65536;
  p.maxRecvs = kMaxRecvs;
  p.nPhysicalDevices = 1;
  p.physicalDevices[0] = dev;
  p.maxP2pBytes = options_.maxMessageBytes;
  p.maxCollBytes = options_.maxMessageBytes;
  p.railId = d.railId;
  p.planeId = d.planeId;
  return p;
}

ListenComm* SocketEngine::listen(int dev, const CommConfig& /*config: no traffic classes on TCP yet*/,
                                 std::span<std::byte, kHandleBytes> handle) {
  const SocketDevice& d = device(dev);
  tcp_setup::Listening listening = tcp_setup::openListener(d.bindAddress, dev);
  encodeHandle(listening.handle, handle);
  auto comm = std::make_unique<SocketListenComm>(
      dev, tcp_setup::SetupListener(dev, std::move(listening.fd), listening.handle.nonce, preambleOf(d)));
  CommBase* base = &comm->base;
  std::lock_guard lock(commsMutex_);
  listenComms_.push_back(std::move(comm));
  return reinterpret_cast<ListenComm*>(base);
}

SendComm* SocketEngine::connect(int dev, const CommConfig& /*config*/,
                                std::span<const std::byte, kHandleBytes> handle) {
  const SocketDevice& d = device(dev);
  const tcp_setup::ListenHandle remote = decodeHandle(handle);
  sockaddr_storage local{};
  tcp_setup::parseAddress(d.bindAddress, local);
  if (local.ss_family != remote.address.ss_family) {
    invalid(dev, "device " + d.name + " (" + d.bindAddress + ") cannot reach " +
                     tcp_setup::describeAddress(remote.address) + ": different address families");
  }
  std::unique_ptr<tcp_setup::PendingConnect> done;
  {
    std::lock_guard lock(connectMutex_);
    const auto key = std::make_pair(remote.nonce, dev);
    auto it = pendingConnects_.find(key);
    if (it == pendingConnects_.end()) {
      auto pending = std::make_unique<tcp_setup::PendingConnect>(
          dev, local, remote, options_.streams, static_cast<uint32_t>(options_.chunkBytes), preambleOf(d));
      it = pendingConnects_.emplace(key, std::move(pending)).first;
    }
    bool ready = false;
    try {
      ready = it->second->progress();
    } catch (...) {
      pendingConnects_.erase(it);  // NCCL fails the connection; a retry starts afresh
      throw;
    }
    if (!ready) return nullptr;
    done = std::move(it->second);
    pendingConnects_.erase(it);
  }
  auto comm = std::make_unique<SocketSendComm>(dev, done->peer(), StreamSet(done->takeStreams()), options_);
  comm->base.peerPreamble = done->peerPreamble();
  CommBase* base = &comm->base;
  std::lock_guard lock(commsMutex_);
  sendComms_.push_back(std::move(comm));
  return reinterpret_cast<SendComm*>(base);
}

RecvComm* SocketEngine::accept(ListenComm* listener) {
  CommBase& base = commBase(listener, CommKind::Listen, "accept");
  std::unique_ptr<SocketRecvComm> comm = static_cast<SocketListenComm*>(base.object)->acceptOne(options_);
  if (!comm) return nullptr;
  CommBase* handed = &comm->base;
  std::lock_guard lock(commsMutex_);
  recvComms_.push_back(std::move(comm));
  return reinterpret_cast<RecvComm*>(handed);
}

SocketEngine::ConnectionFacts SocketEngine::describe(void* comm) const {
  auto* base = static_cast<CommBase*>(comm);
  if (base == nullptr || (base->kind != CommKind::Send && base->kind != CommKind::Recv)) {
    invalid(-1, "describe: not a socket send or receive comm");
  }
  return ConnectionFacts{base->peer, base->streams, base->peerPreamble};
}

void SocketEngine::attach(void* comm, const Attachments& attachments) {
  auto* base = static_cast<CommBase*>(comm);
  if (base == nullptr || (base->kind != CommKind::Send && base->kind != CommKind::Recv)) {
    invalid(-1, "attach: not a socket send or receive comm");
  }
  base->attached = attachments;
}

void* SocketEngine::userOf(void* comm) const {
  auto* base = static_cast<CommBase*>(comm);
  if (base == nullptr || (base->kind != CommKind::Send && base->kind != CommKind::Recv)) {
    invalid(-1, "not a socket send or receive comm");
  }
  return base->closed ? nullptr : base->attached.user;
}

}  // namespace railtune::net::socket
