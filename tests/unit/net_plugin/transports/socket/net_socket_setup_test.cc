// The socket transport's setup and misuse: handshake, properties, options, registration, calls
// after close, handles that are not ours.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "net_plugin/transports/socket/socket_wire.h"
#include "tests/unit/net_plugin/transports/socket/net_socket_pair.h"

namespace railtune::net::socket {
namespace {
using namespace testing;

template <typename Call>
std::string errorOf(Call call, ErrorKind expected) {
  try {
    call();
  } catch (const NetError& error) {
    EXPECT_EQ(error.kind(), expected) << error.what();
    return error.what();
  }
  ADD_FAILURE() << "no NetError";
  return {};
}

TEST(NetSocketSetup, ListenFillsTheHandleAndBothSidesConnect) {
  auto engine = loopbackEngine();
  std::array<std::byte, kHandleBytes> handle{};
  ListenComm* listener = engine->listen(0, CommConfig{}, handle);
  ASSERT_NE(listener, nullptr);
  const tcp_setup::ListenHandle decoded = decodeHandle(handle);
  EXPECT_EQ(tcp_setup::describeAddress(decoded.address).rfind("127.0.0.1:", 0), 0u);
  std::array<std::byte, kHandleBytes> second{};
  engine->listen(0, CommConfig{}, second);
  EXPECT_NE(decodeHandle(second).nonce, decoded.nonce) << "each listener draws its own nonce";

  SendComm* send = nullptr;
  RecvComm* recv = nullptr;
  ASSERT_TRUE(pumpUntil([&] {
    if (send == nullptr) send = engine->connect(0, CommConfig{}, handle);
    if (recv == nullptr) recv = engine->accept(listener);
    return send != nullptr && recv != nullptr;
  }));
  EXPECT_EQ(engine->accept(listener), nullptr) << "one connection, one accept";
}

TEST(NetSocketSetup, PreamblesCrossAndCountersCountTheTraffic) {
  std::vector<SocketDevice> devices{{"nic_a", "lo", "127.0.0.1", 0, 0, -1, "", std::vector<std::byte>(kPreambleBytes)},
                                    {"nic_b", "lo", "127.0.0.2", 0, 1, -1, "", std::vector<std::byte>(kPreambleBytes)}};
  for (size_t i = 0; i < kPreambleBytes; ++i) {
    devices[0].preamble[i] = static_cast<std::byte>(i);
    devices[1].preamble[i] = static_cast<std::byte>(255 - i % 256);
  }
  SocketEngine engine(devices, SocketEngineOptions{});
  std::array<std::byte, kHandleBytes> handle{};
  ListenComm* listener = engine.listen(1, CommConfig{}, handle);
  SendComm* send = nullptr;
  RecvComm* recv = nullptr;
  ASSERT_TRUE(pumpUntil([&] {
    if (send == nullptr) send = engine.connect(0, CommConfig{}, handle);
    if (recv == nullptr) recv = engine.accept(listener);
    return send != nullptr && recv != nullptr;
  }));
  const auto sendSaw = engine.describe(send).peerPreamble;
  const auto recvSaw = engine.describe(recv).peerPreamble;
  EXPECT_EQ(engine.describe(send).streams, SocketEngineOptions{}.streams);
  EXPECT_EQ(engine.describe(recv).peer.rfind("127.0.0.1:", 0), 0u) << "the connector bound nic_a's address";
  EXPECT_TRUE(std::equal(sendSaw.begin(), sendSaw.end(), devices[1].preamble.begin())) << "the listener's answer";
  EXPECT_TRUE(std::equal(recvSaw.begin(), recvSaw.end(), devices[0].preamble.begin())) << "the connector's";

  pathlog::ConnectionCounters sent, received;
  int user = 0;
  engine.attach(send, Attachments{&sent, nullptr, &user});
  engine.attach(recv, Attachments{&received, nullptr, nullptr});
  EXPECT_EQ(engine.userOf(send), &user);
  const std::vector<std::byte> data = pattern(3 << 20, 7);
  std::vector<std::byte> into(data.size());
  const RecvBuffer buffer{into.data(), into.size(), 5, nullptr, nullptr};
  Request* r = engine.irecv(recv, std::span(&buffer, 1));
  Request* s = engine.isend(send, const_cast<std::byte*>(data.data()), data.size(), 5, nullptr, nullptr);
  Completion sendDone, recvDone;
  ASSERT_TRUE(completeBoth(engine, s, r, sendDone, recvDone));
  EXPECT_EQ(into, data);
  EXPECT_EQ(sent.sample().bytesSent, data.size());
  EXPECT_EQ(sent.sample().messagesSent, 1u);
  EXPECT_EQ(received.sample().bytesReceived, data.size());
  EXPECT_EQ(received.sample().messagesReceived, 1u);
  EXPECT_GT(sent.sample().busyUs + received.sample().busyUs, 0u) << "3 MiB takes some time to move";
  engine.attach(send, Attachments{});
  engine.attach(recv, Attachments{});
  EXPECT_EQ(engine.userOf(send), nullptr);
  EXPECT_THROW(engine.describe(listener), NetError);
}

TEST(NetSocketSetup, PropertiesDescribeTheDevice) {
  std::vector<SocketDevice> devices{
      {"mlx5_0", "eth0", "127.0.0.1", 400000, 2, 1, "/sys/devices/pci0000:00/0000:00:01.0", {}},
      {"eth1", "eth1", "::1", 100000, -1, -1, "", {}}};
  SocketEngine engine(devices, SocketEngineOptions{});
  ASSERT_EQ(engine.deviceCount(), 2);
  const DeviceProperties p = engine.properties(0);
  EXPECT_STREQ(p.name, "mlx5_0");
  EXPECT_STREQ(p.pciPath, "/sys/devices/pci0000:00/0000:00:01.0");
  EXPECT_EQ(p.speedMbps, 400000);
  EXPECT_EQ(p.railId, 2);
  EXPECT_EQ(p.planeId, 1);
  EXPECT_EQ(p.pointerSupport, kPointerHost);
  EXPECT_EQ(p.maxRecvs, kMaxRecvs);
  EXPECT_EQ(p.maxP2pBytes, SocketEngineOptions{}.maxMessageBytes);
  EXPECT_EQ(engine.properties(1).pciPath, nullptr);
  EXPECT_NE(errorOf([&] { engine.properties(2); }, ErrorKind::InvalidArgument).find("out of range"), std::string::npos);
}

TEST(NetSocketSetup, BadOptionsAndAddressesAreRefused) {
  SocketEngineOptions tooMany;
  tooMany.streams = kMaxStreams + 1;
  EXPECT_NE(errorOf([&] { loopbackEngine(tooMany); }, ErrorKind::InvalidArgument).find("streams"), std::string::npos);
  SocketEngineOptions none;
  none.streams = 0;
  errorOf([&] { loopbackEngine(none); }, ErrorKind::InvalidArgument);
  SocketEngineOptions huge;
  huge.maxMessageBytes = size_t{1} << 31;
  EXPECT_NE(errorOf([&] { loopbackEngine(huge); }, ErrorKind::InvalidArgument).find("as int"), std::string::npos);
  std::vector<SocketDevice> named{{"eth0", "eth0", "eth0.example", 0, -1, -1, "", {}}};
  EXPECT_NE(errorOf([&] { SocketEngine(named, SocketEngineOptions{}); }, ErrorKind::InvalidArgument)
                .find("not a numeric IPv4 or IPv6 address"),
            std::string::npos);
  std::vector<SocketDevice> twice{{"eth0", "eth0", "127.0.0.1", 0, -1, -1, "", {}},
                                  {"eth0", "eth0", "127.0.0.1", 0, -1, -1, "", {}}};
  errorOf([&] { SocketEngine(twice, SocketEngineOptions{}); }, ErrorKind::InvalidArgument);
}

TEST(NetSocketSetup, MalformedHandleFailsConnect) {
  auto engine = loopbackEngine();
  std::array<std::byte, kHandleBytes> handle{};
  engine->listen(0, CommConfig{}, handle);
  auto broken = handle;
  broken[0] = std::byte{0x00};
  EXPECT_NE(errorOf([&] { engine->connect(0, CommConfig{}, broken); }, ErrorKind::InvalidArgument).find("magic"),
            std::string::npos);
  broken = handle;
  broken[4] = std::byte{2};
  EXPECT_NE(errorOf([&] { engine->connect(0, CommConfig{}, broken); }, ErrorKind::InvalidArgument).find("version"),
            std::string::npos);
}

TEST(NetSocketSetup, AWrongNonceNeverYieldsAConnection) {
  auto engine = loopbackEngine();
  std::array<std::byte, kHandleBytes> handle{};
  ListenComm* listener = engine->listen(0, CommConfig{}, handle);
  auto forged = handle;
  forged[32] ^= std::byte{0xff};  // same address and port, another listener's nonce
  // The listener drops streams with another nonce, so the connector never gets the listener's
  // preamble: its connect fails once the listener has closed the stream, and accept yields nothing.
  bool failed = false;
  const bool ended = pumpUntil([&] {
    try {
      EXPECT_EQ(engine->accept(listener), nullptr);
      EXPECT_EQ(engine->connect(0, CommConfig{}, forged), nullptr);
    } catch (const NetError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Remote);
      EXPECT_NE(std::string(e.what()).find("handshake: "), std::string::npos) << e.what();
      failed = true;
    }
    return failed;
  });
  EXPECT_TRUE(ended && failed);
  EXPECT_FALSE(pumpUntil([&] { return engine->accept(listener) != nullptr; }, std::chrono::milliseconds(300)));
}

// A raw TCP connection to the listener that sends the given bytes and then closes.
void strayConnection(const std::array<std::byte, kHandleBytes>& handle, const std::vector<std::byte>& bytes) {
  const tcp_setup::ListenHandle target = decodeHandle(handle);
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::connect(fd, reinterpret_cast<const sockaddr*>(&target.address), sizeof(sockaddr_in)), 0);
  if (!bytes.empty()) {
    ASSERT_EQ(::send(fd, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
  }
  ::close(fd);
}

TEST(NetSocketSetup, StrayAndTruncatedHandshakesAreIgnored) {
  auto engine = loopbackEngine();
  std::array<std::byte, kHandleBytes> handle{};
  ListenComm* listener = engine->listen(0, CommConfig{}, handle);
  strayConnection(handle, {});                                                               // connects, says nothing
  strayConnection(handle, std::vector<std::byte>(tcp_setup::kHelloBytes / 2));               // half a hello
  strayConnection(handle, std::vector<std::byte>(tcp_setup::kHelloBytes, std::byte{0x41}));  // not a hello
  EXPECT_FALSE(pumpUntil([&] { return engine->accept(listener) != nullptr; }, std::chrono::milliseconds(200)));
  SendComm* send = nullptr;
  RecvComm* recv = nullptr;
  ASSERT_TRUE(pumpUntil([&] {
    if (send == nullptr) send = engine->connect(0, CommConfig{}, handle);
    if (recv == nullptr) recv = engine->accept(listener);
    return send != nullptr && recv != nullptr;
  })) << "the real connection still gets through";
}

TEST(NetSocketSetup, RefusedConnectionIsARemoteError) {
  auto engine = loopbackEngine();
  std::array<std::byte, kHandleBytes> handle{};
  ListenComm* listener = engine->listen(0, CommConfig{}, handle);
  engine->closeListen(listener);  // nothing listens on that port any more
  const std::string reason = errorOf(
      [&] { pumpUntil([&] { return engine->connect(0, CommConfig{}, handle) != nullptr; }); }, ErrorKind::Remote);
  EXPECT_NE(reason.find("connect()"), std::string::npos) << reason;
}

TEST(NetSocketSetup, HostMemoryRegistersAndCudaIsRefused) {
  auto engine = loopbackEngine();
  Pair pair = connectPair(*engine);
  std::array<std::byte, 64> buffer{};
  MemoryRegion* region = engine->registerMemory(pair.send, buffer.data(), buffer.size(), MemoryType::Host);
  ASSERT_NE(region, nullptr);
  engine->deregisterMemory(pair.send, region);
  EXPECT_NE(errorOf([&] { engine->registerMemory(pair.recv, buffer.data(), 64, MemoryType::Cuda); },
                    ErrorKind::InvalidArgument)
                .find("CUDA"),
            std::string::npos);
  errorOf([&] { engine->registerDmaBuf(pair.recv, buffer.data(), 64, 0, 3); }, ErrorKind::InvalidArgument);
  errorOf([&] { engine->registerMemory(pair.listener, buffer.data(), 64, MemoryType::Host); },
          ErrorKind::InvalidArgument);
}

TEST(NetSocketSetup, CallsAfterCloseAreClearErrors) {
  auto engine = loopbackEngine();
  Pair pair = connectPair(*engine);
  std::array<std::byte, 8> buffer{};
  engine->closeSend(pair.send);
  engine->closeRecv(pair.recv);
  engine->closeListen(pair.listener);
  EXPECT_NE(errorOf([&] { engine->isend(pair.send, buffer.data(), 8, 0, nullptr, nullptr); }, ErrorKind::InvalidUsage)
                .find("closed"),
            std::string::npos);
  RecvBuffer one{buffer.data(), 8, 0, nullptr, nullptr};
  errorOf([&] { engine->irecv(pair.recv, std::span<const RecvBuffer>(&one, 1)); }, ErrorKind::InvalidUsage);
  errorOf([&] { engine->iflush(pair.recv, std::span<const RecvBuffer>(&one, 1)); }, ErrorKind::InvalidUsage);
  errorOf([&] { engine->registerMemory(pair.send, buffer.data(), 8, MemoryType::Host); }, ErrorKind::InvalidUsage);
  errorOf([&] { engine->closeSend(pair.send); }, ErrorKind::InvalidUsage);
  errorOf([&] { engine->closeRecv(pair.recv); }, ErrorKind::InvalidUsage);
  errorOf([&] { engine->closeListen(pair.listener); }, ErrorKind::InvalidUsage);
  errorOf([&] { engine->accept(pair.listener); }, ErrorKind::InvalidUsage);
}

}  // namespace
}  // namespace railtune::net::socket
