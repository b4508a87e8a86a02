// See net_bench_raw.h. Written from the wire rule alone (header on stream 0, chunk j on stream
// j mod N); it shares no code with net_plugin/transports/socket/.
#include "bench/net_bench_raw.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace railtune::bench {
namespace {

constexpr size_t kHeaderBytes = 16;  // int32 tag, 4 bytes padding, uint64 size
constexpr int32_t kRawTag = 0;

[[noreturn]] void fail(const std::string& what, int error) {
  throw BenchError("raw TCP " + what + ": " + std::strerror(error));
}

bool wouldBlock(int error) {
  return error == EAGAIN || error == EWOULDBLOCK || error == EINTR;
}

struct Cursor {
  uint64_t message = 0;  // which message this stream is at
  size_t chunk = 0;      // which of its chunks
  size_t offset = 0;     // how far into that chunk
};

// The streams, the per-stream cursors and the chunk geometry both ends share.
class RawEndpoint : public Endpoint {
 public:
  RawEndpoint(std::vector<int> fds, size_t chunkBytes) : fds_(std::move(fds)), chunkBytes_(chunkBytes) {
    for (size_t k = 0; k < fds_.size(); ++k) cursors_[k] = Cursor{0, k, 0};
  }
  ~RawEndpoint() override {
    for (int fd : fds_) ::close(fd);
  }
  void useBuffer(void* /*data*/, size_t /*size*/) override {}  // TCP needs no registration

 protected:
  size_t streams() const { return fds_.size(); }
  size_t chunkCount(size_t size) const { return (size + chunkBytes_ - 1) / chunkBytes_; }
  size_t chunkLength(size_t size, size_t chunk) const { return std::min(chunkBytes_, size - chunk * chunkBytes_); }
  size_t chunkStart(size_t chunk) const { return chunk * chunkBytes_; }
  void nextMessage(Cursor& cursor, size_t k) { cursor = Cursor{cursor.message + 1, k, 0}; }
  void nextChunk(Cursor& cursor) { cursor = Cursor{cursor.message, cursor.chunk + streams(), 0}; }

  std::vector<int> fds_;
  std::array<Cursor, kRawMaxStreams> cursors_{};
  size_t chunkBytes_;
  uint64_t posted_ = 0;
  uint64_t freed_ = 0;
};

struct OutMessage {
  const std::byte* data = nullptr;
  size_t size = 0;
  size_t left = 0;
  bool headerSent = false;
  bool reported = false;
};

class RawSender final : public RawEndpoint {
 public:
  using RawEndpoint::RawEndpoint;

  void* post(void* data, size_t size) override {
    if (posted_ - freed_ == kRawMaxInFlight) return nullptr;
    OutMessage& message = ring_[posted_ % kRawMaxInFlight];
    message = OutMessage{static_cast<const std::byte*>(data), size, size, false, false};
    ++posted_;
    progress();
    return &message;
  }

  bool test(void* request, size_t& bytes) override {
    progress();
    auto& message = *static_cast<OutMessage*>(request);
    if (!message.headerSent || message.left != 0) return false;
    bytes = message.size;
    message.reported = true;
    while (freed_ < posted_ && ring_[freed_ % kRawMaxInFlight].reported) ++freed_;
    return true;
  }

 private:
  void progress() {
    for (size_t k = 0; k < streams(); ++k) progressStream(k);
  }

  // Writes what stream k owes until the socket would block or nothing posted is left for it.
  void progressStream(size_t k) {
    Cursor& cursor = cursors_[k];
    while (cursor.message < posted_) {
      OutMessage& message = ring_[cursor.message % kRawMaxInFlight];
      const bool header = k == 0 && !message.headerSent;
      const bool chunk = cursor.chunk < chunkCount(message.size);
      if (!header && !chunk) {
        nextMessage(cursor, k);
        continue;
      }
      iovec parts[2];
      size_t count = 0;
      if (header) {
        if (headerDone_ == 0) encodeHeader(message.size);
        parts[count++] = iovec{header_.data() + headerDone_, kHeaderBytes - headerDone_};
      }
      const size_t length = chunk ? chunkLength(message.size, cursor.chunk) : 0;
      if (chunk) {
        auto* from = const_cast<std::byte*>(message.data + chunkStart(cursor.chunk) + cursor.offset);
        parts[count++] = iovec{from, length - cursor.offset};
      }
      msghdr out{};
      out.msg_iov = parts;
      out.msg_iovlen = count;
      const ssize_t sent = ::sendmsg(fds_[k], &out, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (sent < 0) {
        if (wouldBlock(errno)) return;
        fail("send on stream " + std::to_string(k), errno);
      }
      size_t moved = static_cast<size_t>(sent);
      if (header) moved -= takeHeader(moved, message);
      cursor.offset += moved;
      message.left -= moved;
      if (chunk && cursor.offset == length) nextChunk(cursor);
    }
  }

  void encodeHeader(uint64_t size) {
    header_.fill(std::byte{0});
    std::memcpy(header_.data(), &kRawTag, sizeof kRawTag);
    std::memcpy(header_.data() + 8, &size, sizeof size);
  }

  // How many of `moved` bytes were header bytes.
  size_t takeHeader(size_t moved, OutMessage& message) {
    const size_t part = std::min(moved, kHeaderBytes - headerDone_);
    headerDone_ += part;
    if (headerDone_ == kHeaderBytes) {
      message.headerSent = true;
      headerDone_ = 0;
    }
    return part;
  }

  std::array<OutMessage, kRawMaxInFlight> ring_{};
  std::array<std::byte, kHeaderBytes> header_{};
  size_t headerDone_ = 0;
};

struct InMessage {
  std::byte* data = nullptr;
  size_t capacity = 0;
  size_t size = 0;
  size_t left = 0;
  bool known = false;  // its header was read
  bool reported = false;
};

class RawReceiver final : public RawEndpoint {
 public:
  using RawEndpoint::RawEndpoint;

  void* post(void* data, size_t size) override {
    if (posted_ - freed_ == kRawMaxInFlight) return nullptr;
    InMessage& message = ring_[posted_ % kRawMaxInFlight];
    message = InMessage{static_cast<std::byte*>(data), size, 0, 0, false, false};
    ++posted_;
    progress();
    return &message;
  }

  bool test(void* request, size_t& bytes) override {
    progress();
    auto& message = *static_cast<InMessage*>(request);
    if (!message.known || message.left != 0) return false;
    bytes = message.size;
    message.reported = true;
    while (freed_ < posted_ && ring_[freed_ % kRawMaxInFlight].reported) ++freed_;
    return true;
  }

 private:
  void progress() {
    for (size_t k = 0; k < streams(); ++k) progressStream(k);  // stream 0 first: it reads the headers
  }

  // Reads what stream k carries next straight into the posted buffers until the socket is empty
  // or the stream waits for a header not read yet.
  void progressStream(size_t k) {
    Cursor& cursor = cursors_[k];
    for (;;) {
      if (cursor.message == known_ && (k != 0 || !readHeader())) return;
      InMessage& message = ring_[cursor.message % kRawMaxInFlight];
      if (cursor.chunk >= chunkCount(message.size)) {
        nextMessage(cursor, k);
        continue;
      }
      const size_t length = chunkLength(message.size, cursor.chunk);
      std::byte* into = message.data + chunkStart(cursor.chunk) + cursor.offset;
      const ssize_t got = ::recv(fds_[k], into, length - cursor.offset, MSG_DONTWAIT);
      if (got == 0) throw BenchError("raw TCP: the peer closed stream " + std::to_string(k));
      if (got < 0) {
        if (wouldBlock(errno)) return;
        fail("receive on stream " + std::to_string(k), errno);
      }
      cursor.offset += static_cast<size_t>(got);
      message.left -= static_cast<size_t>(got);
      if (cursor.offset == length) nextChunk(cursor);
    }
  }

  // Reads the next header, once a posted receive waits for it. true: a message became known.
  bool readHeader() {
    if (known_ == posted_) return false;
    while (headerGot_ < kHeaderBytes) {
      const ssize_t got = ::recv(fds_[0], header_.data() + headerGot_, kHeaderBytes - headerGot_, MSG_DONTWAIT);
      if (got == 0) throw BenchError("raw TCP: the peer closed stream 0");
      if (got < 0) {
        if (wouldBlock(errno)) return false;
        fail("receive on stream 0", errno);
      }
      headerGot_ += static_cast<size_t>(got);
    }
    headerGot_ = 0;
    int32_t tag = 0;
    uint64_t size = 0;
    std::memcpy(&tag, header_.data(), sizeof tag);
    std::memcpy(&size, header_.data() + 8, sizeof size);
    InMessage& message = ring_[known_ % kRawMaxInFlight];
    if (tag != kRawTag || size > message.capacity) {
      throw BenchError("raw TCP: header with tag " + std::to_string(tag) + " and size " + std::to_string(size) +
                       " does not fit the posted receive");
    }
    message.size = size;
    message.left = size;
    message.known = true;
    ++known_;
    return true;
  }

  std::array<InMessage, kRawMaxInFlight> ring_{};
  std::array<std::byte, kHeaderBytes> header_{};
  size_t headerGot_ = 0;
  uint64_t known_ = 0;  // messages whose header was read
};

// Blocking socket calls for the setup; every stream is switched to non-blocking before use.
int openSocket() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail("socket()", errno);
  return fd;
}

// The options the plugin's transport gives its streams: TCP_NODELAY, non-blocking.
void tune(int fd) {
  const int one = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) fail("setsockopt(TCP_NODELAY)", errno);
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) fail("fcntl(O_NONBLOCK)", errno);
}

// Opens `streams` connections to a listener on 127.0.0.1; each sends its index first, so that the
// accepting side puts stream k at position k whatever order accept returns them in.
void connectStreams(int streams, std::vector<int>& senders, std::vector<int>& receivers) {
  const int listener = openSocket();
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closeListener{listener};
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) fail("bind(127.0.0.1)", errno);
  if (::listen(listener, kRawMaxStreams) != 0) fail("listen()", errno);
  socklen_t length = sizeof address;
  if (::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0) fail("getsockname()", errno);
  for (int k = 0; k < streams; ++k) {
    senders.push_back(openSocket());
    if (::connect(senders.back(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) fail("connect()", errno);
    const auto index = static_cast<unsigned char>(k);
    if (::send(senders.back(), &index, 1, MSG_NOSIGNAL) != 1) fail("send(stream index)", errno);
  }
  receivers.assign(static_cast<size_t>(streams), -1);
  for (int k = 0; k < streams; ++k) {
    const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) fail("accept()", errno);
    unsigned char index = 0;
    if (::recv(fd, &index, 1, MSG_WAITALL) != 1 || index >= streams || receivers[index] != -1) {
      ::close(fd);
      throw BenchError("raw TCP: a stream did not send a valid index");
    }
    receivers[index] = fd;
  }
  for (int fd : senders) tune(fd);
  for (int fd : receivers) tune(fd);
}

}  // namespace

Link makeRawLink(int streams, size_t chunkBytes) {
  if (streams < 1 || streams > kRawMaxStreams) throw BenchError("raw TCP: streams must be 1..16");
  if (chunkBytes == 0) throw BenchError("raw TCP: chunk size must be positive");
  std::vector<int> senders;
  std::vector<int> receivers;
  try {
    connectStreams(streams, senders, receivers);
  } catch (...) {
    for (int fd : senders) ::close(fd);
    for (int fd : receivers)
      if (fd >= 0) ::close(fd);
    throw;
  }
  return Link{std::make_unique<RawSender>(std::move(senders), chunkBytes),
              std::make_unique<RawReceiver>(std::move(receivers), chunkBytes)};
}

}  // namespace railtune::bench
