// A peer that silently vanishes, and one that is merely slow. Silent loss: inside a network
// namespace of its own (CI runs as root), two processes connect over loopback, then iptables drops
// every packet of the connection; with RAILTUNE_NET_TIMEOUT=2 the sender's test() must fail within
// the timeout plus a few seconds (TCP_USER_TIMEOUT, armed while data is pending). A slow but
// healthy peer (it posts its receive, or sends, only after longer than the timeout) must not be cut.
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "net_plugin/transports/socket/socket_wire.h"
#include "tests/e2e/net_fault_harness.h"

namespace railtune::testing::netfault {
namespace {

constexpr int kTimeoutSeconds = 2;
constexpr Millis kDetectionBound(kTimeoutSeconds * 1000 + 3000);  // the timeout plus a few seconds
constexpr Millis kSlowness(kTimeoutSeconds * 1000 + 1500);

bool haveIptables() {
  for (const char* path : {"/usr/sbin/iptables", "/sbin/iptables", "/usr/bin/iptables", "/bin/iptables"}) {
    if (access(path, X_OK) == 0) return true;
  }
  return false;
}

// "" when this process now has its own network namespace with loopback up, else why not.
std::string ownNetworkNamespace() {
  if (unshare(CLONE_NEWNET) != 0) return std::string("unshare(CLONE_NEWNET): ") + std::strerror(errno);
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ifreq request{};
  std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  bool up = fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &request) == 0;
  request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP);
  up = up && ioctl(fd, SIOCSIFFLAGS, &request) == 0;
  const std::string failure = up ? "" : std::string("bringing up lo: ") + std::strerror(errno);
  if (fd >= 0) close(fd);
  return failure;
}

// Drops every packet to and from the listener's port, in this namespace only.
bool dropConnection(const Handle& handle) {
  const net::tcp_setup::ListenHandle decoded =
      net::socket::decodeHandle(std::span<const std::byte, net::kHandleBytes>(handle));
  const auto* v4 = reinterpret_cast<const sockaddr_in*>(&decoded.address);
  const std::string port = std::to_string(ntohs(v4->sin_port));
  for (const char* direction : {"--dport", "--sport"}) {
    const std::string rule = "iptables -w -A INPUT -p tcp " + std::string(direction) + " " + port + " -j DROP";
    if (std::system(rule.c_str()) != 0) return false;
  }
  return true;
}

// A healthy receiver: posts a receive for the whole message and keeps driving it.
constexpr uint64_t kSending = 9;  // the sender to its receiver: "my isend is next"

int drivingReceiver(Control& control, Millis before) {
  NetEndpoint endpoint(kVersion);
  if (endpoint.init() != ncclSuccess) return 2;
  Handle handle{};
  void* listen = nullptr;
  if (endpoint.net().listen(0, handle.data(), &listen) != ncclSuccess) return 3;
  control.send(handle.data(), handle.size());
  void* recv = nullptr;
  if (acceptFrom(endpoint.net(), listen, &recv, kStepLimit) != ncclSuccess || recv == nullptr) return 4;
  // Slow from the moment the sender sends, not from the accept: the sender's own set-up (seconds
  // under a sanitizer) must not eat into the wait the test is about.
  if (control.receiveWord(kStepLimit, "the sender's start") != kSending) return 8;
  usleep(static_cast<useconds_t>(before.count() * 1000));  // slow: the sender waits on it meanwhile
  std::vector<std::byte> data(bytesBeyondSocketBuffers());
  void* buffers[1] = {data.data()};
  size_t sizes[1] = {data.size()};
  int tags[1] = {0};
  void* request = nullptr;
  if (endpoint.net().irecv(recv, 1, buffers, sizes, tags, nullptr, nullptr, &request) != ncclSuccess) return 5;
  const TestOutcome outcome = testUntil(endpoint.net(), request, Millis(20000));
  if (outcome.result != ncclSuccess || !outcome.done) return 6;
  for (std::byte b : data) {
    if (b != std::byte{0x6b}) return 7;
  }
  control.sendWord(1);
  control.receiveWord(kStepLimit, "the go-ahead to finish");
  return 0;
}

struct SendReport {
  std::string failure;  // set when the sender could not get as far as sending
  ncclResult_t result = ncclSuccess;
  bool done = false;
  Millis elapsed{0};
  std::string warnings;
  size_t warningCount = 0;
};

// Connects to the receiver's handle, optionally cuts the connection, waits `delay`, sends the
// message, and reports how its test() ended.
SendReport sendThrough(Control& receiver, bool cut, Millis delay) {
  SendReport report;
  NetEndpoint endpoint(kVersion);
  if (endpoint.init() != ncclSuccess) {
    report.failure = "init failed";
    return report;
  }
  Handle handle{};
  receiver.receive(handle.data(), handle.size(), kStepLimit, "listen handle");
  void* send = nullptr;
  if (connectTo(endpoint.net(), 0, handle, &send, kStepLimit) != ncclSuccess || send == nullptr) {
    report.failure = "connect failed";
    return report;
  }
  if (cut && !dropConnection(handle)) {
    report.failure = "iptables could not add the DROP rules";
    return report;
  }
  usleep(static_cast<useconds_t>(delay.count() * 1000));
  takeWarnings();
  std::vector<std::byte> data(bytesBeyondSocketBuffers(), std::byte{0x6b});
  void* request = nullptr;
  receiver.sendWord(kSending);
  if (endpoint.net().isend(send, data.data(), data.size(), 0, nullptr, nullptr, &request) != ncclSuccess) {
    report.failure = "isend failed";
    return report;
  }
  const TestOutcome outcome = testUntil(endpoint.net(), request, Millis(20000));
  report.result = outcome.result;
  report.done = outcome.done;
  report.elapsed = outcome.elapsed;
  const std::vector<std::string> warnings = takeWarnings(&report.warnings);
  report.warningCount = warnings.size();
  (void)endpoint.net().closeSend(send);
  return report;
}

class NetSilentLossTest : public NetFaultTest {
 protected:
  void SetUp() override {
    NetFaultTest::SetUp();
    env.set("RAILTUNE_NET_TIMEOUT", std::to_string(kTimeoutSeconds));
  }
};

TEST_F(NetSilentLossTest, DroppedPacketsFailTheSenderWithinTheTimeout) {
  if (!haveIptables()) GTEST_SKIP() << "iptables is not installed (scripts/install-deps.sh installs it)";
  Watchdog watchdog(40, "NetSilentLossTest: dropped packets");
  // The namespace holder is the sender; its own forked child, in the same namespace, receives.
  PeerProcess sender(
      [](Control& control) {
        const std::string why = ownNetworkNamespace();
        control.sendText(why);
        if (!why.empty()) return 0;
        PeerProcess receiver([](Control& c) { return drivingReceiver(c, Millis(0)); }, 30);
        const SendReport report = sendThrough(receiver.control(), true, Millis(0));
        control.sendText(report.failure);
        control.sendWord(static_cast<uint64_t>(report.result));
        control.sendWord(report.done ? 1 : 0);
        control.sendWord(static_cast<uint64_t>(report.elapsed.count()));
        control.sendWord(report.warningCount);
        control.sendText(report.warnings);
        return 0;
      },
      35);
  const std::string namespaceFailure = sender.control().receiveText(kStepLimit, "namespace set-up");
  if (!namespaceFailure.empty()) GTEST_SKIP() << "no network namespace of our own (needs root): " << namespaceFailure;
  ASSERT_EQ(sender.control().receiveText(Millis(30000), "the sender's set-up"), "");
  const auto result = static_cast<ncclResult_t>(sender.control().receiveWord(kStepLimit, "result"));
  const bool done = sender.control().receiveWord(kStepLimit, "done") != 0;
  const Millis elapsed(sender.control().receiveWord(kStepLimit, "elapsed"));
  const uint64_t warningCount = sender.control().receiveWord(kStepLimit, "warning count");
  const std::string log = sender.control().receiveText(kStepLimit, "log");
  EXPECT_FALSE(done) << "the message cannot have arrived through a DROP rule";
  EXPECT_TRUE(result == ncclRemoteError || result == ncclSystemError) << result << "\n" << log;
  EXPECT_LT(elapsed, kDetectionBound) << log;
  EXPECT_GE(elapsed, Millis(kTimeoutSeconds * 1000 / 2)) << "failed before any timeout could have fired:\n" << log;
  EXPECT_EQ(warningCount, 1u) << log;
  EXPECT_EQ(sender.wait(kStepLimit), std::optional<int>(0));
}

// The receiver posts its receive only after longer than the timeout: the sender waits, then finishes.
TEST_F(NetSilentLossTest, ASlowReceiverIsNotCut) {
  Watchdog watchdog(40, "NetSilentLossTest: slow receiver");
  PeerProcess receiver([](Control& control) { return drivingReceiver(control, kSlowness); }, 30);
  const SendReport report = sendThrough(receiver.control(), false, Millis(0));
  ASSERT_EQ(report.failure, "");
  EXPECT_EQ(report.result, ncclSuccess) << report.warnings;
  EXPECT_TRUE(report.done);
  EXPECT_GE(report.elapsed, kSlowness - Millis(500)) << "the receiver was not slow: the test proves nothing";
  EXPECT_EQ(report.warningCount, 0u) << report.warnings;
  EXPECT_EQ(receiver.control().receiveWord(kStepLimit, "the receiver's check"), 1u);
  receiver.control().sendWord(1);
  EXPECT_EQ(receiver.wait(kStepLimit), std::optional<int>(0));
}

// The sender sends only after longer than the timeout: the receiver, waiting with its receive
// posted (and its timeouts armed), is not cut either.
TEST_F(NetSilentLossTest, ASlowSenderIsNotCut) {
  Watchdog watchdog(40, "NetSilentLossTest: slow sender");
  PeerProcess sender(
      [](Control& control) {
        const SendReport report = sendThrough(control, false, kSlowness);
        return report.failure.empty() && report.result == ncclSuccess && report.done ? 0 : 8;
      },
      30);
  // drivingReceiver's role, here in the test process so that its results are asserted directly.
  NetEndpoint endpoint(kVersion);
  ASSERT_EQ(endpoint.init(), ncclSuccess);
  Handle handle{};
  void* listen = nullptr;
  ASSERT_EQ(endpoint.net().listen(0, handle.data(), &listen), ncclSuccess);
  std::vector<std::byte> data(bytesBeyondSocketBuffers());
  void* buffers[1] = {data.data()};
  size_t sizes[1] = {data.size()};
  int tags[1] = {0};
  sender.control().send(handle.data(), handle.size());
  void* recv = nullptr;
  ASSERT_EQ(acceptFrom(endpoint.net(), listen, &recv, kStepLimit), ncclSuccess);
  ASSERT_NE(recv, nullptr);
  void* request = nullptr;
  ASSERT_EQ(endpoint.net().irecv(recv, 1, buffers, sizes, tags, nullptr, nullptr, &request), ncclSuccess);
  const TestOutcome outcome = testUntil(endpoint.net(), request, Millis(20000));
  EXPECT_EQ(outcome.result, ncclSuccess);
  EXPECT_TRUE(outcome.done);
  EXPECT_GE(outcome.elapsed, kSlowness - Millis(500)) << "the sender was not slow: the test proves nothing";
  EXPECT_EQ(sender.control().receiveWord(kStepLimit, "the sender's start"), kSending);
  EXPECT_EQ(std::count(data.begin(), data.end(), std::byte{0x6b}), static_cast<std::ptrdiff_t>(data.size()));
  EXPECT_EQ(sender.wait(kStepLimit), std::optional<int>(0));
  EXPECT_EQ(endpoint.net().closeRecv(recv), ncclSuccess);
  EXPECT_EQ(endpoint.net().closeListen(listen), ncclSuccess);
}

}  // namespace
}  // namespace railtune::testing::netfault
