// The verbs transport end to end: the real net .so with RAILTUNE_NET_TRANSPORT=ib, driven through NCCL's call
// sites at every exported net ABI version, carrying the NCCL-like workload of net_versions_test.cc (random sizes
// from 0 bytes, tags, grouped receives, 32 receives in flight, the optional receive completion, iflush) between
// two processes on two simulated hosts of the strict verbs simulator; then the fabrics and QP policies the
// transport must handle (RoCE, two planes, several QPs with data split, adversarial placement of bytes), and
// the faults (peer death, a port going down) that must surface as an error naming HCA and port.
#include <dlfcn.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <tuple>
#include <vector>

#include "formats/path_log.h"
#include "nccl/profiler_common.h"
#include "tests/e2e/net_fault_workload.h"
#include "tests/e2e/net_ib_harness.h"
#include "tests/e2e/net_ib_workload.h"
#include "tests/support/file_text.h"

namespace railtune::testing::netfault {
namespace {

class NetIbVersionTest : public NetFaultTest, public ::testing::WithParamInterface<int> {};

TEST_P(NetIbVersionTest, CarriesANcclLikeWorkloadBetweenTwoSimulatedHosts) {
  runIbWorkload(env, SimFabricSetup{}, GetParam(), randomPlan(0x1b000000u + static_cast<uint32_t>(GetParam())));
}

INSTANTIATE_TEST_SUITE_P(EveryVersion, NetIbVersionTest, ::testing::Range(6, 13),
                         [](const ::testing::TestParamInfo<int>& param) { return "v" + std::to_string(param.param); });

class NetIbTest : public NetFaultTest {};

TEST_F(NetIbTest, SplitsDataOverFourQpsAndRotatesThem) {
  SimFabricSetup setup;
  setup.qps = 4;
  setup.split = true;
  runIbWorkload(env, setup, kVersion, randomPlan(0x1b00000cu));
}

TEST_F(NetIbTest, RotatesMessagesOverFourQpsWithoutSplitting) {
  SimFabricSetup setup;
  setup.qps = 4;
  setup.split = false;
  runIbWorkload(env, setup, kVersion, randomPlan(0x1b00000cu));
}

TEST_F(NetIbTest, WritesEachConnectionsHcaGidAndQpsToThePathLog) {
  const std::string logs = std::filesystem::temp_directory_path() / ("railtune-ib-paths-" + std::to_string(getpid()));
  std::filesystem::create_directories(logs);
  SimFabricSetup setup;
  setup.qps = 4;
  setup.split = true;
  runIbWorkload(env, setup, kVersion, randomPlan(0x1b00000cu), logs);
  const std::vector<formats::path_log::ParsedRecord> records = pathRecords(logs);
  std::filesystem::remove_all(logs);
  std::vector<const formats::path_log::PathRecord*> connects;
  int closes = 0;
  for (const auto& parsed : records) {
    const formats::path_log::PathRecord& r = parsed.record;
    if (r.kind == formats::path_log::RecordKind::Connect) connects.push_back(&r);
    if (r.kind == formats::path_log::RecordKind::Close) {
      ++closes;
      uint64_t perQp = 0;
      for (int q = 0; q < r.traffic.qpCount; ++q) perQp += r.traffic.bytesPerQp[q];
      EXPECT_EQ(r.traffic.qpCount, 4) << "every QP carried a share of the split messages";
      EXPECT_GT(perQp, 0u);
      EXPECT_EQ(perQp, r.traffic.bytesSent + r.traffic.bytesReceived) << "the bytes per QP add up to the bytes moved";
    }
  }
  ASSERT_EQ(connects.size(), 2u) << "one connect record at each end";
  const formats::path_log::PathRecord& a = *connects[0];
  const formats::path_log::PathRecord& b = *connects[1];
  for (const formats::path_log::PathRecord* r : connects) {
    EXPECT_EQ(r->transport.view(), "ib");
    EXPECT_EQ(r->streams, 4);
    ASSERT_TRUE(r->verbs.present);
    EXPECT_EQ(r->verbs.port, 1);
    EXPECT_EQ(r->verbs.linkLayer.view(), "InfiniBand");
    EXPECT_EQ(r->verbs.mtu, 4096);
    EXPECT_EQ(r->verbs.qpCount, 4);
    EXPECT_EQ(r->verbs.gid.view().size(), 39u);
  }
  for (int q = 0; q < 4; ++q) {  // each end's QP q is connected to the other's QP q
    EXPECT_EQ(a.verbs.localQpn[q], b.verbs.remoteQpn[q]);
    EXPECT_EQ(a.verbs.remoteQpn[q], b.verbs.localQpn[q]);
  }
  EXPECT_GE(closes, 2) << "a close record at each end";
}

TEST_F(NetIbTest, CarriesTheWorkloadOverRoce) {
  SimFabricSetup setup;
  setup.fabric = "dgx-h100-roce";
  runIbWorkload(env, setup, kVersion, randomPlan(0x1b00000cu));
}

TEST_F(NetIbTest, CarriesTheWorkloadOnATwoPlaneFabric) {
  SimFabricSetup setup;
  setup.fabric = "gb300-2plane";
  runIbWorkload(env, setup, kVersion, randomPlan(0x1b00000cu));
}

TEST_F(NetIbTest, SurvivesBytesPlacedInShuffledPieces) {
  SimFabricSetup setup;
  setup.adversarial = true;
  setup.qps = 2;
  setup.split = true;
  runIbWorkload(env, setup, kVersion, randomPlan(0x1b00000cu));
}

TEST_F(NetIbTest, FlushesWithAnRdmaReadWhenGpuMemoryIsReachable) {
  SimFabricSetup setup;
  setup.peerMemory = true;
  runIbWorkload(env, setup, kVersion, randomPlan(0x1b00000cu));
}

// The peer, on host 1, connects and then dies (SIGKILL) or waits. `protocol`: an NCCL_PROTO of its own, which
// gives it another configuration digest.
int connectingPeer(const SimFabric& fabric, Control& control, const char* protocol = nullptr) {
  fabric.becomeHost(1);
  if (protocol != nullptr) setenv("NCCL_PROTO", protocol, 1);
  NetEndpoint endpoint(kVersion);
  if (endpoint.init() != ncclSuccess) return 2;
  Handle handle{};
  control.receive(handle.data(), handle.size(), kStepLimit, "listen handle");
  void* sendComm = nullptr;
  if (connectTo(endpoint.net(), 0, handle, &sendComm, kStepLimit) != ncclSuccess || sendComm == nullptr) return 3;
  control.sendWord(1);
  for (;;) pause();
}

struct ReceivingEnd {
  NetEndpoint endpoint{kVersion};
  void* listen = nullptr;
  void* recv = nullptr;
  std::vector<std::byte> buffer = std::vector<std::byte>(1 << 20);
  void* region = nullptr;
  void* request = nullptr;
};

// Connects host 0 (here) to the peer.
void connectFromPeer(PeerProcess& peer, ReceivingEnd& end) {
  ASSERT_EQ(end.endpoint.init(), ncclSuccess);
  Handle handle{};
  ASSERT_EQ(end.endpoint.net().listen(0, handle.data(), &end.listen), ncclSuccess);
  peer.control().send(handle.data(), handle.size());
  ASSERT_EQ(acceptFrom(end.endpoint.net(), end.listen, &end.recv, kStepLimit), ncclSuccess);
  ASSERT_NE(end.recv, nullptr);
  peer.control().receiveWord(kStepLimit, "the peer connected");
  ASSERT_EQ(end.endpoint.net().regMr(end.recv, end.buffer.data(), end.buffer.size(), NCCL_PTR_HOST, &end.region),
            ncclSuccess);
}

// Posts one receive the peer never sends into (its clear-to-send is an RDMA write to the peer).
void postReceive(ReceivingEnd& end) {
  void* data[1] = {end.buffer.data()};
  size_t sizes[1] = {end.buffer.size()};
  int tags[1] = {7};
  void* regions[1] = {end.region};
  ASSERT_EQ(end.endpoint.net().irecv(end.recv, 1, data, sizes, tags, regions, nullptr, &end.request), ncclSuccess);
  ASSERT_NE(end.request, nullptr);
}

void receiveFromPeer(PeerProcess& peer, ReceivingEnd& end) {
  connectFromPeer(peer, end);
  if (!::testing::Test::HasFatalFailure()) postReceive(end);
}

// How soon is not asserted (a timing; the watchdogs end a hang): that the failure comes, and how it reads.
TEST_F(NetIbTest, APeerThatDiesFailsTheWaitingReceiver) {
  SimFabric fabric(env, SimFabricSetup{});
  Watchdog watchdog(30, "NetIbTest: peer death");
  PeerProcess peer([&](Control& control) { return connectingPeer(fabric, control); }, 25);
  ReceivingEnd end;
  receiveFromPeer(peer, end);
  takeWarnings();
  peer.kill(SIGKILL);
  const TestOutcome outcome = testUntil(end.endpoint.net(), end.request, Millis(20000));
  EXPECT_NE(outcome.result, ncclSuccess) << "no error within 20 s of the peer's death";
  std::string lines;
  const std::vector<std::string> warnings = takeWarnings(&lines);
  ASSERT_EQ(warnings.size(), 1u) << lines;
  EXPECT_NE(warnings[0].find("mlx5_0 port 1"), std::string::npos) << warnings[0];
  (void)end.endpoint.net().closeRecv(end.recv);
  (void)end.endpoint.net().closeListen(end.listen);
}

// A port that stays down: the event is one WARN and fails nothing by itself (NCCL's rule); the receive posted
// after it, whose clear-to-send cannot leave, fails when that write runs out of retries, in one WARN naming the
// status, the HCA and port, and that the port is down.
TEST_F(NetIbTest, APortThatStaysDownFailsTheWorkOnItNamingHcaAndPort) {
  SimFabric fabric(env, SimFabricSetup{});
  Watchdog watchdog(40, "NetIbTest: port down");
  PeerProcess peer([&](Control& control) { return connectingPeer(fabric, control); }, 35);
  ReceivingEnd end;
  connectFromPeer(peer, end);
  takeWarnings();
  ASSERT_EQ(SimFabric::control("port_down mlx5_0 1"), 0);
  std::string lines;
  pollUntil([&] { return !takeWarnings(&lines).empty(); }, Millis(20000));  // the async watcher's WARN
  postReceive(end);
  const TestOutcome outcome = testUntil(end.endpoint.net(), end.request, Millis(20000));
  EXPECT_NE(outcome.result, ncclSuccess) << "no error within 20 s (the retries take about 1.7 s)";
  const std::vector<std::string> warnings = takeWarnings(&lines);
  ASSERT_NE(lines.find("WARN"), std::string::npos) << lines;
  EXPECT_NE(lines.find("IBV_EVENT_PORT_ERR on mlx5_0 port 1"), std::string::npos) << lines;
  ASSERT_EQ(warnings.size(), 1u) << lines;
  EXPECT_NE(warnings[0].find("IBV_WC_RETRY_EXC_ERR"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("mlx5_0 port 1"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("the port is down since IBV_EVENT_PORT_ERR"), std::string::npos) << warnings[0];
  (void)end.endpoint.net().closeRecv(end.recv);
  (void)end.endpoint.net().closeListen(end.listen);
}

TEST_F(NetIbTest, ADigestMismatchOverVerbsIsOneWarningAndTheConnectionWorks) {
  SimFabric fabric(env, SimFabricSetup{});
  Watchdog watchdog(30, "NetIbTest: digest mismatch");
  PeerProcess peer([&](Control& control) { return connectingPeer(fabric, control, "Simple"); }, 25);
  ReceivingEnd end;
  receiveFromPeer(peer, end);
  std::string lines;
  const std::vector<std::string> warnings = takeWarnings(&lines);
  ASSERT_EQ(warnings.size(), 1u) << lines;
  EXPECT_NE(warnings[0].find("different rules, rail map or environment"), std::string::npos) << warnings[0];
  (void)end.endpoint.net().closeRecv(end.recv);
  (void)end.endpoint.net().closeListen(end.listen);
}

// Profiler events through NCCL's callback: railtune's own per transfer, and NCCL's IB descriptor per QP.
struct SeenIbEvent {
  int64_t pluginId = 0;
  ncclProfilerNetIbDescr_v1_t ib{};
};
std::vector<SeenIbEvent> gIbStarted;
int gIbStopped = 0;
int gIbToken = 0;

ncclResult_t recordingIbProfiler(void** eHandle, int type, void* /*pHandle*/, int64_t pluginId, void* extData) {
  if (type == ncclProfilerNetEventStart) {
    SeenIbEvent seen;
    seen.pluginId = pluginId;
    if ((pluginId & NCCL_PROFILER_NET_TYPE_MASK) == NCCL_PROFILER_NET_TYPE_IB)
      seen.ib = *static_cast<ncclProfilerNetIbDescr_v1_t*>(extData);
    gIbStarted.push_back(seen);
    *eHandle = &gIbToken;
  } else if (type == ncclProfilerNetEventStop) {
    ++gIbStopped;
  }
  return ncclSuccess;
}

TEST_F(NetIbTest, ProfilerEventsCarryNcclsIbDescriptorPerQp) {
  SimFabricSetup setup;
  setup.qps = 2;
  setup.split = true;
  SimFabric fabric(env, setup);
  gIbStarted.clear();
  gIbStopped = 0;
  const emu::Binding binding = emu::Loader::bindVersion(emu::PluginKind::Net, pluginPath("net"), kVersion);
  ASSERT_TRUE(binding);
  emu::NetDriver net(binding);
  ASSERT_EQ(net.init(0x1b, NCCL_NET_TRAFFIC_CLASS_UNDEF, emu::pluginLogger(), recordingIbProfiler), ncclSuccess);
  LocalLink link;
  ASSERT_EQ(connectLocal(net, 0, link, kStepLimit), ncclSuccess);
  std::vector<std::byte> out(1 << 16, std::byte{0x11}), in(1 << 16);
  void* outRegion = nullptr;
  void* inRegion = nullptr;
  ASSERT_EQ(net.regMr(link.send, out.data(), out.size(), NCCL_PTR_HOST, &outRegion), ncclSuccess);
  ASSERT_EQ(net.regMr(link.recv, in.data(), in.size(), NCCL_PTR_HOST, &inRegion), ncclSuccess);
  int parent = 0;
  void* data[1] = {in.data()};
  size_t sizes[1] = {in.size()};
  int tags[1] = {3};
  void* regions[1] = {inRegion};
  void* phandles[1] = {&parent};
  void* recv = nullptr;
  void* send = nullptr;
  ASSERT_EQ(net.irecv(link.recv, 1, data, sizes, tags, regions, phandles, &recv), ncclSuccess);
  ASSERT_TRUE(pollUntil(
      [&] {
        return net.isend(link.send, out.data(), out.size(), 3, outRegion, &parent, &send) != ncclSuccess ||
               send != nullptr;
      },
      kStepLimit));
  ASSERT_NE(send, nullptr);
  EXPECT_TRUE(testUntil(net, send, kStepLimit).done);
  EXPECT_TRUE(testUntil(net, recv, kStepLimit).done);
  EXPECT_EQ(in, out);
  int railtuneEvents = 0, sendQps = 0, recvQps = 0;
  for (const SeenIbEvent& e : gIbStarted) {
    if ((e.pluginId & NCCL_PROFILER_NET_TYPE_MASK) != NCCL_PROFILER_NET_TYPE_IB) {
      ++railtuneEvents;
      continue;
    }
    EXPECT_EQ(e.pluginId, NCCL_PROFILER_NET_TYPE_IB | 1);
    EXPECT_EQ(e.ib.type, ncclProfileQp);
    EXPECT_EQ(e.ib.qp.device, 0);
    EXPECT_NE(e.ib.qp.qpNum, 0);
    if (e.ib.qp.opcode == -1) {
      ++recvQps;
      EXPECT_EQ(e.ib.qp.length, 0u);
    } else {
      ++sendQps;
      EXPECT_EQ(e.ib.qp.length, out.size() / 2) << "each of the 2 QPs carries half of the split message";
    }
  }
  EXPECT_EQ(railtuneEvents, 2) << "one railtune event per transfer";
  EXPECT_EQ(sendQps, 2);
  EXPECT_EQ(recvQps, 2);
  EXPECT_EQ(gIbStopped, static_cast<int>(gIbStarted.size())) << "every event stopped when its request completed";
  EXPECT_EQ(net.deregMr(link.send, outRegion), ncclSuccess);
  EXPECT_EQ(net.deregMr(link.recv, inRegion), ncclSuccess);
  EXPECT_EQ(net.closeSend(link.send), ncclSuccess);
  EXPECT_EQ(net.closeRecv(link.recv), ncclSuccess);
  EXPECT_EQ(net.closeListen(link.listen), ncclSuccess);
  EXPECT_EQ(net.finalize(), ncclSuccess);
}

TEST_F(NetIbTest, AFabricThatStopsAcknowledgingFailsTheConnectionWithRetryExceeded) {
  SimFabric fabric(env, SimFabricSetup{});
  NetEndpoint endpoint(kVersion);
  ASSERT_EQ(endpoint.init(), ncclSuccess);
  LoopedBack loop(endpoint.net());
  ASSERT_EQ(connectLocal(endpoint.net(), 0, loop.link, kStepLimit), ncclSuccess);
  ASSERT_EQ(SimFabric::control("drop_acks on"), 0);  // the wire still carries the packets; no ACK comes back
  loop.post();
  (void)endpoint.net().isend(loop.link.send, loop.out.data(), loop.out.size(), 1, loop.outRegion, nullptr, &loop.send);
  takeWarnings();
  const ncclResult_t failed = firstFailure(endpoint.net(), {loop.recv, loop.send}, Millis(20000));
  EXPECT_NE(failed, ncclSuccess) << "no error within 20 s (timeout 20 x 8 tries, about 1.7 s on the scaled clock)";
  std::string lines;
  const std::vector<std::string> warnings = takeWarnings(&lines);
  ASSERT_FALSE(warnings.empty()) << lines;
  EXPECT_NE(warnings[0].find("IBV_WC_RETRY_EXC_ERR"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("mlx5_0 port 1"), std::string::npos) << warnings[0];
  (void)SimFabric::control("drop_acks off");
}

TEST_F(NetIbTest, AFatalQpEventFailsItsConnectionNamingTheQp) {
  SimFabricSetup setup;
  setup.qps = 1;  // one QP each end: the test names the QP it takes down
  SimFabric fabric(env, setup);
  NetEndpoint endpoint(kVersion);
  ASSERT_EQ(endpoint.init(), ncclSuccess);
  LoopedBack loop(endpoint.net());
  ASSERT_EQ(connectLocal(endpoint.net(), 0, loop.link, kStepLimit), ncclSuccess);
  const std::vector<uint32_t> qpns = SimFabric::qpNumbers();
  ASSERT_EQ(qpns.size(), 2u) << "one QP each end";
  takeWarnings();
  ASSERT_EQ(SimFabric::control("qp_fatal " + std::to_string(qpns[1])), 0);
  // The watcher reports the event within its poll period, naming the event and the QP ...
  std::string lines;
  bool named = false;
  pollUntil(
      [&] {
        for (const std::string& w : takeWarnings(&lines))
          named = named || (w.find("IBV_EVENT_QP_FATAL") != std::string::npos &&
                            w.find(std::to_string(qpns[1])) != std::string::npos);
        return named;
      },
      Millis(2000));
  EXPECT_TRUE(named) << lines;
  // ... and the next call on the connection fails.
  ASSERT_EQ(endpoint.net().regMr(loop.link.recv, loop.in.data(), loop.in.size(), NCCL_PTR_HOST, &loop.inRegion),
            ncclSuccess);
  void* data[1] = {loop.in.data()};
  size_t sizes[1] = {loop.in.size()};
  int tags[1] = {1};
  void* regions[1] = {loop.inRegion};
  EXPECT_NE(endpoint.net().irecv(loop.link.recv, 1, data, sizes, tags, regions, nullptr, &loop.recv), ncclSuccess);
  const std::vector<std::string> warnings = takeWarnings(&lines);
  ASSERT_EQ(warnings.size(), 1u) << lines;
  EXPECT_NE(warnings[0].find("IBV_EVENT_QP_FATAL"), std::string::npos) << warnings[0];
}

// A receive buffer registered by DMA-BUF (a memfd stands in for a GPU buffer's dma-buf): the device advertises
// NCCL_PTR_DMABUF (NCCL's probe: fd -1 fails with EBADF, not EOPNOTSUPP) and the bytes land in the fd's pages.
TEST_F(NetIbTest, ReceivesIntoADmaBufRegistration) {
  SimFabric fabric(env, SimFabricSetup{});
  NetEndpoint endpoint(kVersion);
  ASSERT_EQ(endpoint.init(), ncclSuccess);
  ncclNetProperties_v12_t props{};
  ASSERT_EQ(endpoint.net().getProperties(0, &props), ncclSuccess);
  EXPECT_NE(props.ptrSupport & NCCL_PTR_DMABUF, 0);
  LoopedBack loop(endpoint.net());
  ASSERT_EQ(connectLocal(endpoint.net(), 0, loop.link, kStepLimit), ncclSuccess);
  const size_t bytes = 1 << 20;
  const int fd = memfd_create("railtune-dmabuf", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, static_cast<off_t>(bytes)), 0);
  void* mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ASSERT_NE(mapped, MAP_FAILED);
  void* inRegion = nullptr;
  ASSERT_EQ(endpoint.net().regMrDmaBuf(loop.link.recv, mapped, bytes, NCCL_PTR_CUDA, 0, fd, &inRegion), ncclSuccess);
  ASSERT_EQ(endpoint.net().regMr(loop.link.send, loop.out.data(), bytes, NCCL_PTR_HOST, &loop.outRegion), ncclSuccess);
  void* data[1] = {mapped};
  size_t sizes[1] = {bytes};
  int tags[1] = {5};
  void* regions[1] = {inRegion};
  ASSERT_EQ(endpoint.net().irecv(loop.link.recv, 1, data, sizes, tags, regions, nullptr, &loop.recv), ncclSuccess);
  ASSERT_TRUE(pollUntil(
      [&] {
        return endpoint.net().isend(loop.link.send, loop.out.data(), bytes, 5, loop.outRegion, nullptr, &loop.send) !=
                   ncclSuccess ||
               loop.send != nullptr;
      },
      kStepLimit));
  EXPECT_TRUE(testUntil(endpoint.net(), loop.send, kStepLimit).done);
  EXPECT_TRUE(testUntil(endpoint.net(), loop.recv, kStepLimit).done);
  EXPECT_EQ(std::memcmp(mapped, loop.out.data(), bytes), 0);
  EXPECT_EQ(endpoint.net().deregMr(loop.link.recv, inRegion), ncclSuccess);
  munmap(mapped, bytes);
  close(fd);
}

// The QP policy reads the rail map's network facts, as `railtune topo env` reads the fabric they were written
// from: a RoCE fabric with ECMP gets 4 QPs per connection, one declared with adaptive routing 1.
std::string roceRailMap(const std::string& network) {
  std::string hosts;
  for (int h = 0; h < 2; ++h) {
    hosts += std::string(h == 0 ? "" : ",") + "{\"name\": \"host" + std::to_string(h) + "\", \"domain\": \"d" +
             std::to_string(h) + "\", \"gpus\": [{\"index\": 0, \"bus_id\": \"0000:18:00.0\", " +
             "\"nics\": [{\"hca\": \"mlx5_0\", \"netdev\": \"\", \"bus_id\": \"0000:1a:00.0\", \"port\": 1, " +
             "\"rail\": 0, \"plane\": -1}]}]}";
  }
  return "{\"schema\": \"railtune.rail_map.v1\", \"cluster\": \"roce\", \"rails\": 1, \"planes\": 1, " + network +
         "\"hosts\": [" + hosts + "]}\n";
}

TEST_F(NetIbTest, TheRailMapsNetworkFactsChooseTheQps) {
  // RoCE with ECMP: 4 QPs, AR off; with adaptive routing: what OCI GB300 measured, 4 QPs, AR on (docs/qp-policy.md).
  for (const auto& [network, qps, ar] :
       {std::tuple<std::string, int, int>{"\"network\": {\"link_layer\": \"Ethernet\"}, ", 4, 0},
        {"\"network\": {\"link_layer\": \"Ethernet\", \"adaptive_routing\": true}, ", 4, 1}}) {
    SimFabricSetup setup;
    setup.fabric = "dgx-h100-roce";
    // Cleared: the rail map's facts decide the QP count only where the user set none.
    setup.env = {{"NCCL_IB_QPS_PER_CONNECTION", std::nullopt}, {"RAILTUNE_NET_QPS", std::nullopt}};
    SimFabric fabric(env, setup);
    const std::string map = fabric.dir() + "/rail-map.json";
    std::ofstream(map) << roceRailMap(network);
    env.set("RAILTUNE_RAIL_MAP", map);
    env.set("RAILTUNE_HOST", "host0");
    NetEndpoint endpoint(kVersion);
    const ncclResult_t init = endpoint.init();
    std::string lines;
    takeWarnings(&lines);
    ASSERT_EQ(init, ncclSuccess) << lines;
    EXPECT_NE(lines.find("fabric shape from the rail map"), std::string::npos) << lines;
    EXPECT_NE(lines.find(", " + std::to_string(qps) + " QPs per connection"), std::string::npos) << network << lines;
    EXPECT_NE(lines.find("QP policy: NCCL_IB_ADAPTIVE_ROUTING=" + std::to_string(ar) + " "), std::string::npos)
        << network << lines;
    EXPECT_EQ(endpoint.finalize(), ncclSuccess);
    env.unset("RAILTUNE_RAIL_MAP");
    env.unset("RAILTUNE_HOST");
    if (HasFailure()) break;
  }
}

// Settings measured on the fabric (`railtune topo rail-map --measured`, the map's `network.measured`) win over the
// QP policy's defaults: on RoCE with ECMP the policy alone opens 4 QPs per connection; measured, 8, split. Both ends
// open 8 (the path log's connect records), and the plugin logs where the count came from.
TEST_F(NetIbTest, TheRailMapsMeasuredSettingsOpenTheMeasuredQpCount) {
  const std::string measured =
      "\"network\": {\"link_layer\": \"Ethernet\", \"measured\": {\"source\": \"measured: net-env.json, allreduce on "
      "16 ranks on 2 nodes, +40% median (+10% to +50%) at 1M-1G, 3 runs against 3\", \"env\": "
      "{\"NCCL_IB_QPS_PER_CONNECTION\": \"8\", \"NCCL_IB_SPLIT_DATA_ON_QPS\": \"1\"}}}, ";
  const std::string dir = std::filesystem::temp_directory_path() / ("railtune-ib-measured-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir + "/logs");
  const std::string map = dir + "/rail-map.json";
  std::ofstream(map) << roceRailMap(measured);
  SimFabricSetup setup;
  setup.fabric = "dgx-h100-roce";
  setup.env = {{"NCCL_IB_QPS_PER_CONNECTION", std::nullopt},
               {"NCCL_IB_SPLIT_DATA_ON_QPS", std::nullopt},
               {"RAILTUNE_NET_QPS", std::nullopt},
               {"RAILTUNE_RAIL_MAP", map},
               {"RAILTUNE_HOST", "host0"}};
  {
    SimFabric fabric(env, setup);
    NetEndpoint endpoint(kVersion);
    const ncclResult_t init = endpoint.init();
    std::string lines;
    takeWarnings(&lines);
    ASSERT_EQ(init, ncclSuccess) << lines;
    EXPECT_NE(lines.find("QP policy: the rail map's measured settings (measured: net-env.json, allreduce on 16 ranks"),
              std::string::npos)
        << lines;
    EXPECT_NE(lines.find("QP policy: NCCL_IB_QPS_PER_CONNECTION=8 (measured: net-env.json"), std::string::npos)
        << lines;
    EXPECT_NE(lines.find("QP policy: NCCL_IB_SPLIT_DATA_ON_QPS=1 (measured: net-env.json"), std::string::npos) << lines;
    EXPECT_NE(lines.find(", 8 QPs per connection"), std::string::npos) << lines;
    EXPECT_EQ(endpoint.finalize(), ncclSuccess);
  }
  // Both ends (the forked peer too reads the map, as host0's NICs are host1's) open 8 QPs per connection.
  runIbWorkload(env, setup, kVersion, sizesPlan({4 << 20, 4096}, 0x5eed1010u), dir + "/logs");
  int connects = 0;
  for (const auto& parsed : pathRecords(dir + "/logs")) {
    const formats::path_log::PathRecord& r = parsed.record;
    if (r.kind != formats::path_log::RecordKind::Connect) continue;
    ++connects;
    EXPECT_EQ(r.verbs.qpCount, 8);
  }
  EXPECT_EQ(connects, 2);
  env.unset("RAILTUNE_RAIL_MAP");
  env.unset("RAILTUNE_HOST");
  std::filesystem::remove_all(dir);
}

// What the libibverbs the plugin falls back to (NCCL's names: libibverbs.so, then libibverbs.so.1) does on this
// machine, asked in a child process so that this one never loads it: none installed, rdma-core without an RDMA
// device or driver (ibv_get_device_list fails with ENOSYS), or one that lists the host's own HCAs.
enum class DefaultVerbs { Absent, CannotList, Lists, Unusable };

DefaultVerbs probeDefaultVerbs() {
  const pid_t child = fork();
  if (child == 0) {
    for (const char* name : {"libibverbs.so", "libibverbs.so.1"}) {
      void* library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (library == nullptr) continue;
      auto* list = reinterpret_cast<void** (*)(int*)>(dlsym(library, "ibv_get_device_list"));
      int count = 0;
      _exit(list == nullptr ? 3 : list(&count) == nullptr ? 1 : 2);
    }
    _exit(0);
  }
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status)) return DefaultVerbs::Unusable;
  const DefaultVerbs seen[] = {DefaultVerbs::Absent, DefaultVerbs::CannotList, DefaultVerbs::Lists};
  return WEXITSTATUS(status) < 3 ? seen[WEXITSTATUS(status)] : DefaultVerbs::Unusable;
}

TEST_F(NetIbTest, StepsAsideWithOneWarningWhenLibibverbsCannotServeTheDevices) {
  // Once a test of this process has loaded the simulator, dlopen("libibverbs.so.1") finds it by its soname.
  if (void* loaded = dlopen(VERBS_SIM_LIBRARY, RTLD_NOW | RTLD_NOLOAD); loaded != nullptr) {
    dlclose(loaded);
    GTEST_SKIP() << "the simulator is already loaded in this process (ctest runs this test alone)";
  }
  const DefaultVerbs fallback = probeDefaultVerbs();
  SimFabric fabric(env, SimFabricSetup{});
  env.set("NCCL_IBVERBS_LIB", "/nonexistent/libibverbs.so.1");
  NetEndpoint endpoint(kVersion);
  ASSERT_TRUE(endpoint.bound());
  const ncclResult_t init = endpoint.init();
  std::string lines;
  const std::vector<std::string> warnings = takeWarnings(&lines);
  EXPECT_NE(init, ncclSuccess) << "init must fail so that NCCL moves on to its own transport\n" << lines;
  ASSERT_EQ(warnings.size(), 1u) << lines;
  EXPECT_NE(warnings[0].find("stepping aside"), std::string::npos) << warnings[0];
  // The one reason that applies here, whether or not rdma-core is installed (CI runs this both ways).
  switch (fallback) {
    case DefaultVerbs::Absent:  // no rdma-core: the simulator's fabric is not reachable without its library
      EXPECT_NE(warnings[0].find("libibverbs not found"), std::string::npos) << warnings[0];
      EXPECT_NE(warnings[0].find("/nonexistent/libibverbs.so.1"), std::string::npos) << warnings[0];
      break;
    case DefaultVerbs::CannotList:  // rdma-core without an RDMA device: it loads, then cannot list devices
      EXPECT_NE(warnings[0].find("through libibverbs.so"), std::string::npos) << warnings[0];
      EXPECT_NE(warnings[0].find("ibv_get_device_list failed"), std::string::npos) << warnings[0];
      break;
    case DefaultVerbs::Lists:  // a host with HCAs of its own: none is the simulated mlx5_0 it was given
      EXPECT_NE(warnings[0].find("through libibverbs.so"), std::string::npos) << warnings[0];
      EXPECT_NE(warnings[0].find("mlx5_0"), std::string::npos) << warnings[0];
      break;
    case DefaultVerbs::Unusable:
      EXPECT_NE(warnings[0].find("libibverbs"), std::string::npos) << warnings[0];
      break;
  }
}

}  // namespace
}  // namespace railtune::testing::netfault
