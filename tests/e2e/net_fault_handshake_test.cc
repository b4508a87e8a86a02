// A connection set-up that stops half-way. On the listening side, a raw TCP client that sends half
// a stream hello, or a whole hello and half of the 360-byte railtune header, then stalls or hangs
// up: accept keeps returning NULL without blocking, and a real connection afterwards still gets
// through. On the connecting side, a raw server that hangs up (or resets) in the middle of the
// handshake: connect fails within 5 s with one WARN instead of waiting for ever.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "formats/handshake.h"
#include "net_plugin/transports/socket/socket_wire.h"
#include "net_plugin/transports/tcp_setup/setup_wire.h"
#include "tests/e2e/net_fault_harness.h"

namespace railtune::testing::netfault {
namespace {

namespace wire = net::socket;
namespace setup = net::tcp_setup;

// A plain TCP socket of the test's own; closes on destruction.
class RawSocket {
 public:
  RawSocket() : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {}
  explicit RawSocket(int fd) : fd_(fd) {}
  ~RawSocket() { close(); }
  RawSocket(RawSocket&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;
  int fd() const { return fd_; }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  // Closing then sends a reset (RST) instead of an orderly FIN.
  void resetOnClose() {
    const linger abort{1, 0};
    setsockopt(fd_, SOL_SOCKET, SO_LINGER, &abort, sizeof abort);
  }
  bool sendAll(const std::byte* data, size_t size) {
    return ::send(fd_, data, size, MSG_NOSIGNAL) == static_cast<ssize_t>(size);
  }

 private:
  int fd_;
};

sockaddr_in handleAddress(const Handle& handle) {
  const setup::ListenHandle decoded = wire::decodeHandle(std::span<const std::byte, net::kHandleBytes>(handle));
  sockaddr_in address{};
  std::memcpy(&address, &decoded.address, sizeof address);
  return address;
}

RawSocket connectRaw(const Handle& handle) {
  RawSocket client;
  const sockaddr_in address = handleAddress(handle);
  EXPECT_EQ(::connect(client.fd(), reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  return client;
}

// A stream hello that passes every check of the listener: this listener's nonce, one stream.
std::array<std::byte, setup::kHelloBytes> validHello(const Handle& handle) {
  const setup::ListenHandle decoded = wire::decodeHandle(std::span<const std::byte, net::kHandleBytes>(handle));
  std::array<std::byte, setup::kHelloBytes> bytes{};
  setup::encodeHello(setup::Hello{decoded.nonce, 0x0badc0ffee, 0, 1, 1u << 19}, bytes);
  return bytes;
}

// A message goes from link.send to link.recv and arrives whole.
void expectOneMessageThrough(emu::NetDriver& net, const LocalLink& link) {
  char out[5] = "ping", in[5] = {};
  void* data[1] = {in};
  size_t sizes[1] = {sizeof in};
  int tags[1] = {3};
  void *send = nullptr, *recv = nullptr;
  ASSERT_EQ(net.irecv(link.recv, 1, data, sizes, tags, nullptr, nullptr, &recv), ncclSuccess);
  ASSERT_EQ(net.isend(link.send, out, sizeof out, 3, nullptr, nullptr, &send), ncclSuccess);
  EXPECT_TRUE(testUntil(net, send, kStepLimit).done);
  EXPECT_TRUE(testUntil(net, recv, kStepLimit).done);
  EXPECT_STREQ(in, "ping");
}

enum class Truncation { HalfHelloStalls, HalfHelloHangsUp, HalfHeaderStalls, HalfHeaderHangsUp };

class NetTruncatedHandshakeTest : public NetFaultTest, public ::testing::WithParamInterface<Truncation> {
 protected:
  // Sends what the parameter says on a raw connection to the listener, then stalls or hangs up.
  RawSocket strayClient(const Handle& handle) {
    RawSocket client = connectRaw(handle);
    const auto hello = validHello(handle);
    const Truncation t = GetParam();
    const bool halfHello = t == Truncation::HalfHelloStalls || t == Truncation::HalfHelloHangsUp;
    EXPECT_TRUE(client.sendAll(hello.data(), halfHello ? hello.size() / 2 : hello.size()));
    if (!halfHello) {
      const std::vector<std::byte> header(formats::path_log::kHandshakeBytes / 2, std::byte{0x41});
      EXPECT_TRUE(client.sendAll(header.data(), header.size()));
    }
    if (t == Truncation::HalfHelloHangsUp || t == Truncation::HalfHeaderHangsUp) client.close();
    return client;
  }
};

TEST_P(NetTruncatedHandshakeTest, AcceptStaysNonBlockingAndARealPeerStillConnects) {
  Watchdog watchdog(30, "NetTruncatedHandshakeTest");
  NetEndpoint endpoint(kVersion);
  ASSERT_EQ(endpoint.init(), ncclSuccess);
  Handle handle{};
  LocalLink link;
  ASSERT_EQ(endpoint.net().listen(0, handle.data(), &link.listen), ncclSuccess);
  RawSocket stray = strayClient(handle);

  const auto until = Clock::now() + Millis(300);
  while (Clock::now() < until) {
    const auto start = Clock::now();
    ncclNetDeviceHandle_v12_t* device = nullptr;
    ASSERT_EQ(endpoint.net().accept(link.listen, &link.recv, &device), ncclSuccess);
    ASSERT_EQ(link.recv, nullptr) << "accept handed out the stray, incomplete connection";
    ASSERT_LT(Clock::now() - start, kNonBlocking) << "accept blocked on the stray connection";
    usleep(1000);
  }

  ASSERT_TRUE(pollUntil(
      [&] {
        ncclNetDeviceHandle_v12_t* device = nullptr;
        if (link.send == nullptr) {
          EXPECT_EQ(endpoint.net().connect(0, handle.data(), &link.send, &device), ncclSuccess);
        }
        if (link.recv == nullptr) {
          EXPECT_EQ(endpoint.net().accept(link.listen, &link.recv, &device), ncclSuccess);
        }
        return link.send != nullptr && link.recv != nullptr;
      },
      kStepLimit))
      << "the real connection after the stray one did not complete";

  ASSERT_NO_FATAL_FAILURE(expectOneMessageThrough(endpoint.net(), link));  // the accepted comm is the real one
  EXPECT_EQ(endpoint.net().closeSend(link.send), ncclSuccess);
  EXPECT_EQ(endpoint.net().closeRecv(link.recv), ncclSuccess);
  EXPECT_EQ(endpoint.net().closeListen(link.listen), ncclSuccess);
}

std::string truncationName(const ::testing::TestParamInfo<Truncation>& info) {
  switch (info.param) {
    case Truncation::HalfHelloStalls:
      return "HalfHelloStalls";
    case Truncation::HalfHelloHangsUp:
      return "HalfHelloHangsUp";
    case Truncation::HalfHeaderStalls:
      return "HalfHeaderStalls";
    case Truncation::HalfHeaderHangsUp:
      return "HalfHeaderHangsUp";
  }
  return "unknown";
}

INSTANTIATE_TEST_SUITE_P(StrayClient, NetTruncatedHandshakeTest,
                         ::testing::Values(Truncation::HalfHelloStalls, Truncation::HalfHelloHangsUp,
                                           Truncation::HalfHeaderStalls, Truncation::HalfHeaderHangsUp),
                         truncationName);

enum class HangUp { AtOnce, AfterTheHellos, ResetAfterTheHellos };

// A listening socket of the test's own that the plugin connects to through a handle naming it.
class RawServer {
 public:
  RawServer() {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    EXPECT_EQ(::bind(listener_.fd(), reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
    EXPECT_EQ(::listen(listener_.fd(), 16), 0);
    EXPECT_EQ(getsockname(listener_.fd(), reinterpret_cast<sockaddr*>(&address), &length), 0);
    port_ = address.sin_port;
    fcntl(listener_.fd(), F_SETFL, O_NONBLOCK);
  }
  // A copy of a real handle (its magic, version, nonce) pointing at this server instead.
  Handle redirect(const Handle& real) const {
    setup::ListenHandle decoded = wire::decodeHandle(std::span<const std::byte, net::kHandleBytes>(real));
    reinterpret_cast<sockaddr_in*>(&decoded.address)->sin_port = port_;
    Handle handle{};
    wire::encodeHandle(decoded, std::span<std::byte, net::kHandleBytes>(handle));
    return handle;
  }
  // Accepts what arrived; once every stream has sent its whole hello (or at once), hangs up on all.
  void serve(HangUp how, int streams) {
    for (int fd; (fd = ::accept4(listener_.fd(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0;) {
      accepted_.emplace_back(fd);
      received_.push_back(0);
    }
    for (size_t i = 0; i < accepted_.size(); ++i) {
      std::byte buffer[512];
      const ssize_t got = ::recv(accepted_[i].fd(), buffer, sizeof buffer, 0);
      if (got > 0) received_[i] += static_cast<size_t>(got);
    }
    bool hellosIn = static_cast<int>(accepted_.size()) == streams;
    for (size_t got : received_) hellosIn = hellosIn && got >= setup::kHelloBytes;
    if (how != HangUp::AtOnce && !hellosIn) return;
    for (RawSocket& socket : accepted_) {
      if (how == HangUp::ResetAfterTheHellos) socket.resetOnClose();
      socket.close();
    }
  }

 private:
  RawSocket listener_;
  in_port_t port_ = 0;
  std::vector<RawSocket> accepted_;
  std::vector<size_t> received_;
};

class NetConnectToRawServerTest : public NetFaultTest, public ::testing::WithParamInterface<HangUp> {};

TEST_P(NetConnectToRawServerTest, ConnectFailsWithinFiveSeconds) {
  Watchdog watchdog(30, "NetConnectToRawServerTest");
  NetEndpoint endpoint(kVersion);
  ASSERT_EQ(endpoint.init(), ncclSuccess);
  Handle real{};
  void* listen = nullptr;
  ASSERT_EQ(endpoint.net().listen(0, real.data(), &listen), ncclSuccess);
  RawServer server;
  Handle handle = server.redirect(real);
  takeWarnings();

  void* send = nullptr;
  ncclResult_t result = ncclSuccess;
  const auto start = Clock::now();
  pollUntil(
      [&] {
        ncclNetDeviceHandle_v12_t* device = nullptr;
        const auto call = Clock::now();
        result = endpoint.net().connect(0, handle.data(), &send, &device);
        EXPECT_LT(Clock::now() - call, kNonBlocking) << "connect blocked";
        server.serve(GetParam(), 2);
        return result != ncclSuccess || send != nullptr;
      },
      kFaultBound + Millis(1000));
  std::string log;
  const std::vector<std::string> warnings = takeWarnings(&log);
  EXPECT_EQ(send, nullptr) << "connect handed out a comm to a peer that hung up mid-handshake";
  EXPECT_TRUE(result == ncclRemoteError || result == ncclSystemError) << result << "\n" << log;
  EXPECT_LT(Clock::now() - start, kFaultBound);
  EXPECT_EQ(warnings.size(), 1u) << log;
  EXPECT_EQ(endpoint.net().closeListen(listen), ncclSuccess);
}

std::string hangUpName(const ::testing::TestParamInfo<HangUp>& info) {
  switch (info.param) {
    case HangUp::AtOnce:
      return "AtOnce";
    case HangUp::AfterTheHellos:
      return "AfterTheHellos";
    case HangUp::ResetAfterTheHellos:
      return "ResetAfterTheHellos";
  }
  return "unknown";
}

INSTANTIATE_TEST_SUITE_P(ServerHangsUp, NetConnectToRawServerTest,
                         ::testing::Values(HangUp::AtOnce, HangUp::AfterTheHellos, HangUp::ResetAfterTheHellos),
                         hangUpName);

}  // namespace
}  // namespace railtune::testing::netfault
