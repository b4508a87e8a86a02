// The TCP socket calls both transports make, each wrapped once: non-blocking sockets, address parsing,
// the fault-detection options, and I/O results reduced to "moved n bytes", "would block", "closed"
// or an errno. The socket transport carries its data over such sockets; the verbs transport its setup.
#pragma once

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace railtune::net::tcp_setup {

// Owns one file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = other.release();
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset();

 private:
  int fd_ = -1;
};

// false when text is not a numeric IPv4 or IPv6 address; the port is set to 0.
bool parseAddress(const std::string& text, sockaddr_storage& out);
socklen_t addressLength(const sockaddr_storage& address);

// A non-blocking, close-on-exec TCP socket with TCP_NODELAY (messages are latency-bound). Throws
// NetError(System) naming what failed.
Fd openStreamSocket(int family, int device);
// Binds to address (its port included) or throws NetError(System).
void bindTo(const Fd& fd, const sockaddr_storage& address, int device);

// Keepalive and TCP_USER_TIMEOUT on (a dead or silent peer surfaces as ETIMEDOUT within about
// timeoutSeconds) or off (the kernel defaults: an idle connection is never cut). Returns errno or 0.
int setPendingTimeouts(int fd, bool on, int timeoutSeconds);

// Result of one non-blocking transfer: > 0 bytes moved; kWouldBlock; kClosed (peer's FIN, receive
// only); otherwise -errno.
inline constexpr long kWouldBlock = 0;
inline constexpr long kClosed = -1000000;
long sendSome(int fd, const void* header, size_t headerBytes, const void* data, size_t dataBytes);
long receiveSome(int fd, void* data, size_t bytes);

// The pending error of a socket (SO_ERROR), 0 when none.
int pendingError(int fd);
std::string errorText(int error);

uint64_t randomU64();
uint64_t monotonicMs();  // coarse: for timers of a second
uint64_t monotonicNs();  // precise: for busy time

}  // namespace railtune::net::tcp_setup
