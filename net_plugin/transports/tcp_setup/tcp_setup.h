// The TCP setup stream both transports connect with, without blocking: the listener collects incoming
// streams and their hellos until all N streams of one connection are in; a pending connect opens N
// streams and sends the hellos. Then the preambles cross on stream 0: the connector's first, the
// listener's in answer, so each end knows the other before the first message. Each is progressed by
// the repeated accept/connect calls NCCL makes. The socket transport then carries its data on the N
// streams; the verbs transport sets its QPs up over one and keeps it to watch the peer.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "net_plugin/transports/tcp_setup/setup_wire.h"
#include "net_plugin/transports/tcp_setup/tcp_socket.h"

namespace railtune::net::tcp_setup {

// What a hello may carry: at most kMaxStreams streams, chunks of kMinChunkBytes..kMaxChunkBytes.
inline constexpr int kMaxStreams = 16;
inline constexpr size_t kMinChunkBytes = 4096;
inline constexpr size_t kMaxChunkBytes = size_t{1} << 30;

using Preamble = std::array<std::byte, kPreambleBytes>;

// The connected streams of one connection, stream 0 first.
struct SetupStreams {
  int count = 0;
  std::array<Fd, kMaxStreams> fds;
};

// A listening TCP socket on `bindAddress` (numeric; the kernel picks the port) and the handle naming it, with a
// fresh random nonce. Throws NetError(System) naming the call that failed.
struct Listening {
  Fd fd;
  ListenHandle handle;
};
Listening openListener(const std::string& bindAddress, int device);

class SetupListener {
 public:
  SetupListener(int device, Fd fd, uint64_t nonce, const Preamble& preamble);

  // The streams of one connection whose preambles have crossed, or nullopt. Throws NetError(System) when
  // the listening socket itself fails. A stream without a valid hello (a stray connection, a port
  // scanner, a peer that died mid-handshake) is closed and forgotten: it is not this job's.
  struct Accepted {
    SetupStreams streams;
    std::string peer;
    Preamble peerPreamble{};
    uint32_t chunkBytes = 0;  // the connector's, from its hellos
  };
  std::optional<Accepted> acceptStreams();
  void close();

 private:
  struct Arriving {
    Fd fd;
    sockaddr_storage peer{};
    std::array<std::byte, kHelloBytes> hello{};
    size_t got = 0;
  };
  struct Partial {
    uint64_t connectionId = 0;
    int count = 0;
    int have = 0;
    uint32_t chunkBytes = 0;
    sockaddr_storage peer{};
    SetupStreams streams;
    Preamble peerPreamble{};
    size_t preambleGot = 0;
    size_t preambleSent = 0;
  };

  void acceptPending();
  void readHellos();
  void place(Arriving& arriving, const Hello& hello);
  std::optional<Accepted> takeComplete();
  // false while the preambles are still crossing; throws NetError when the peer went away.
  bool exchangePreambles(Partial& partial);

  int device_;
  Fd fd_;
  uint64_t nonce_;
  Preamble preamble_;
  std::vector<Arriving> arriving_;
  std::vector<std::unique_ptr<Partial>> partial_;
};

class PendingConnect {
 public:
  // Opens the streams bound to localAddress and starts connecting them. Throws NetError.
  PendingConnect(int device, const sockaddr_storage& localAddress, const ListenHandle& remote, int streamCount,
                 uint32_t chunkBytes, const Preamble& preamble);
  // true once every stream is connected and has sent its hello, and the preambles have crossed.
  // Throws NetError(Remote) when the peer refuses, resets or closes.
  bool progress();
  SetupStreams takeStreams();
  const Preamble& peerPreamble() const { return peerPreamble_; }
  std::string peer() const { return describeAddress(remote_.address); }

 private:
  struct Stream {
    bool connected = false;
    std::array<std::byte, kHelloBytes> hello{};
    size_t sent = 0;
  };
  void startConnect(int k, const sockaddr_storage& localAddress);
  bool progressStream(int k);
  bool progressPreamble();
  NetError failure(const std::string& reason) const;

  int device_;
  ListenHandle remote_;
  SetupStreams streams_;
  std::array<Stream, kMaxStreams> state_{};
  Preamble preamble_;
  size_t preambleSent_ = 0;
  Preamble peerPreamble_{};
  size_t preambleGot_ = 0;
};

}  // namespace railtune::net::tcp_setup
