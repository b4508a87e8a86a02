// The socket transport's listen comm: the TCP setup's listener (tcp_setup/tcp_setup.h) whose accepted
// streams become a receive comm that follows the sender's chunking.
#pragma once

#include <memory>

#include "net_plugin/transports/socket/socket_comm.h"
#include "net_plugin/transports/tcp_setup/tcp_setup.h"

namespace railtune::net::socket {

class SocketListenComm {
 public:
  SocketListenComm(int device, tcp_setup::SetupListener listener);
  CommBase base{CommKind::Listen};

  // A connection whose streams have all arrived, or NULL. Throws NetError(System) when the listening
  // socket itself fails.
  std::unique_ptr<SocketRecvComm> acceptOne(const SocketEngineOptions& options);
  void close();

 private:
  tcp_setup::SetupListener listener_;
};

}  // namespace railtune::net::socket
