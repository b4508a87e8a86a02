// The socket transport's wire: its listen handle (the TCP setup's under the socket magic) and the message header.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "net_plugin/transports/socket/socket_wire.h"
#include "net_plugin/transports/tcp_setup/tcp_socket.h"

namespace railtune::net::socket {
namespace {

TEST(NetSocketWire, HandleCarriesTheSocketMagic) {
  tcp_setup::ListenHandle handle;
  ASSERT_TRUE(tcp_setup::parseAddress("10.1.2.3", handle.address));
  reinterpret_cast<sockaddr_in*>(&handle.address)->sin_port = htons(43122);
  handle.nonce = 77;
  std::array<std::byte, kHandleBytes> bytes{};
  encodeHandle(handle, bytes);
  EXPECT_EQ(decodeHandle(bytes).nonce, 77u);

  std::array<std::byte, kHandleBytes> verbs{};
  tcp_setup::encodeHandle(handle, verbs, 0x42495452);  // "RTIB", the verbs transport's magic
  try {
    decodeHandle(verbs);
    FAIL() << "a verbs handle was taken for a socket handle";
  } catch (const NetError& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("bad magic (not a railtune socket handle)"), std::string::npos)
        << error.what();
  }
}

TEST(NetSocketWire, MessageHeaderRoundTrips) {
  std::array<std::byte, kMessageHeaderBytes> header{};
  encodeMessageHeader(MessageHeader{-7, (uint64_t{1} << 33) + 5}, header);
  const MessageHeader decoded = decodeMessageHeader(header);
  EXPECT_EQ(decoded.tag, -7);
  EXPECT_EQ(decoded.size, (uint64_t{1} << 33) + 5);
}

}  // namespace
}  // namespace railtune::net::socket
