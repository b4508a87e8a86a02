// The wired net plugin through the emulator (NCCL 2.30, net v12), as one emulated GB300 tray: the
// rail map gives four HCAs on rails 0..3, each bound to its own loopback address. Checks what the
// plugin adds on top of the transport: devices and their rails, the handshake header, the rail check
// against the served GPU (LOCAL_RANK), the misbinding fault, the path log records with their
// counters, profiler events naming the NIC, and digest mismatches between processes (fork).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "emulator/logger.h"
#include "emulator/net_driver.h"
#include "formats/net_event.h"
#include "formats/path_log.h"
#include "tests/e2e/emulated_fixture.h"

namespace railtune::testing {
namespace {

namespace fs = std::filesystem;
using emu::NcclBehaviour;
using formats::path_log::ParsedRecord;
using formats::path_log::RecordKind;

const std::string kData = std::string(RAILTUNE_SOURCE_DIR) + "/tests/data";

class NetPathsTest : public EmulatedTest {
 protected:
  void SetUp() override {
    EmulatedTest::SetUp();
    dir = fs::path(::testing::TempDir()) / ("railtune-net-paths-" + std::to_string(getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir / "paths");
    std::ofstream(dir / "addresses") << "ibp3s0 127.0.10.1\nibP2p3s0 127.0.10.2\nibP16p3s0 127.0.10.3\n"
                                        "ibP18p3s0 127.0.10.4\n";
    env.set("RAILTUNE_NET_TRANSPORT", "socket");  // the fake tree's ports are ACTIVE
    env.set("RAILTUNE_NET_SYSFS_ROOT", kData + "/discover/sysfs/gb300-1plane");
    env.set("RAILTUNE_RAIL_MAP", kData + "/net/gb300-tray.rail-map.json");
    env.set("RAILTUNE_HOST", "gb300-r00-t00");
    env.set("RAILTUNE_NET_ADDRESS_FILE", (dir / "addresses").string());
    env.set("RAILTUNE_PATH_LOG_DIR", (dir / "paths").string());
    env.set("RAILTUNE_JOB_ID", "paths-test");
    env.set("LOCAL_RANK", "1");
    env.unset("RAILTUNE_NET_FAULT_MISBIND");
    env.unset("RAILTUNE_STRICT");
  }
  void TearDown() override {
    driver.reset();
    fs::remove_all(dir);
    EmulatedTest::TearDown();
  }
  void start(ncclProfilerCallback_t profiler = emu::idleProfilerCallback()) {
    const emu::Binding binding = emu::Loader::bindVersion(emu::PluginKind::Net, pluginPath("net"), 12);
    ASSERT_TRUE(binding);
    driver = std::make_unique<emu::NetDriver>(binding);
    ASSERT_EQ(driver->init(0xc0ffee, NCCL_NET_TRAFFIC_CLASS_UNDEF, emu::pluginLogger(), profiler), ncclSuccess)
        << pluginLogText();
  }
  // listen on `listenDev`, connect from `connectDev`, accept: NCCL's loop, bounded.
  void connectPair(int listenDev, int connectDev) {
    char handle[NCCL_NET_HANDLE_MAXSIZE] = {};
    ASSERT_EQ(driver->listen(listenDev, handle, &listenComm), ncclSuccess) << pluginLogText();
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while ((sendComm == nullptr || recvComm == nullptr) && std::chrono::steady_clock::now() < end) {
      ncclNetDeviceHandle_v12_t* dev = nullptr;
      if (sendComm == nullptr) {
        ASSERT_EQ(driver->connect(connectDev, handle, &sendComm, &dev), ncclSuccess);
      }
      if (recvComm == nullptr) {
        ASSERT_EQ(driver->accept(listenComm, &recvComm, &dev), ncclSuccess);
      }
    }
    ASSERT_TRUE(sendComm != nullptr && recvComm != nullptr) << pluginLogText();
  }
  // One message of `size` bytes with `tag`, checked byte for byte.
  void transfer(size_t size, int tag, void* sendPhandle = nullptr, void* recvPhandle = nullptr) {
    std::vector<char> out(size), in(size);
    for (size_t i = 0; i < size; ++i) out[i] = static_cast<char>(i * 7 + 3);
    void *sendMr = nullptr, *recvMr = nullptr, *sendReq = nullptr, *recvReq = nullptr;
    ASSERT_EQ(driver->regMr(sendComm, out.data(), size, NCCL_PTR_HOST, &sendMr), ncclSuccess);
    ASSERT_EQ(driver->regMr(recvComm, in.data(), size, NCCL_PTR_HOST, &recvMr), ncclSuccess);
    void* data[1] = {in.data()};
    size_t sizes[1] = {size};
    int tags[1] = {tag};
    void* mrs[1] = {recvMr};
    void* phandles[1] = {recvPhandle};
    ASSERT_EQ(driver->irecv(recvComm, 1, data, sizes, tags, mrs, phandles, &recvReq), ncclSuccess);
    ASSERT_EQ(driver->isend(sendComm, out.data(), size, tag, sendMr, sendPhandle, &sendReq), ncclSuccess);
    int sendDone = 0, recvDone = 0, got[1] = {};
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!(sendDone && recvDone) && std::chrono::steady_clock::now() < end) {
      int ignored[1] = {};
      if (!sendDone) {
        ASSERT_EQ(driver->test(sendReq, &sendDone, ignored), ncclSuccess);
      }
      if (!recvDone) {
        ASSERT_EQ(driver->test(recvReq, &recvDone, got), ncclSuccess);
      }
    }
    ASSERT_TRUE(sendDone && recvDone);
    EXPECT_EQ(static_cast<size_t>(got[0]), size);
    EXPECT_EQ(in, out);
    EXPECT_EQ(driver->deregMr(sendComm, sendMr), ncclSuccess);
    EXPECT_EQ(driver->deregMr(recvComm, recvMr), ncclSuccess);
  }
  void closeAll() {
    EXPECT_EQ(driver->closeSend(sendComm), ncclSuccess);
    EXPECT_EQ(driver->closeRecv(recvComm), ncclSuccess);
    EXPECT_EQ(driver->closeListen(listenComm), ncclSuccess);
    EXPECT_EQ(driver->finalize(), ncclSuccess);  // the last context: the engine goes, the log is flushed
  }
  std::vector<ParsedRecord> pathLog() {
    std::vector<ParsedRecord> all;
    for (const auto& entry : fs::directory_iterator(dir / "paths")) {
      std::stringstream text;
      text << std::ifstream(entry.path()).rdbuf();
      formats::path_log::ParseAllResult parsed = formats::path_log::parseRecords(text.str(), entry.path().string());
      EXPECT_TRUE(parsed.error.empty()) << parsed.error;
      for (ParsedRecord& r : parsed.records) all.push_back(std::move(r));
    }
    return all;
  }
  static std::vector<ParsedRecord> ofKind(const std::vector<ParsedRecord>& all, RecordKind kind) {
    std::vector<ParsedRecord> out;
    for (const ParsedRecord& r : all)
      if (r.record.kind == kind) out.push_back(r);
    return out;
  }

  fs::path dir;
  std::unique_ptr<emu::NetDriver> driver;
  void *listenComm = nullptr, *sendComm = nullptr, *recvComm = nullptr;
};

TEST_F(NetPathsTest, DevicesAreTheRailMapsHcasWithTheirRails) {
  start();
  int ndev = 0;
  ASSERT_EQ(driver->devices(&ndev), ncclSuccess);
  ASSERT_EQ(ndev, 4) << pluginLogText();
  for (int d = 0; d < ndev; ++d) {
    ncclNetProperties_v12_t props{};
    ASSERT_EQ(driver->getProperties(d, &props), ncclSuccess);
    EXPECT_EQ(std::string(props.name), "mlx5_" + std::to_string(d));
    EXPECT_EQ(props.railId, d);
    ASSERT_NE(props.pciPath, nullptr) << "NCCL computes the GPU-NIC distance from it";
    EXPECT_EQ(props.maxRecvs, 8);
    EXPECT_EQ(props.port, 1);
    EXPECT_NE(props.guid, 0u);
  }
  EXPECT_EQ(driver->finalize(), ncclSuccess);
}

TEST_F(NetPathsTest, MakeVDeviceFusesNicsAsNcclsIbTransportDoes) {
  start();
  ASSERT_TRUE(driver->hasMakeVDevice());
  ncclNetVDeviceProps_v12_t props{};
  props.ndevs = 2;
  props.devs[0] = 0;
  props.devs[1] = 1;
  int fused = -1;
  ASSERT_EQ(driver->makeVDevice(&fused, &props), ncclSuccess) << pluginLogText();
  EXPECT_EQ(fused, 4) << "appended after the four physical devices";
  int ndev = 0;
  ASSERT_EQ(driver->devices(&ndev), ncclSuccess);
  EXPECT_EQ(ndev, 5);
  ncclNetProperties_v12_t merged{}, first{};
  ASSERT_EQ(driver->getProperties(fused, &merged), ncclSuccess);
  ASSERT_EQ(driver->getProperties(0, &first), ncclSuccess);
  EXPECT_STREQ(merged.name, "mlx5_0+mlx5_1");
  EXPECT_EQ(merged.speed, 2 * first.speed);
  EXPECT_EQ(merged.railId, -1) << "members on different rails: the fused device has none";
  ASSERT_EQ(merged.vProps.ndevs, 2);
  EXPECT_EQ(merged.vProps.devs[1], 1);
  // Traffic on the fused device travels on its first member.
  connectPair(fused, fused);
  transfer(70000, 9);
  // Refused with the reason: a repeated member, an unknown one.
  props.devs[1] = 0;
  EXPECT_EQ(driver->makeVDevice(&fused, &props), ncclInvalidArgument);
  props.devs[1] = 17;
  EXPECT_EQ(driver->makeVDevice(&fused, &props), ncclInvalidArgument);
  EXPECT_EQ(pluginWarnings().size(), 2u) << pluginLogText();
  closeAll();
}

TEST_F(NetPathsTest, AConnectionOnItsGpusRailIsLoggedWithBothEndsAndItsTraffic) {
  start();
  connectPair(1, 1);
  transfer(3 << 20, 7);
  transfer(100, 7);
  closeAll();
  EXPECT_TRUE(pluginWarnings().empty()) << pluginLogText();
  const std::vector<ParsedRecord> all = pathLog();
  const auto connects = ofKind(all, RecordKind::Connect);
  ASSERT_EQ(connects.size(), 2u);
  for (const ParsedRecord& c : connects) {
    EXPECT_EQ(c.identity.job, "paths-test");
    EXPECT_EQ(c.identity.host, "gb300-r00-t00");
    EXPECT_EQ(c.record.comm, std::optional<uint64_t>(0xc0ffee));
    EXPECT_EQ(c.record.local.device, 1);
    EXPECT_EQ(c.record.local.hca.view(), "mlx5_1");
    EXPECT_EQ(c.record.local.netdev.view(), "ibP2p3s0");
    EXPECT_EQ(c.record.local.rail, 1);
    EXPECT_EQ(c.record.local.gpu, 1) << "LOCAL_RANK";
    EXPECT_EQ(c.record.expectedRail, 1);
    EXPECT_EQ(c.record.remote.hca.view(), "mlx5_1");
    EXPECT_EQ(c.record.remote.rail, 1);
    EXPECT_EQ(c.record.remote.host.view(), "gb300-r00-t00");
    EXPECT_EQ(c.record.remote.pid, getpid());
    EXPECT_EQ(c.record.localDigest, c.record.remoteDigest);
    EXPECT_EQ(c.record.streams, 2);
    EXPECT_EQ(c.record.transport.view(), "socket");
  }
  const auto sendConnect =
      connects[0].record.direction == formats::path_log::Direction::Send ? connects[0] : connects[1];
  const auto recvConnect =
      connects[0].record.direction == formats::path_log::Direction::Send ? connects[1] : connects[0];
  EXPECT_EQ(sendConnect.record.rank, 7) << "a send's tag is this rank";
  EXPECT_EQ(recvConnect.record.remote.rank, 7) << "a receive's tag is the peer's rank";
  const auto closes = ofKind(all, RecordKind::Close);
  ASSERT_EQ(closes.size(), 2u);
  uint64_t sent = 0, received = 0, messages = 0;
  for (const ParsedRecord& c : closes) {
    sent += c.record.traffic.bytesSent;
    received += c.record.traffic.bytesReceived;
    messages += c.record.traffic.messagesSent + c.record.traffic.messagesReceived;
  }
  EXPECT_EQ(sent, (3u << 20) + 100u);
  EXPECT_EQ(received, (3u << 20) + 100u);
  EXPECT_EQ(messages, 4u);
}

TEST_F(NetPathsTest, AConnectionOffItsGpusRailIsAWarningAndMarked) {
  start();
  connectPair(0, 0);  // GPU 1 (LOCAL_RANK) on mlx5_0, rail 0
  transfer(64, 3);
  closeAll();
  const std::vector<std::string> warnings = pluginWarnings();
  ASSERT_EQ(warnings.size(), 2u) << pluginLogText();  // one per end of the connection
  EXPECT_NE(
      warnings[0].find("leaves through mlx5_0 (rail 0) but serves GPU 1 (LOCAL_RANK=1), whose rail map rail is 1"),
      std::string::npos)
      << warnings[0];
  for (const ParsedRecord& c : ofKind(pathLog(), RecordKind::Connect)) {
    EXPECT_EQ(c.record.local.rail, 0);
    EXPECT_EQ(c.record.expectedRail, 1);
  }
}

TEST_F(NetPathsTest, TheMisbindingFaultSendsADevicesTrafficThroughAnotherNic) {
  env.set("RAILTUNE_NET_FAULT_MISBIND", "mlx5_1:mlx5_2");
  start();
  EXPECT_NE(pluginLogText().find("connections on mlx5_1 leave through mlx5_2"), std::string::npos) << pluginLogText();
  connectPair(1, 1);
  transfer(4096, 1);
  closeAll();
  for (const ParsedRecord& c : ofKind(pathLog(), RecordKind::Connect)) {
    EXPECT_EQ(c.record.local.device, 1) << "the device NCCL asked for";
    EXPECT_EQ(c.record.local.hca.view(), "mlx5_2") << "the NIC the traffic took";
    EXPECT_EQ(c.record.local.rail, 2);
    EXPECT_EQ(c.record.expectedRail, 1);
  }
}

// Profiler events: what our callback saw.
struct SeenEvent {
  int64_t pluginId = 0;
  railtuneNetEventDescr_v1_t descr{};
  std::string hca, peerHost;
};
std::vector<SeenEvent> gStarted;
int gStopped = 0;
int gEventToken = 0;

ncclResult_t recordingProfiler(void** eHandle, int type, void* pHandle, int64_t pluginId, void* extData) {
  if (type == ncclProfilerNetEventStart) {
    EXPECT_EQ(*eHandle, nullptr) << "NCCL's handle starts NULL";
    EXPECT_NE(pHandle, nullptr);
    SeenEvent seen;
    seen.pluginId = pluginId;
    seen.descr = *static_cast<railtuneNetEventDescr_v1_t*>(extData);
    seen.hca = seen.descr.hca;
    seen.peerHost = seen.descr.peerHost;
    gStarted.push_back(seen);
    *eHandle = &gEventToken;
  } else if (type == ncclProfilerNetEventStop) {
    EXPECT_EQ(*eHandle, &gEventToken);
    ++gStopped;
  }
  return ncclSuccess;
}

TEST_F(NetPathsTest, ProfilerEventsNameTheNicOfEachTransfer) {
  gStarted.clear();
  gStopped = 0;
  start(recordingProfiler);
  connectPair(2, 2);
  int parent = 0;
  transfer(5000, 4, &parent, &parent);
  transfer(10, 4);  // no profiler handle from NCCL: no event
  closeAll();
  ASSERT_EQ(gStarted.size(), 2u);
  EXPECT_EQ(gStopped, 2);
  for (const SeenEvent& e : gStarted) {
    EXPECT_EQ(e.pluginId, RAILTUNE_PROFILER_NET_TYPE | RAILTUNE_PROFILER_NET_VERSION);
    EXPECT_EQ(e.hca, "mlx5_2");
    EXPECT_EQ(e.descr.rail, 2);
    EXPECT_EQ(e.descr.device, 2);
    EXPECT_EQ(e.descr.bytes, 5000u);
    EXPECT_EQ(e.peerHost, "gb300-r00-t00");
  }
  EXPECT_EQ(gStarted[0].descr.type + gStarted[1].descr.type, railtuneNetEventSend + railtuneNetEventRecv);
}

// Two processes with different configurations: the child connects with another NCCL_PROTO, so its
// digest differs. Without RAILTUNE_STRICT the connection works and both ends WARN; with it, the
// accepting end fails the connection. The child is forked before this process loads the plugin, so
// that it loads its own copy (as another rank would), and gets the listen handle through a pipe (as
// NCCL's bootstrap would carry it).
[[noreturn]] void connectFromChild(int handlePipe) {
  std::array<char, NCCL_NET_HANDLE_MAXSIZE> handle{};
  size_t got = 0;
  while (got < handle.size()) {
    const ssize_t n = read(handlePipe, handle.data() + got, handle.size() - got);
    if (n <= 0) _exit(6);
    got += static_cast<size_t>(n);
  }
  setenv("NCCL_PROTO", "Simple", 1);
  const emu::Binding binding = emu::Loader::bindVersion(emu::PluginKind::Net, pluginPath("net"), 12);
  if (!binding) _exit(2);
  emu::NetDriver child(binding);
  if (child.init(0x42, NCCL_NET_TRAFFIC_CLASS_UNDEF, emu::pluginLogger(), emu::idleProfilerCallback()) != ncclSuccess)
    _exit(3);
  void* send = nullptr;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (send == nullptr && std::chrono::steady_clock::now() < end) {
    ncclNetDeviceHandle_v12_t* dev = nullptr;
    if (child.connect(0, handle.data(), &send, &dev) != ncclSuccess) _exit(4);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // let the parent accept (or refuse)
  _exit(send ? 0 : 5);
}

struct Child {
  pid_t pid = -1;
  int handlePipe = -1;  // the parent's end
};

Child forkConnector() {
  int fds[2] = {-1, -1};
  EXPECT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[1]);
    connectFromChild(fds[0]);
  }
  close(fds[0]);
  return Child{pid, fds[1]};
}

// `childExit`: 0 when the child's connect succeeds, 4 when it fails (under RAILTUNE_STRICT=1 both ends
// refuse the connection).
ncclResult_t acceptFromChild(const Child& child, emu::NetDriver& driver, void** listenComm, void** recvComm,
                             int childExit) {
  std::array<char, NCCL_NET_HANDLE_MAXSIZE> handle{};
  EXPECT_EQ(driver.listen(0, handle.data(), listenComm), ncclSuccess);
  EXPECT_EQ(write(child.handlePipe, handle.data(), handle.size()), static_cast<ssize_t>(handle.size()));
  close(child.handlePipe);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  ncclResult_t result = ncclSuccess;
  while (*recvComm == nullptr && result == ncclSuccess && std::chrono::steady_clock::now() < end) {
    ncclNetDeviceHandle_v12_t* dev = nullptr;
    result = driver.accept(*listenComm, recvComm, &dev);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  int status = 0;
  EXPECT_EQ(waitpid(child.pid, &status, 0), child.pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == childExit) << "child status " << status;
  return result;
}

TEST_F(NetPathsTest, ADigestMismatchIsAWarningAndNotAFailure) {
  env.set("LOCAL_RANK", "0");  // device 0 is GPU 0's rail: the digest is the only finding
  const Child child = forkConnector();
  start();
  EXPECT_EQ(acceptFromChild(child, *driver, &listenComm, &recvComm, 0), ncclSuccess);
  ASSERT_NE(recvComm, nullptr);
  ASSERT_EQ(pluginWarnings().size(), 1u) << pluginLogText();
  EXPECT_NE(pluginWarnings()[0].find("the ranks were started with different rules, rail map or environment"),
            std::string::npos)
      << pluginWarnings()[0];
  EXPECT_EQ(driver->closeRecv(recvComm), ncclSuccess);
  EXPECT_EQ(driver->closeListen(listenComm), ncclSuccess);
  EXPECT_EQ(driver->finalize(), ncclSuccess);
  const auto connects = ofKind(pathLog(), RecordKind::Connect);
  ASSERT_EQ(connects.size(), 1u);
  EXPECT_NE(connects[0].record.localDigest, connects[0].record.remoteDigest);
  EXPECT_NE(connects[0].record.remote.pid, getpid());
}

TEST_F(NetPathsTest, StrictFailsTheConnectionOnADigestMismatch) {
  env.set("RAILTUNE_STRICT", "1");
  env.set("LOCAL_RANK", "0");
  const Child child = forkConnector();
  start();
  EXPECT_EQ(acceptFromChild(child, *driver, &listenComm, &recvComm, 4), ncclRemoteError);
  EXPECT_EQ(recvComm, nullptr);
  EXPECT_NE(pluginLogText().find("RAILTUNE_STRICT=1 fails the connection"), std::string::npos) << pluginLogText();
  EXPECT_EQ(driver->closeListen(listenComm), ncclSuccess);
  EXPECT_EQ(driver->finalize(), ncclSuccess);
}

}  // namespace
}  // namespace railtune::testing
