// What the TCP setup puts on the wire, in a fixed little-endian layout so that hosts of either byte
// order agree: the 128-byte listen handle NCCL exchanges through its bootstrap, and the hello each
// stream sends first.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "net_plugin/engine.h"
#include "net_plugin/transports/transport.h"

namespace railtune::net::tcp_setup {

// N bytes of an integer, little-endian, whatever the host (the socket transport's message header too).
template <size_t N>
void putLe(std::byte* out, uint64_t value) {
  for (size_t i = 0; i < N; ++i) out[i] = static_cast<std::byte>((value >> (8 * i)) & 0xff);
}
template <size_t N>
uint64_t getLe(const std::byte* in) {
  uint64_t value = 0;
  for (size_t i = 0; i < N; ++i) value |= static_cast<uint64_t>(in[i]) << (8 * i);
  return value;
}

inline constexpr uint32_t kHelloMagic = 0x4c485452;  // "RTHL"
inline constexpr uint16_t kWireVersion = 1;

// After the hellos, each end sends one opaque preamble of kPreambleBytes (transports/transport.h) on
// stream 0 (the connector first) and reads the other's: the plugin's handshake header travels in it.
// The transport only carries the bytes; it leaves reading them to its caller.

struct ListenHandle {
  sockaddr_storage address{};  // family, IP and port of the listening socket
  uint64_t nonce = 0;          // random per listener: a hello must repeat it
};

// Fills all 128 bytes (unused ones zero). The magic tells the transports apart: each writes its own
// (socket_wire.h, ib_wire.h), so a handle never reaches the wrong one.
void encodeHandle(const ListenHandle& handle, std::span<std::byte, kHandleBytes> out, uint32_t magic);
// Throws NetError(InvalidArgument) naming what is wrong: magic (with `badMagic`, the transport's words
// for a handle that is not its own), version, family, port.
ListenHandle decodeHandle(std::span<const std::byte, kHandleBytes> in, uint32_t magic, const char* badMagic);

struct Hello {
  uint64_t nonce = 0;         // the listener's, from its handle
  uint64_t connectionId = 0;  // random per connect: groups the streams of one connection
  int streamIndex = 0;
  int streamCount = 0;
  uint32_t chunkBytes = 0;  // the sender's chunking, which the receiver must follow
};
inline constexpr size_t kHelloBytes = 32;
void encodeHello(const Hello& hello, std::span<std::byte, kHelloBytes> out);
// nullopt: not a railtune hello of this version (a stray or truncated connection).
std::optional<Hello> decodeHello(std::span<const std::byte, kHelloBytes> in);

// "10.0.0.7:43122" or "[fe80::1]:43122".
std::string describeAddress(const sockaddr_storage& address);

}  // namespace railtune::net::tcp_setup
