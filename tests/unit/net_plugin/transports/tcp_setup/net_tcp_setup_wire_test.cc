// The TCP setup's wire layouts: the 128-byte handle under a transport's magic, the hello; numeric addresses.
#include <gtest/gtest.h>

#include <array>
#include <cstring>

#include "net_plugin/transports/tcp_setup/setup_wire.h"
#include "net_plugin/transports/tcp_setup/tcp_socket.h"

namespace railtune::net::tcp_setup {
namespace {

constexpr uint32_t kMagic = 0x54534554;  // any transport's

ListenHandle sampleHandle(const char* address, uint16_t port) {
  ListenHandle handle;
  EXPECT_TRUE(parseAddress(address, handle.address));
  if (handle.address.ss_family == AF_INET) {
    reinterpret_cast<sockaddr_in*>(&handle.address)->sin_port = htons(port);
  } else {
    reinterpret_cast<sockaddr_in6*>(&handle.address)->sin6_port = htons(port);
  }
  handle.nonce = 0x0123456789abcdefull;
  return handle;
}

std::string decodeError(const std::array<std::byte, kHandleBytes>& bytes) {
  try {
    decodeHandle(bytes, kMagic, "bad magic (not this transport's)");
  } catch (const NetError& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    return error.what();
  }
  return "accepted";
}

TEST(NetTcpSetupWire, HandleRoundTripsIpv4AndIpv6) {
  for (const char* address : {"10.1.2.3", "fe80::1234"}) {
    const ListenHandle handle = sampleHandle(address, 43122);
    std::array<std::byte, kHandleBytes> bytes{};
    bytes.fill(std::byte{0x5a});
    encodeHandle(handle, bytes, kMagic);
    EXPECT_EQ(bytes[127], std::byte{0}) << "unused bytes are zeroed";
    const ListenHandle back = decodeHandle(bytes, kMagic, "bad magic");
    EXPECT_EQ(back.nonce, handle.nonce);
    EXPECT_EQ(describeAddress(back.address), describeAddress(handle.address));
  }
  EXPECT_EQ(describeAddress(sampleHandle("10.1.2.3", 43122).address), "10.1.2.3:43122");
  EXPECT_EQ(describeAddress(sampleHandle("fe80::1234", 7).address), "[fe80::1234]:7");
}

TEST(NetTcpSetupWire, MalformedHandlesAreRejectedWithTheReason) {
  std::array<std::byte, kHandleBytes> good{};
  encodeHandle(sampleHandle("10.1.2.3", 43122), good, kMagic);

  std::array<std::byte, kHandleBytes> zero{};
  EXPECT_NE(decodeError(zero).find("bad magic (not this transport's)"), std::string::npos);
  auto otherMagic = good;
  otherMagic[0] ^= std::byte{1};
  EXPECT_NE(decodeError(otherMagic).find("bad magic (not this transport's)"), std::string::npos)
      << "a handle of another transport is refused";

  auto version = good;
  version[4] = std::byte{9};
  EXPECT_NE(decodeError(version).find("version 9"), std::string::npos);

  auto family = good;
  family[6] = std::byte{5};
  EXPECT_NE(decodeError(family).find("address family 5"), std::string::npos);

  auto port = good;
  port[8] = port[9] = std::byte{0};
  EXPECT_NE(decodeError(port).find("port 0"), std::string::npos);
}

TEST(NetTcpSetupWire, HelloRoundTrips) {
  std::array<std::byte, kHelloBytes> hello{};
  encodeHello(Hello{42, 0xfeedface12345678ull, 3, 16, 65536}, hello);
  const auto back = decodeHello(hello);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->nonce, 42u);
  EXPECT_EQ(back->connectionId, 0xfeedface12345678ull);
  EXPECT_EQ(back->streamIndex, 3);
  EXPECT_EQ(back->streamCount, 16);
  EXPECT_EQ(back->chunkBytes, 65536u);
  hello[0] = std::byte{0};
  EXPECT_FALSE(decodeHello(hello).has_value());
}

TEST(NetTcpSetupWire, AddressesMustBeNumeric) {
  sockaddr_storage address{};
  EXPECT_TRUE(parseAddress("127.0.0.1", address));
  EXPECT_EQ(address.ss_family, AF_INET);
  EXPECT_TRUE(parseAddress("::1", address));
  EXPECT_EQ(address.ss_family, AF_INET6);
  EXPECT_FALSE(parseAddress("localhost", address));
  EXPECT_FALSE(parseAddress("", address));
}

}  // namespace
}  // namespace railtune::net::tcp_setup
