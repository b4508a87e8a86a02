// Byte layouts (offsets in bytes, integers little-endian unless noted):
//   handle: 0 magic u32 | 4 version u16 | 6 family u16 (4 or 6) | 8 port u16 (network order) |
//           16 address (4 or 16 bytes) | 32 nonce u64 | zero to 128
//   hello:  0 magic u32 | 4 version u16 | 6 stream index u8 | 7 stream count u8 | 8 nonce u64 |
//           16 connection id u64 | 24 chunk bytes u32 | 28 zero u32
#include "net_plugin/transports/tcp_setup/setup_wire.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

namespace railtune::net::tcp_setup {
namespace {

[[noreturn]] void badHandle(const std::string& what) {
  throw NetError(ErrorKind::InvalidArgument, "unknown", -1, "malformed socket handle: " + what);
}

}  // namespace

void encodeHandle(const ListenHandle& handle, std::span<std::byte, kHandleBytes> out, uint32_t magic) {
  std::fill(out.begin(), out.end(), std::byte{0});
  putLe<4>(&out[0], magic);
  putLe<2>(&out[4], kWireVersion);
  if (handle.address.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&handle.address);
    putLe<2>(&out[6], 4);
    std::memcpy(&out[8], &v4->sin_port, 2);
    std::memcpy(&out[16], &v4->sin_addr, 4);
  } else {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&handle.address);
    putLe<2>(&out[6], 6);
    std::memcpy(&out[8], &v6->sin6_port, 2);
    std::memcpy(&out[16], &v6->sin6_addr, 16);
  }
  putLe<8>(&out[32], handle.nonce);
}

ListenHandle decodeHandle(std::span<const std::byte, kHandleBytes> in, uint32_t magic, const char* badMagic) {
  if (getLe<4>(&in[0]) != magic) badHandle(badMagic);
  const uint64_t version = getLe<2>(&in[4]);
  if (version != kWireVersion) {
    badHandle("version " + std::to_string(version) + ", this build speaks " + std::to_string(kWireVersion));
  }
  ListenHandle handle;
  const uint64_t family = getLe<2>(&in[6]);
  uint16_t port = 0;
  std::memcpy(&port, &in[8], 2);
  if (port == 0) badHandle("port 0");
  if (family == 4) {
    auto* v4 = reinterpret_cast<sockaddr_in*>(&handle.address);
    v4->sin_family = AF_INET;
    v4->sin_port = port;
    std::memcpy(&v4->sin_addr, &in[16], 4);
  } else if (family == 6) {
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&handle.address);
    v6->sin6_family = AF_INET6;
    v6->sin6_port = port;
    std::memcpy(&v6->sin6_addr, &in[16], 16);
  } else {
    badHandle("address family " + std::to_string(family) + " (expected 4 or 6)");
  }
  handle.nonce = getLe<8>(&in[32]);
  return handle;
}

void encodeHello(const Hello& hello, std::span<std::byte, kHelloBytes> out) {
  putLe<4>(&out[0], kHelloMagic);
  putLe<2>(&out[4], kWireVersion);
  putLe<1>(&out[6], static_cast<uint64_t>(hello.streamIndex));
  putLe<1>(&out[7], static_cast<uint64_t>(hello.streamCount));
  putLe<8>(&out[8], hello.nonce);
  putLe<8>(&out[16], hello.connectionId);
  putLe<4>(&out[24], hello.chunkBytes);
  putLe<4>(&out[28], 0);
}

std::optional<Hello> decodeHello(std::span<const std::byte, kHelloBytes> in) {
  if (getLe<4>(&in[0]) != kHelloMagic || getLe<2>(&in[4]) != kWireVersion) return std::nullopt;
  Hello hello;
  hello.streamIndex = static_cast<int>(getLe<1>(&in[6]));
  hello.streamCount = static_cast<int>(getLe<1>(&in[7]));
  hello.nonce = getLe<8>(&in[8]);
  hello.connectionId = getLe<8>(&in[16]);
  hello.chunkBytes = static_cast<uint32_t>(getLe<4>(&in[24]));
  return hello;
}

std::string describeAddress(const sockaddr_storage& address) {
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    return std::string(text) + ":" + std::to_string(ntohs(v4->sin_port));
  }
  if (address.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
    inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
    return "[" + std::string(text) + "]:" + std::to_string(ntohs(v6->sin6_port));
  }
  return "unknown";
}

}  // namespace railtune::net::tcp_setup
