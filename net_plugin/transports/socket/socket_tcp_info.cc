// The peer's advertised receive window, from the kernel's TCP_INFO. Its own file because the kernel's
// struct tcp_info (linux/tcp.h) has the field and glibc's (netinet/tcp.h) does not, and the two
// headers cannot be included together.
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>

#include "net_plugin/transports/socket/socket_tcp_info.h"

namespace railtune::net::socket {

std::optional<bool> peerWindowClosed(int fd) {
  tcp_info info{};
  socklen_t length = sizeof info;
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return std::nullopt;
  // Kernels before 5.4 return a shorter struct without the field: they cannot tell.
  if (length < offsetof(tcp_info, tcpi_snd_wnd) + sizeof info.tcpi_snd_wnd) return std::nullopt;
  return info.tcpi_snd_wnd == 0;
}

}  // namespace railtune::net::socket
