// What the socket transport puts on the wire besides its setup (tcp_setup/setup_wire.h): its listen
// handle's magic, and the header before each message, little-endian whatever the host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "net_plugin/transports/tcp_setup/setup_wire.h"

namespace railtune::net::socket {

inline constexpr uint32_t kHandleMagic = 0x4b535452;  // "RTSK"

// The setup's handle under the socket transport's magic. decodeHandle throws NetError(InvalidArgument).
void encodeHandle(const tcp_setup::ListenHandle& handle, std::span<std::byte, kHandleBytes> out);
tcp_setup::ListenHandle decodeHandle(std::span<const std::byte, kHandleBytes> in);

struct MessageHeader {
  int32_t tag = 0;
  uint64_t size = 0;
};
inline constexpr size_t kMessageHeaderBytes = 16;
void encodeMessageHeader(const MessageHeader& header, std::span<std::byte, kMessageHeaderBytes> out);
MessageHeader decodeMessageHeader(std::span<const std::byte, kMessageHeaderBytes> in);

}  // namespace railtune::net::socket
