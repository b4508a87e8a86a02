// Byte layout of the message header (offsets in bytes, little-endian): 0 tag i32 | 4 zero u32 | 8 size u64.
#include "net_plugin/transports/socket/socket_wire.h"

namespace railtune::net::socket {

using tcp_setup::getLe;
using tcp_setup::putLe;

void encodeHandle(const tcp_setup::ListenHandle& handle, std::span<std::byte, kHandleBytes> out) {
  tcp_setup::encodeHandle(handle, out, kHandleMagic);
}

tcp_setup::ListenHandle decodeHandle(std::span<const std::byte, kHandleBytes> in) {
  return tcp_setup::decodeHandle(in, kHandleMagic, "bad magic (not a railtune socket handle)");
}

void encodeMessageHeader(const MessageHeader& header, std::span<std::byte, kMessageHeaderBytes> out) {
  putLe<4>(&out[0], static_cast<uint32_t>(header.tag));
  putLe<4>(&out[4], 0);
  putLe<8>(&out[8], header.size);
}

MessageHeader decodeMessageHeader(std::span<const std::byte, kMessageHeaderBytes> in) {
  MessageHeader header;
  header.tag = static_cast<int32_t>(static_cast<uint32_t>(getLe<4>(&in[0])));
  header.size = getLe<8>(&in[8]);
  return header;
}

}  // namespace railtune::net::socket
