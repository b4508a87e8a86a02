// The NVLink stand-in's setup (connect.h): abstract Unix sockets, so no path is left behind.
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "emulator/net_job/connect.h"
#include "emulator/net_job/connect_internal.h"

namespace railtune::emu::netjob {
namespace {

socklen_t abstractAddress(const std::string& prefix, int rank, sockaddr_un& addr) {
  const std::string name = prefix + "-" + std::to_string(rank);
  std::memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  if (name.size() + 1 > sizeof addr.sun_path) throw std::runtime_error("NVLink socket name too long: " + name);
  std::memcpy(addr.sun_path + 1, name.data(), name.size());
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
}

[[noreturn]] void sysFail(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

void setNonBlocking(int fd) {
  if (::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) sysFail("fcntl");
}

// Reads exactly n bytes from a blocking socket, waiting at most until the deadline.
void readExactly(int fd, void* out, size_t n, Clock::time_point deadline, const std::string& what) {
  size_t got = 0;
  while (got < n) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd p{fd, POLLIN, 0};
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000))) < 0)
      throw std::runtime_error(what + ": timed out");
    if ((p.revents & (POLLIN | POLLHUP)) == 0) continue;
    const ssize_t r = ::recv(fd, static_cast<char*>(out) + got, n - got, 0);
    if (r <= 0) throw std::runtime_error(what + ": the peer closed the socket");
    got += static_cast<size_t>(r);
  }
}

}  // namespace

int listenNvlink(const std::string& prefix, int rank) {
  sockaddr_un addr;
  const socklen_t len = abstractAddress(prefix, rank, addr);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) sysFail("socket");
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(fd, 1024) != 0) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    sysFail("listening on the NVLink stand-in of rank " + std::to_string(rank));
  }
  return fd;
}

// Connects to the receiver's listener and says who is calling (4 bytes: the sender's rank).
std::unique_ptr<Link> connectNvlink(const ConnectSpec& spec, int peer) {
  sockaddr_un addr;
  const socklen_t len = abstractAddress(spec.nvlinkName, peer, addr);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) sysFail("socket");
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    sysFail("connecting the NVLink stand-in to rank " + std::to_string(peer));
  }
  const int32_t me = spec.rank;
  if (::send(fd, &me, sizeof me, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof me)) {
    ::close(fd);
    sysFail("greeting rank " + std::to_string(peer) + " over the NVLink stand-in");
  }
  setNonBlocking(fd);
  return makeNvlinkLink(fd, peer, true);
}

// Accepts one incoming NVLink edge if one is waiting; nullptr otherwise. `peer` is set from its greeting.
std::unique_ptr<Link> acceptNvlink(const ConnectSpec& spec, int& peer) {
  pollfd p{spec.nvlinkListenFd, POLLIN, 0};
  if (::poll(&p, 1, 0) <= 0) return nullptr;
  const int fd = ::accept4(spec.nvlinkListenFd, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) {
    if (errno == EAGAIN || errno == EINTR) return nullptr;
    sysFail("accepting an NVLink stand-in connection");
  }
  int32_t from = -1;
  try {
    readExactly(fd, &from, sizeof from, spec.deadline, "rank " + std::to_string(spec.rank) + ": NVLink greeting");
    setNonBlocking(fd);
  } catch (...) {
    ::close(fd);
    throw;
  }
  peer = from;
  return makeNvlinkLink(fd, from, false);
}

}  // namespace railtune::emu::netjob
