// Whether the peer advertises a zero receive window (alive, but its application is not reading):
// nullopt when the kernel does not say (before Linux 5.4) or the call fails. socket_tcp_info.cc.
#pragma once

#include <optional>

namespace railtune::net::socket {

std::optional<bool> peerWindowClosed(int fd);

}  // namespace railtune::net::socket
