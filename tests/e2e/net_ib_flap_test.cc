// A link flap under the verbs transport, as NCCL's IB transport lives through one: the receiving host's port goes
// down for 2 s (IBV_EVENT_PORT_ERR) and comes back (IBV_EVENT_PORT_ACTIVE) while a 1 MiB message is on its way.
// The event is one WARN, not a failure (NCCL's async thread, src/transport/net_ib/common.cc:168-178@v2.30.7).
// Then, by the QPs' retry budget (NCCL_IB_TIMEOUT x (NCCL_IB_RETRY_CNT + 1), here scaled by the simulator):
//   - longer than the flap: the message arrives whole and nothing fails;
//   - shorter: the sender's work request exhausts its retries (IBV_WC_RETRY_EXC_ERR), its connection fails with
//     one WARN naming its HCA and port, and the receiver's request fails when the sender gives the connection up.
// Either way a connection made after the port is ACTIVE again carries a message whole.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/net_fault_workload.h"
#include "tests/e2e/net_ib_harness.h"

namespace railtune::testing::netfault {
namespace {

constexpr size_t kMessage = size_t{1} << 20;
constexpr Millis kFlap(2000);

// The WARN lines of this process so far, one per line, for a report.
std::string warningsText() {
  std::string text;
  for (const std::string& w : takeWarnings()) text += w + "\n";
  return text;
}

// Sends one pattern-filled message with `tag` and tests it to the end. "" when it completed; else the error,
// followed by the WARN lines the failure produced.
std::string sendOne(emu::NetDriver& net, void* sendComm, int tag, uint32_t seed) {
  std::vector<std::byte> message(kMessage);
  fillMessage(message, seed);
  void* region = nullptr;
  if (net.regMr(sendComm, message.data(), message.size(), NCCL_PTR_HOST, &region) != ncclSuccess) return "regMr";
  void* request = nullptr;
  const bool posted = pollUntil(
      [&] {
        return net.isend(sendComm, message.data(), message.size(), tag, region, nullptr, &request) != ncclSuccess ||
               request != nullptr;
      },
      kStepLimit);
  if (!posted || request == nullptr) return "isend never posted\n" + warningsText();
  const TestOutcome outcome = testUntil(net, request, Millis(20000));
  if (outcome.result != ncclSuccess) return "test failed\n" + warningsText();
  if (!outcome.done) return "the send never completed\n" + warningsText();
  (void)net.deregMr(sendComm, region);
  return "";
}

// Host 1: connects to the first handle, sends through the flap, reports; then connects to the second handle and
// sends again, reports, and closes when told.
int flappingSender(const SimFabric& fabric, Control& control) {
  fabric.becomeHost(1);
  NetEndpoint endpoint(kVersion);
  if (endpoint.init() != ncclSuccess) return 2;
  for (int round = 0; round < 2; ++round) {
    Handle handle{};
    control.receive(handle.data(), handle.size(), Millis(20000), "listen handle");
    void* sendComm = nullptr;
    if (connectTo(endpoint.net(), 0, handle, &sendComm, kStepLimit) != ncclSuccess || sendComm == nullptr) return 3;
    takeWarnings();
    control.receiveWord(Millis(20000), "go");
    const std::string result = sendOne(endpoint.net(), sendComm, round + 1, 0xf1a90000u + static_cast<uint32_t>(round));
    control.sendText(result);
    if (!result.empty()) (void)endpoint.net().closeSend(sendComm);  // NCCL gives a failed connection up
  }
  control.receiveWord(Millis(20000), "close");
  return 0;
}

struct Receive {
  std::vector<std::byte> buffer = std::vector<std::byte>(kMessage);
  void* recv = nullptr;
  void* listen = nullptr;
  void* region = nullptr;
  void* request = nullptr;
};

// Listens, hands the peer the handle, accepts, and posts one receive of tag `tag`.
void connectAndPost(emu::NetDriver& net, PeerProcess& peer, int tag, Receive& r) {
  Handle handle{};
  ASSERT_EQ(net.listen(0, handle.data(), &r.listen), ncclSuccess);
  peer.control().send(handle.data(), handle.size());
  ASSERT_EQ(acceptFrom(net, r.listen, &r.recv, kStepLimit), ncclSuccess);
  ASSERT_NE(r.recv, nullptr);
  ASSERT_EQ(net.regMr(r.recv, r.buffer.data(), r.buffer.size(), NCCL_PTR_HOST, &r.region), ncclSuccess);
  void* data[1] = {r.buffer.data()};
  size_t sizes[1] = {r.buffer.size()};
  int tags[1] = {tag};
  void* regions[1] = {r.region};
  ASSERT_EQ(net.irecv(r.recv, 1, data, sizes, tags, regions, nullptr, &r.request), ncclSuccess);
  ASSERT_NE(r.request, nullptr);
}

class NetIbFlapTest : public NetFaultTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(NetIbFlapTest, APortFlapIsNotFatalAndNewConnectionsCarryTrafficAfterIt) {
  // The simulator's time scale sets the retry budget: NCCL's timeout 20 and retry count 7 take about 34 s.
  SimFabricSetup setup;
  setup.timeScale = GetParam();
  const bool outlivesTheFlap = std::stod(setup.timeScale) * 34.0 > 4.0;
  setup.env = {{"NCCL_IB_TIMEOUT", "20"}, {"NCCL_IB_RETRY_CNT", "7"}};
  SimFabric fabric(env, setup);
  Watchdog watchdog(60, "NetIbFlapTest");
  PeerProcess peer([&](Control& control) { return flappingSender(fabric, control); }, 55);
  NetEndpoint endpoint(kVersion);
  ASSERT_EQ(endpoint.init(), ncclSuccess);
  emu::NetDriver& net = endpoint.net();

  Receive first;
  connectAndPost(net, peer, 1, first);
  takeWarnings();
  ASSERT_EQ(SimFabric::control("port_down mlx5_0 1"), 0);
  peer.control().sendWord(1);  // the message leaves while the port is down
  const TestOutcome during = testUntil(net, first.request, kFlap);
  ASSERT_EQ(SimFabric::control("port_up mlx5_0 1"), 0);
  const bool ended = during.done || during.result != ncclSuccess;
  const TestOutcome after = ended ? during : testUntil(net, first.request, kStepLimit);
  // A failed connection is given up, as NCCL gives it up: the other end, if it still waits, then fails too.
  if (after.result != ncclSuccess) (void)net.closeRecv(first.recv);
  const std::string sent = peer.control().receiveText(Millis(20000), "the sender's first report");
  std::string lines;
  const std::vector<std::string> warnings = takeWarnings(&lines);
  ASSERT_FALSE(warnings.empty()) << lines;
  EXPECT_NE(warnings[0].find("IBV_EVENT_PORT_ERR on mlx5_0 port 1"), std::string::npos) << warnings[0];
  if (outlivesTheFlap) {
    EXPECT_EQ(warnings.size(), 1u) << "the flap is one WARN and fails nothing\n" << lines;
    EXPECT_EQ(sent, "") << "retries outlast a 2 s flap";
    ASSERT_EQ(after.result, ncclSuccess) << lines;
    ASSERT_TRUE(after.done);
    EXPECT_EQ(after.sizes[0], static_cast<int>(kMessage));
    EXPECT_EQ(checkMessage(first.buffer, 0xf1a90000u), "");
  } else {
    // The sender's side: one WARN naming its HCA and port, and why: its write ran out of retries, or (when the
    // clear-to-send was what the flap lost) the receiver gave the connection up while the send waited.
    ASSERT_NE(sent, "") << "the retries (about " << std::stod(setup.timeScale) * 34.0 << " s) end inside the flap";
    EXPECT_TRUE(sent.find("IBV_WC_RETRY_EXC_ERR") != std::string::npos ||
                sent.find("the peer closed its out-of-band connection") != std::string::npos)
        << sent;
    EXPECT_NE(sent.find("mlx5_0 port 1"), std::string::npos) << sent;
    size_t sentWarnings = 0;
    for (size_t at = sent.find("WARN "); at != std::string::npos; at = sent.find("WARN ", at + 1)) ++sentWarnings;
    EXPECT_EQ(sentWarnings, 1u) << sent;
    // This side: its request fails (its own clear-to-send ran out of retries, or the sender gave the connection
    // up), in one WARN besides the event's, naming HCA and port.
    EXPECT_NE(after.result, ncclSuccess) << lines;
    ASSERT_EQ(warnings.size(), 2u) << lines;
    EXPECT_NE(warnings[1].find("mlx5_0 port 1"), std::string::npos) << warnings[1];
  }
  if (after.result == ncclSuccess) (void)net.closeRecv(first.recv);
  (void)net.closeListen(first.listen);
  takeWarnings();

  Receive second;  // a new connection once the port is ACTIVE again
  connectAndPost(net, peer, 2, second);
  peer.control().sendWord(1);
  EXPECT_EQ(peer.control().receiveText(Millis(20000), "the sender's second report"), "");
  const TestOutcome again = testUntil(net, second.request, kStepLimit);
  ASSERT_EQ(again.result, ncclSuccess);
  ASSERT_TRUE(again.done);
  EXPECT_EQ(checkMessage(second.buffer, 0xf1a90001u), "");
  peer.control().sendWord(1);
  EXPECT_EQ(peer.wait(kStepLimit), std::optional<int>(0));
  (void)net.closeRecv(second.recv);
  (void)net.closeListen(second.listen);
  EXPECT_EQ(endpoint.finalize(), ncclSuccess);
  EXPECT_TRUE(takeWarnings(&lines).empty()) << lines;
}

// 0.5: retries for about 17 s, past the flap; 0.03: about 1 s, inside it.
INSTANTIATE_TEST_SUITE_P(RetryBudgets, NetIbFlapTest, ::testing::Values("0.5", "0.03"),
                         [](const ::testing::TestParamInfo<const char*>& param) {
                           return std::string(param.param) == "0.5" ? "RetriesOutlastTheFlap"
                                                                    : "RetriesEndInsideTheFlap";
                         });

}  // namespace
}  // namespace railtune::testing::netfault
