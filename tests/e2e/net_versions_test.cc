// Every exported net ABI version (v6..v12), bound through the emulator's loader and driven through
// NCCL's call sites, carries a NCCL-like workload between two processes: random sizes from 0 bytes
// to several chunks, random tags, grouped receives matched by tag, 32 receives in flight, the
// optional receive completion NCCL asks for, iflush on host memory, then close and finalize.
#include <gtest/gtest.h>

#include "tests/e2e/net_fault_harness.h"
#include "tests/e2e/net_fault_workload.h"

namespace railtune::testing::netfault {
namespace {

constexpr int kReceives = 150;
constexpr size_t kReceivesInFlight = NCCL_NET_MAX_REQUESTS;
constexpr size_t kSendsInFlight = 2 * NCCL_NET_MAX_REQUESTS;  // NCCL may have up to 32 x maxRecvs sends out
constexpr Millis kTransferLimit(20000);

class NetVersionTest : public NetFaultTest, public ::testing::WithParamInterface<int> {
 protected:
  // The largest grouped receive the plugin accepts, as NCCL reads it.
  static int maxRecvs(emu::NetDriver& net) {
    ncclNetProperties_v12_t props{};
    return net.getProperties(0, &props) == ncclSuccess ? props.maxRecvs : -1;
  }
};

// The forked sender: same plan from the same seed, connects to the handle it is sent, sends
// everything, reports, and closes only when the receiver says it has checked every byte.
int sendingPeer(int version, uint32_t seed, Control& control) {
  NetEndpoint endpoint(version);
  if (!endpoint.bound() || endpoint.init() != ncclSuccess) return 2;
  const int recvs = [&] {
    ncclNetProperties_v12_t props{};
    return endpoint.net().getProperties(0, &props) == ncclSuccess ? props.maxRecvs : -1;
  }();
  Handle handle{};
  control.receive(handle.data(), handle.size(), kStepLimit, "listen handle");
  void* sendComm = nullptr;
  if (connectTo(endpoint.net(), 0, handle, &sendComm, kStepLimit) != ncclSuccess || sendComm == nullptr) return 3;
  const Plan plan = makePlan(seed, kReceives, recvs);
  control.sendText(runSender(endpoint.net(), sendComm, plan, kSendsInFlight, kTransferLimit));
  control.receiveWord(kTransferLimit, "the receiver's go-ahead to close");
  if (endpoint.net().closeSend(sendComm) != ncclSuccess) return 4;
  return endpoint.finalize() == ncclSuccess ? 0 : 5;
}

TEST_P(NetVersionTest, CarriesANcclLikeWorkloadBetweenTwoProcesses) {
  const int version = GetParam();
  const uint32_t seed = 0x5eed0000u + static_cast<uint32_t>(version);
  Watchdog watchdog(50, "NetVersionTest: workload between two processes");
  PeerProcess peer([&](Control& control) { return sendingPeer(version, seed, control); }, 45);

  NetEndpoint endpoint(version);
  ASSERT_TRUE(endpoint.bound()) << "ncclNetPlugin_v" << version << " not bound";
  ASSERT_EQ(endpoint.init(), ncclSuccess) << "init did not take the socket transport";
  int ndev = 0;
  ASSERT_EQ(endpoint.net().devices(&ndev), ncclSuccess);
  ASSERT_GE(ndev, 1);
  const int recvs = maxRecvs(endpoint.net());
  EXPECT_GE(recvs, 8) << "maxRecvs: grouped receives of at least 8 buffers";

  Handle handle{};
  void* listenComm = nullptr;
  ASSERT_EQ(endpoint.net().listen(0, handle.data(), &listenComm), ncclSuccess);
  peer.control().send(handle.data(), handle.size());
  void* recvComm = nullptr;
  ASSERT_EQ(acceptFrom(endpoint.net(), listenComm, &recvComm, kStepLimit), ncclSuccess);
  ASSERT_NE(recvComm, nullptr) << "the peer's connection never arrived";

  const Plan plan = makePlan(seed, kReceives, recvs);
  EXPECT_EQ(runReceiver(endpoint.net(), recvComm, plan, kReceivesInFlight, kTransferLimit), "");
  EXPECT_EQ(peer.control().receiveText(kTransferLimit, "the sender's report"), "");
  peer.control().sendWord(1);
  EXPECT_EQ(peer.wait(kStepLimit), std::optional<int>(0)) << "the sending peer failed";
  EXPECT_EQ(endpoint.net().closeRecv(recvComm), ncclSuccess);
  EXPECT_EQ(endpoint.net().closeListen(listenComm), ncclSuccess);
  EXPECT_EQ(endpoint.finalize(), ncclSuccess);
  std::string log;
  EXPECT_TRUE(takeWarnings(&log).empty()) << log;
}

// Zero-byte messages are legal (NCCL sends them) and travel like any other, alone and grouped.
TEST_P(NetVersionTest, ZeroByteMessagesWork) {
  Watchdog watchdog(20, "NetVersionTest: zero-byte messages");
  NetEndpoint endpoint(GetParam());
  ASSERT_EQ(endpoint.init(), ncclSuccess);
  LocalLink link;
  ASSERT_EQ(connectLocal(endpoint.net(), 0, link, kStepLimit), ncclSuccess);
  ASSERT_NE(link.send, nullptr);
  char bytes[2] = {'a', 'b'};
  void* data[2] = {&bytes[0], &bytes[1]};
  size_t sizes[2] = {0, 0};
  int tags[2] = {7, 9};
  void* recv = nullptr;
  ASSERT_EQ(endpoint.net().irecv(link.recv, 2, data, sizes, tags, nullptr, nullptr, &recv), ncclSuccess);
  void* sends[2] = {};
  ASSERT_EQ(endpoint.net().isend(link.send, &bytes[1], 0, 9, nullptr, nullptr, &sends[0]), ncclSuccess);
  ASSERT_EQ(endpoint.net().isend(link.send, &bytes[0], 0, 7, nullptr, nullptr, &sends[1]), ncclSuccess);
  ASSERT_NE(recv, nullptr);
  for (void* send : sends) EXPECT_TRUE(testUntil(endpoint.net(), send, kStepLimit).done);
  const TestOutcome received = testUntil(endpoint.net(), recv, kStepLimit);
  ASSERT_TRUE(received.done);
  EXPECT_EQ(received.sizes[0], 0);
  EXPECT_EQ(received.sizes[1], 0);
  EXPECT_EQ(bytes[0], 'a');
  EXPECT_EQ(bytes[1], 'b');
  EXPECT_EQ(endpoint.net().closeSend(link.send), ncclSuccess);
  EXPECT_EQ(endpoint.net().closeRecv(link.recv), ncclSuccess);
  EXPECT_EQ(endpoint.net().closeListen(link.listen), ncclSuccess);
}

INSTANTIATE_TEST_SUITE_P(EveryVersion, NetVersionTest, ::testing::Range(6, 13), versionName);

}  // namespace
}  // namespace railtune::testing::netfault
