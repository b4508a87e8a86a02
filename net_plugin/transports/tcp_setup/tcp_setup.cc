#include "net_plugin/transports/tcp_setup/tcp_setup.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>

namespace railtune::net::tcp_setup {

SetupListener::SetupListener(int device, Fd fd, uint64_t nonce, const Preamble& preamble)
    : device_(device), fd_(std::move(fd)), nonce_(nonce), preamble_(preamble) {}

Listening openListener(const std::string& bindAddress, int device) {
  Listening out;
  parseAddress(bindAddress, out.handle.address);
  out.fd = openStreamSocket(out.handle.address.ss_family, device);
  bindTo(out.fd, out.handle.address, device);
  if (::listen(out.fd.get(), SOMAXCONN) != 0) {
    throw NetError(ErrorKind::System, "unknown", device, "listen(): " + errorText(errno));
  }
  socklen_t length = sizeof out.handle.address;
  if (getsockname(out.fd.get(), reinterpret_cast<sockaddr*>(&out.handle.address), &length) != 0) {
    throw NetError(ErrorKind::System, "unknown", device, "getsockname(): " + errorText(errno));
  }
  out.handle.nonce = randomU64();
  return out;
}

std::optional<SetupListener::Accepted> SetupListener::acceptStreams() {
  acceptPending();
  readHellos();
  return takeComplete();
}

void SetupListener::close() {
  fd_.reset();
  arriving_.clear();
  partial_.clear();
}

void SetupListener::acceptPending() {
  for (;;) {
    Arriving arriving;
    socklen_t length = sizeof arriving.peer;
    const int fd =
        accept4(fd_.get(), reinterpret_cast<sockaddr*>(&arriving.peer), &length, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      // A connection that went away between SYN and accept is the peer's business, not ours.
      if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO) continue;
      throw NetError(ErrorKind::System, "unknown", device_, "accept(): " + errorText(errno));
    }
    arriving.fd = Fd(fd);
    const int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // latency only; not fatal
    arriving_.push_back(std::move(arriving));
  }
}

void SetupListener::readHellos() {
  for (size_t i = 0; i < arriving_.size();) {
    Arriving& arriving = arriving_[i];
    const long result =
        receiveSome(arriving.fd.get(), arriving.hello.data() + arriving.got, kHelloBytes - arriving.got);
    if (result > 0) arriving.got += static_cast<size_t>(result);
    const bool broken = result < 0;  // closed before its hello was complete, or reset
    std::optional<Hello> hello;
    if (arriving.got == kHelloBytes) hello = decodeHello(arriving.hello);
    const bool valid = hello && hello->nonce == nonce_ && hello->streamCount >= 1 &&
                       hello->streamCount <= kMaxStreams && hello->streamIndex < hello->streamCount &&
                       hello->chunkBytes >= kMinChunkBytes && hello->chunkBytes <= kMaxChunkBytes;
    if (!broken && arriving.got < kHelloBytes) {
      ++i;
      continue;
    }
    if (valid && !broken) place(arriving, *hello);
    arriving_.erase(arriving_.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

void SetupListener::place(Arriving& arriving, const Hello& hello) {
  auto it = std::find_if(partial_.begin(), partial_.end(),
                         [&](const auto& p) { return p->connectionId == hello.connectionId; });
  if (it == partial_.end()) {
    auto partial = std::make_unique<Partial>();
    partial->connectionId = hello.connectionId;
    partial->count = hello.streamCount;
    partial->chunkBytes = hello.chunkBytes;
    partial->streams.count = hello.streamCount;
    it = partial_.insert(partial_.end(), std::move(partial));
  }
  Partial& partial = **it;
  Fd& slot = partial.streams.fds[static_cast<size_t>(hello.streamIndex)];
  if (hello.streamCount != partial.count || hello.chunkBytes != partial.chunkBytes || slot.valid())
    return;  // disagrees with its siblings: not ours
  if (hello.streamIndex == 0) partial.peer = arriving.peer;
  slot = std::move(arriving.fd);
  ++partial.have;
}

std::optional<SetupListener::Accepted> SetupListener::takeComplete() {
  for (auto it = partial_.begin(); it != partial_.end();) {
    Partial& partial = **it;
    bool ready = false;
    if (partial.have == partial.count) {
      try {
        ready = exchangePreambles(partial);
      } catch (const NetError&) {
        it = partial_.erase(it);  // the peer went away mid-handshake: its connect fails, not our accept
        continue;
      }
    }
    if (!ready) {
      ++it;
      continue;
    }
    Accepted accepted{std::move(partial.streams), describeAddress(partial.peer), partial.peerPreamble,
                      partial.chunkBytes};
    partial_.erase(it);
    return accepted;
  }
  return std::nullopt;
}

bool SetupListener::exchangePreambles(Partial& partial) {
  const int fd = partial.streams.fds[0].get();
  const std::string peer = describeAddress(partial.peer);
  while (partial.preambleGot < kPreambleBytes) {
    const long result =
        receiveSome(fd, partial.peerPreamble.data() + partial.preambleGot, kPreambleBytes - partial.preambleGot);
    if (result == kWouldBlock) return false;
    if (result < 0) throw NetError(ErrorKind::Remote, peer, device_, "reading the peer's preamble");
    partial.preambleGot += static_cast<size_t>(result);
  }
  while (partial.preambleSent < kPreambleBytes) {
    const long result =
        sendSome(fd, preamble_.data() + partial.preambleSent, kPreambleBytes - partial.preambleSent, nullptr, 0);
    if (result == kWouldBlock) return false;
    if (result < 0) throw NetError(ErrorKind::Remote, peer, device_, "sending the preamble");
    partial.preambleSent += static_cast<size_t>(result);
  }
  return true;
}

PendingConnect::PendingConnect(int device, const sockaddr_storage& localAddress, const ListenHandle& remote,
                               int streamCount, uint32_t chunkBytes, const Preamble& preamble)
    : device_(device), remote_(remote), preamble_(preamble) {
  streams_.count = streamCount;
  const uint64_t connectionId = randomU64();
  for (int k = 0; k < streamCount; ++k) {
    encodeHello(Hello{remote.nonce, connectionId, k, streamCount, chunkBytes}, state_[static_cast<size_t>(k)].hello);
    startConnect(k, localAddress);
  }
}

void PendingConnect::startConnect(int k, const sockaddr_storage& localAddress) {
  Fd& fd = streams_.fds[static_cast<size_t>(k)];
  fd = openStreamSocket(remote_.address.ss_family, device_);
  bindTo(fd, localAddress, device_);  // leave through the device NCCL asked for
  const auto* address = reinterpret_cast<const sockaddr*>(&remote_.address);
  if (::connect(fd.get(), address, addressLength(remote_.address)) == 0) {
    state_[static_cast<size_t>(k)].connected = true;
  } else if (errno != EINPROGRESS) {
    throw failure("connect(): " + errorText(errno));
  }
}

bool PendingConnect::progress() {
  bool all = true;
  for (int k = 0; k < streams_.count; ++k) all = progressStream(k) && all;
  return all && progressPreamble();
}

// Stream 0, once its hello is out: our preamble, then the listener's answer.
bool PendingConnect::progressPreamble() {
  const int fd = streams_.fds[0].get();
  while (preambleSent_ < kPreambleBytes) {
    const long result = sendSome(fd, preamble_.data() + preambleSent_, kPreambleBytes - preambleSent_, nullptr, 0);
    if (result == kWouldBlock) return false;
    if (result < 0) throw failure("handshake: sending the preamble: " + errorText(static_cast<int>(-result)));
    preambleSent_ += static_cast<size_t>(result);
  }
  while (preambleGot_ < kPreambleBytes) {
    const long result = receiveSome(fd, peerPreamble_.data() + preambleGot_, kPreambleBytes - preambleGot_);
    if (result == kWouldBlock) return false;
    if (result == kClosed)
      throw failure(
          "handshake: the peer closed the connection before its preamble (not a railtune listener, or it refused this "
          "connection)");
    if (result < 0) throw failure("handshake: reading the peer's preamble: " + errorText(static_cast<int>(-result)));
    preambleGot_ += static_cast<size_t>(result);
  }
  return true;
}

bool PendingConnect::progressStream(int k) {
  Stream& stream = state_[static_cast<size_t>(k)];
  const int fd = streams_.fds[static_cast<size_t>(k)].get();
  if (!stream.connected) {
    pollfd ready{fd, POLLOUT, 0};
    if (::poll(&ready, 1, 0) <= 0) return false;
    const int error = pendingError(fd);
    if (error != 0) throw failure("connect(): " + errorText(error));
    stream.connected = true;
  }
  if (stream.sent == kHelloBytes) return true;
  const long result = sendSome(fd, stream.hello.data() + stream.sent, kHelloBytes - stream.sent, nullptr, 0);
  if (result < 0) throw failure("sending the hello: " + errorText(static_cast<int>(-result)));
  stream.sent += static_cast<size_t>(result);
  return stream.sent == kHelloBytes;
}

SetupStreams PendingConnect::takeStreams() {
  return std::move(streams_);
}

NetError PendingConnect::failure(const std::string& reason) const {
  return NetError(ErrorKind::Remote, peer(), device_, reason);
}

}  // namespace railtune::net::tcp_setup
