// What travels on the wire, in a fixed little-endian layout so that hosts of either byte order
// agree: the 128-byte listen handle NCCL exchanges through its bootstrap, the hello each stream
// sends first, and the header before each message.
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

namespace railtune::net::socket {

inline constexpr uint32_t kHandleMagic = 0x4b535452;  // "RTSK"
inline constexpr uint32_t kHelloMagic = 0x4c485452;   // "RTHL"
inline constexpr uint16_t kWireVersion = 1;

// After the hellos, each end sends one opaque preamble of kPreambleBytes (transports/transport.h) on
// stream 0 (the connector first) and reads the other's: the plugin's handshake header travels in it.
// The transport only carries the bytes; it leaves reading them to its caller.

struct ListenHandle {
  sockaddr_storage address{};  // family, IP and port of the listening socket
  uint64_t nonce = 0;          // random per listener: a hello must repeat it
};

// Fills all 128 bytes (unused ones zero). The magic tells the transports apart: the verbs transport, whose
// out-of-band connection is made the same way, writes its own, so a handle never reaches the wrong one.
void encodeHandle(const ListenHandle& handle, std::span<std::byte, kHandleBytes> out, uint32_t magic = kHandleMagic);
// Throws NetError(InvalidArgument) naming what is wrong: magic, version, family, port.
ListenHandle decodeHandle(std::span<const std::byte, kHandleBytes> in, uint32_t magic = kHandleMagic);

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

struct MessageHeader {
  int32_t tag = 0;
  uint64_t size = 0;
};
inline constexpr size_t kMessageHeaderBytes = 16;
void encodeMessageHeader(const MessageHeader& header, std::span<std::byte, kMessageHeaderBytes> out);
MessageHeader decodeMessageHeader(std::span<const std::byte, kMessageHeaderBytes> in);

// "10.0.0.7:43122" or "[fe80::1]:43122".
std::string describeAddress(const sockaddr_storage& address);

}  // namespace railtune::net::socket
