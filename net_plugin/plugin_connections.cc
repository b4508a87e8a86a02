// PluginEngine's connections: the checks when one is established (handshake header, configuration
// digest, rail), its path log records, and the data path, which adds one branch per call (the first
// transfer names the rank) before handing over to the transport.
#include <string>

#include "formats/handshake.h"
#include "net_plugin/plugin_connection.h"
#include "net_plugin/plugin_engine.h"
#include "net_plugin/served_gpu.h"

namespace railtune::net {
namespace {

std::string peerName(const formats::path_log::HandshakeHeader& peer) {
  return peer.host + " pid " + std::to_string(peer.pid);
}

std::string railText(int rail) {
  return rail >= 0 ? "rail " + std::to_string(rail) : std::string("rail unknown");
}

}  // namespace

formats::path_log::HandshakeHeader PluginEngine::checkedPeer(void* comm, const Transport::ConnectionFacts& facts,
                                                             int vdev, bool send, bool& digestMatch) {
  const auto closeTransport = [&] {
    send ? transport_->closeSend(static_cast<SendComm*>(comm)) : transport_->closeRecv(static_cast<RecvComm*>(comm));
  };
  const formats::path_log::HandshakeDecode decoded = formats::path_log::decodeHandshake(facts.peerPreamble);
  if (!decoded.header) {
    closeTransport();
    throw NetError(ErrorKind::Remote, facts.peer, vdev, "handshake: " + decoded.error);
  }
  const formats::path_log::HandshakeHeader& peer = *decoded.header;
  const formats::path_log::DigestComparison digest = formats::path_log::compareDigests(options_.digest, peer);
  if (!digest.match && options_.strict) {
    closeTransport();
    throw NetError(ErrorKind::Remote, peerName(peer), vdev, digest.text + "; RAILTUNE_STRICT=1 fails the connection");
  }
  if (!digest.match && limitWarning(digestWarnings_, "configuration digest mismatches")) {
    RT_WARN(log_, NCCL_NET | NCCL_INIT, "%s", digest.text.c_str());
  }
  digestMatch = digest.match;
  return peer;
}

void* PluginEngine::adopt(void* comm, int vdev, bool send, std::optional<uint64_t> commId) {
  const Transport::ConnectionFacts facts = transport_->describe(comm);
  bool digestMatch = false;
  const formats::path_log::HandshakeHeader peer = checkedPeer(comm, facts, vdev, send, digestMatch);

  const int physical = physicalOf(vdev);
  const NetDevice& actual =
      physical == table_.properties(vdev).physicalDevices[0] ? table_.device(vdev) : table_.physical()[physical];
  const ServedGpu gpu =
      resolveServedGpu(options_.cudaBusId ? options_.cudaBusId() : currentCudaBusId(), host_, options_.env);
  auto connection = std::make_unique<Connection>();
  formats::path_log::PathRecord& record = connection->record;
  record.kind = formats::path_log::RecordKind::Connect;
  record.connection = options_.pathLog ? options_.pathLog->newConnection() : 0;
  record.comm = commId;
  record.direction = send ? formats::path_log::Direction::Send : formats::path_log::Direction::Recv;
  record.transport.assign(transport_->name());
  record.streams = facts.streams;
  record.verbs = facts.verbs;
  record.local.device = vdev;
  record.local.hca.assign(actual.name);
  record.local.netdev.assign(actual.netdev);
  record.local.rail = actual.rail;
  record.local.plane = actual.plane;
  record.local.gpu = gpu.index;
  record.expectedRail = expectedRail(host_, gpu.index);
  formats::path_log::describePeer(peer, options_.digest, &record);
  connection->hca = actual.name;
  connection->netdev = actual.netdev;
  connection->peerHost = peer.host;
  connection->profiler = options_.profiler;

  const char* direction = send ? "send to" : "receive from";
  RT_INFO(log_, NCCL_NET | NCCL_INIT, "connection %s %s (%s %s) on device %d %s %s, GPU %d (%s): %s", direction,
          peerName(peer).c_str(), peer.hca.c_str(), railText(peer.rail).c_str(), vdev, actual.name.c_str(),
          railText(actual.rail).c_str(), gpu.index, gpu.source.c_str(),
          digestMatch ? "digests match" : "DIGESTS DIFFER");
  if (record.expectedRail >= 0 && actual.rail >= 0 && record.expectedRail != actual.rail &&
      limitWarning(railWarnings_, "cross-rail connections")) {
    RT_WARN(log_, NCCL_NET,
            "connection %s %s leaves through %s (%s) but serves GPU %d (%s), whose rail map rail is %d: "
            "cross-rail traffic (a NIC bound to the wrong GPU, or NCCL_CROSS_NIC)",
            direction, peerName(peer).c_str(), actual.name.c_str(), railText(actual.rail).c_str(), gpu.index,
            gpu.source.c_str(), record.expectedRail);
  }

  Connection* raw = connection.get();
  transport_->attach(
      comm, Attachments{options_.pathLog ? raw->counters.get() : nullptr, options_.profiler ? raw : nullptr, raw});
  std::lock_guard lock(setupMutex_);
  connections_[comm] = std::move(connection);
  return comm;
}

// The connect record waits for the first transfer: NCCL's tag is the sender's rank, so a send names
// this rank and a receive names the peer's.
void PluginEngine::announce(Connection& connection, int tag) {
  connection.announced = true;
  if (connection.record.direction == formats::path_log::Direction::Send) {
    connection.record.rank = tag;
  } else {
    connection.record.remote.rank = tag;
  }
  if (options_.pathLog) options_.pathLog->record(connection.record, connection.counters);
}

void PluginEngine::close(void* comm, bool send) {
  // The transport first: misuse (a comm closed twice, of the wrong kind) throws before anything changes.
  send ? transport_->closeSend(static_cast<SendComm*>(comm)) : transport_->closeRecv(static_cast<RecvComm*>(comm));
  std::unique_ptr<Connection> connection;
  {
    std::lock_guard lock(setupMutex_);
    const auto it = connections_.find(comm);
    if (it != connections_.end()) {
      connection = std::move(it->second);
      connections_.erase(it);
    }
  }
  if (connection) transport_->attach(comm, Attachments{});  // the closed shell keeps no pointer to it
  if (!connection || !options_.pathLog) return;
  if (!connection->announced) options_.pathLog->record(connection->record, connection->counters);
  formats::path_log::PathRecord closing;
  closing.kind = formats::path_log::RecordKind::Close;
  closing.connection = connection->record.connection;
  closing.comm = connection->record.comm;
  closing.rank = connection->record.rank;
  options_.pathLog->record(closing, connection->counters);
}

MemoryRegion* PluginEngine::registerMemory(void* comm, void* data, size_t size, MemoryType type) {
  return transport_->registerMemory(comm, data, size, type);
}

MemoryRegion* PluginEngine::registerDmaBuf(void* comm, void* data, size_t size, uint64_t offset, int fd) {
  return transport_->registerDmaBuf(comm, data, size, offset, fd);
}

void PluginEngine::deregisterMemory(void* comm, MemoryRegion* region) {
  transport_->deregisterMemory(comm, region);
}

Request* PluginEngine::isend(SendComm* comm, void* data, size_t size, int tag, MemoryRegion* region,
                             void* profilerHandle) {
  auto* connection = static_cast<Connection*>(transport_->userOf(comm));
  if (connection != nullptr && !connection->announced) announce(*connection, tag);
  return transport_->isend(comm, data, size, tag, region, profilerHandle);
}

Request* PluginEngine::irecv(RecvComm* comm, std::span<const RecvBuffer> buffers) {
  auto* connection = static_cast<Connection*>(transport_->userOf(comm));
  if (connection != nullptr && !connection->announced && !buffers.empty()) announce(*connection, buffers[0].tag);
  return transport_->irecv(comm, buffers);
}

Request* PluginEngine::iflush(RecvComm* comm, std::span<const RecvBuffer> buffers) {
  return transport_->iflush(comm, buffers);
}

Completion PluginEngine::test(Request* request) {
  return transport_->test(request);
}

void PluginEngine::closeSend(SendComm* comm) {
  close(comm, true);
}

void PluginEngine::closeRecv(RecvComm* comm) {
  close(comm, false);
}

void PluginEngine::closeListen(ListenComm* listener) {
  transport_->closeListen(listener);
  std::lock_guard lock(setupMutex_);
  listeners_.erase(listener);
}

void PluginEngine::setNetAttributes(std::optional<uint64_t> commId, const NetAttributes& attributes) {
  transport_->setNetAttributes(commId, attributes);
}

}  // namespace railtune::net
