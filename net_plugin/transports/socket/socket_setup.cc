#include "net_plugin/transports/socket/socket_setup.h"

#include <optional>
#include <utility>

namespace railtune::net::socket {

SocketListenComm::SocketListenComm(int device, tcp_setup::SetupListener listener) : listener_(std::move(listener)) {
  base.object = this;
  base.device = device;
}

std::unique_ptr<SocketRecvComm> SocketListenComm::acceptOne(const SocketEngineOptions& options) {
  std::optional<tcp_setup::SetupListener::Accepted> accepted = listener_.acceptStreams();
  if (!accepted) return nullptr;
  SocketEngineOptions followed = options;
  followed.chunkBytes = accepted->chunkBytes;  // the sender's chunking decides where bytes travel
  auto comm =
      std::make_unique<SocketRecvComm>(base.device, accepted->peer, StreamSet(std::move(accepted->streams)), followed);
  comm->base.peerPreamble = accepted->peerPreamble;
  return comm;
}

void SocketListenComm::close() {
  base.closed = true;
  listener_.close();
}

}  // namespace railtune::net::socket
