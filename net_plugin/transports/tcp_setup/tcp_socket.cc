#include "net_plugin/transports/tcp_setup/tcp_socket.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <random>

#include "net_plugin/engine.h"

namespace railtune::net::tcp_setup {

void Fd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool parseAddress(const std::string& text, sockaddr_storage& out) {
  out = sockaddr_storage{};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&out);
  if (inet_pton(AF_INET, text.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    return true;
  }
  out = sockaddr_storage{};
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&out);
  if (inet_pton(AF_INET6, text.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    return true;
  }
  return false;
}

socklen_t addressLength(const sockaddr_storage& address) {
  return address.ss_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
}

Fd openStreamSocket(int family, int device) {
  Fd fd(::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) throw NetError(ErrorKind::System, "unknown", device, "socket(): " + errorText(errno));
  const int one = 1;
  if (setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) {
    throw NetError(ErrorKind::System, "unknown", device, "setsockopt(TCP_NODELAY): " + errorText(errno));
  }
  return fd;
}

void bindTo(const Fd& fd, const sockaddr_storage& address, int device) {
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&address), addressLength(address)) != 0) {
    throw NetError(ErrorKind::System, "unknown", device, "bind(): " + errorText(errno));
  }
}

int setPendingTimeouts(int fd, bool on, int timeoutSeconds) {
  // Probes start after a third of the timeout and repeat every sixth; TCP_USER_TIMEOUT then bounds
  // both unacknowledged data and unanswered probes to the timeout itself.
  const int enable = on ? 1 : 0;
  const int idle = std::max(1, timeoutSeconds / 3);
  const int interval = std::max(1, timeoutSeconds / 6);
  const int count = 3;
  const unsigned userTimeoutMs = on ? static_cast<unsigned>(timeoutSeconds) * 1000u : 0u;
  bool ok = setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &enable, sizeof enable) == 0;
  if (on) {
    ok = ok && setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle) == 0;
    ok = ok && setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval) == 0;
    ok = ok && setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count) == 0;
  }
  ok = ok && setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &userTimeoutMs, sizeof userTimeoutMs) == 0;
  return ok ? 0 : errno;
}

long sendSome(int fd, const void* header, size_t headerBytes, const void* data, size_t dataBytes) {
  iovec parts[2];
  int n = 0;
  if (headerBytes > 0) parts[n++] = iovec{const_cast<void*>(header), headerBytes};
  if (dataBytes > 0) parts[n++] = iovec{const_cast<void*>(data), dataBytes};
  msghdr message{};
  message.msg_iov = parts;
  message.msg_iovlen = static_cast<size_t>(n);
  // MSG_NOSIGNAL: a peer that went away is an error to report, not a SIGPIPE for the job.
  const ssize_t sent = ::sendmsg(fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
  if (sent >= 0) return static_cast<long>(sent);
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return kWouldBlock;
  return -errno;
}

long receiveSome(int fd, void* data, size_t bytes) {
  const ssize_t got = ::recv(fd, data, bytes, MSG_DONTWAIT);
  if (got > 0) return static_cast<long>(got);
  if (got == 0) return kClosed;
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return kWouldBlock;
  return -errno;
}

int pendingError(int fd) {
  int error = 0;
  socklen_t length = sizeof error;
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) return errno;
  return error;
}

std::string errorText(int error) {
  char buffer[128] = {};
  return std::string(strerror_r(error, buffer, sizeof buffer));
}

uint64_t randomU64() {
  uint64_t value = 0;
  if (getrandom(&value, sizeof value, 0) == static_cast<ssize_t>(sizeof value)) return value;
  // getrandom cannot fail for 8 bytes once the pool is ready; this keeps nonces distinct regardless.
  static thread_local std::mt19937_64 fallback{std::random_device{}()};
  return fallback();
}

uint64_t monotonicMs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000u + static_cast<uint64_t>(now.tv_nsec) / 1000000u;
}

uint64_t monotonicNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000u + static_cast<uint64_t>(now.tv_nsec);
}

}  // namespace railtune::net::tcp_setup
