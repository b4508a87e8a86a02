// The socket transport under faults: a peer that closes mid-transfer is a Remote error within 5 s,
// never a hang; fault-detection timeouts are armed only while data is pending.
#include <dirent.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cstdlib>

#include "tests/unit/net_plugin/transports/socket/net_socket_pair.h"

namespace railtune::net::socket {
namespace {
using namespace testing;

constexpr auto kFaultDeadline = std::chrono::seconds(5);

// Pumps test(request) until it throws; the error, or nullopt when it completed or the 5 s passed.
std::optional<NetError> errorWithinDeadline(Engine& engine, Request* request) {
  try {
    pumpUntil([&] { return engine.test(request).done; }, kFaultDeadline);
  } catch (const NetError& error) {
    return error;
  }
  return std::nullopt;
}

struct BigTransfer {
  std::vector<std::byte> out = pattern(size_t{64} << 20, 11);
  std::vector<std::byte> in = std::vector<std::byte>(size_t{64} << 20);
  Request* send = nullptr;
  Request* recv = nullptr;

  // Posts both sides and moves part of the message, so that the fault lands mid-transfer. The receiver
  // reads once: had it read at every round, a fast loopback could move nearly all 64 MiB before the
  // fault, and the rest then fits in the sockets' buffers, so that the send completes (seen under load).
  void start(Engine& engine, Pair& pair) {
    RecvBuffer buffer{in.data(), in.size(), 1, nullptr, nullptr};
    recv = engine.irecv(pair.recv, std::span<const RecvBuffer>(&buffer, 1));
    send = engine.isend(pair.send, out.data(), out.size(), 1, nullptr, nullptr);
    ASSERT_NE(recv, nullptr);
    ASSERT_NE(send, nullptr);
    for (int i = 0; i < 5; ++i) ASSERT_FALSE(engine.test(send).done);
    ASSERT_FALSE(engine.test(recv).done);
    ASSERT_FALSE(engine.test(send).done);
  }
};

TEST(NetSocketFault, SenderClosingMidTransferFailsTheReceiver) {
  auto engine = loopbackEngine();
  Pair pair = connectPair(*engine);
  BigTransfer transfer;
  transfer.start(*engine, pair);
  engine->closeSend(pair.send);
  const auto started = Clock::now();
  const auto error = errorWithinDeadline(*engine, transfer.recv);
  ASSERT_TRUE(error.has_value()) << "the receiver did not notice within 5 s";
  EXPECT_EQ(error->kind(), ErrorKind::Remote);
  EXPECT_EQ(error->device(), 0);
  EXPECT_EQ(error->peer().rfind("127.0.0.1:", 0), 0u) << error->peer();
  EXPECT_NE(std::string(error->what()).find("closed the connection"), std::string::npos) << error->what();
  EXPECT_LT(Clock::now() - started, kFaultDeadline);
}

TEST(NetSocketFault, ReceiverClosingMidTransferFailsTheSender) {
  auto engine = loopbackEngine();
  Pair pair = connectPair(*engine);
  BigTransfer transfer;
  transfer.start(*engine, pair);
  engine->closeRecv(pair.recv);  // unread data in its socket: the kernel answers with a reset
  const auto error = errorWithinDeadline(*engine, transfer.send);
  ASSERT_TRUE(error.has_value()) << "the sender did not notice within 5 s";
  EXPECT_EQ(error->kind(), ErrorKind::Remote) << error->what();
}

TEST(NetSocketFault, PeerGoneBeforeTheMessageFailsAPostedReceive) {
  auto engine = loopbackEngine();
  Pair pair = connectPair(*engine);
  std::vector<std::byte> buffer(64);
  RecvBuffer one{buffer.data(), buffer.size(), 0, nullptr, nullptr};
  Request* recv = engine->irecv(pair.recv, std::span<const RecvBuffer>(&one, 1));
  engine->closeSend(pair.send);
  const auto error = errorWithinDeadline(*engine, recv);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->kind(), ErrorKind::Remote);
}

TEST(NetSocketFault, AnIdlePeerThatClosedIsNoErrorUntilSomethingIsPosted) {
  auto engine = loopbackEngine();
  Pair pair = connectPair(*engine);
  engine->closeSend(pair.send);
  std::vector<std::byte> buffer(8);
  RecvBuffer one{buffer.data(), buffer.size(), 0, nullptr, nullptr};
  Request* flush = engine->iflush(pair.recv, std::span<const RecvBuffer>(&one, 1));
  EXPECT_TRUE(engine->test(flush).done);
}

// The TCP sockets of this process with SO_KEEPALIVE on, and how many of those also carry a
// TCP_USER_TIMEOUT.
std::pair<int, int> armedSockets() {
  int keepalive = 0, userTimeout = 0;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return {-1, -1};
  while (dirent* entry = readdir(dir)) {
    const int fd = std::atoi(entry->d_name);
    int value = 0;
    socklen_t length = sizeof value;
    if (fd <= 2 || getsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &value, &length) != 0) continue;
    keepalive += value != 0 ? 1 : 0;
    unsigned timeout = 0;
    length = sizeof timeout;
    if (getsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &timeout, &length) == 0 && timeout == 7000u) ++userTimeout;
  }
  closedir(dir);
  return {keepalive, userTimeout};
}

TEST(NetSocketFault, TimeoutsAreArmedOnlyWhileDataIsPending) {
  SocketEngineOptions options;
  options.streams = 3;
  options.timeoutSeconds = 7;
  auto engine = loopbackEngine(options);
  Pair pair = connectPair(*engine);
  EXPECT_EQ(armedSockets(), std::make_pair(0, 0)) << "an idle connection carries no timeouts";

  std::vector<std::byte> in(16), out = pattern(16, 1);
  RecvBuffer one{in.data(), in.size(), 0, nullptr, nullptr};
  Request* recv = engine->irecv(pair.recv, std::span<const RecvBuffer>(&one, 1));
  EXPECT_EQ(armedSockets(), std::make_pair(3, 3)) << "the receiving side's streams arm while it waits";

  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  Request* send = engine->isend(pair.send, out.data(), out.size(), 0, nullptr, nullptr);
  Completion sendDone, recvDone;
  ASSERT_TRUE(completeBoth(*engine, send, recv, sendDone, recvDone));
  // The receiver was armed for over a second and is idle now: disarmed. The sender's small message
  // left inside isend, so it never had anything pending and never armed.
  EXPECT_EQ(armedSockets(), std::make_pair(0, 0));

  // Armed again by a waiting receive; completed within the second: it stays armed (no toggling
  // per message), until its first idle moment a second after arming.
  Request* recvAgain = engine->irecv(pair.recv, std::span<const RecvBuffer>(&one, 1));
  Request* again = engine->isend(pair.send, out.data(), 0, 0, nullptr, nullptr);
  ASSERT_TRUE(completeBoth(*engine, again, recvAgain, sendDone = {}, recvDone = {}));
  EXPECT_EQ(armedSockets(), std::make_pair(3, 3));
}

}  // namespace
}  // namespace railtune::net::socket
