// The two-host workload over the verbs transport. See net_ib_workload.h.
#include "tests/e2e/net_ib_workload.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include "tests/support/file_text.h"

namespace railtune::testing::netfault {
namespace {

constexpr int kReceives = 120;
constexpr size_t kReceivesInFlight = NCCL_NET_MAX_REQUESTS;
constexpr size_t kSendsInFlight = 2 * NCCL_NET_MAX_REQUESTS;
constexpr Millis kTransferLimit(20000);

int maxRecvsOf(emu::NetDriver& net) {
  ncclNetProperties_v12_t props{};
  return net.getProperties(0, &props) == ncclSuccess ? props.maxRecvs : -1;
}

// The sender, on host 1: the same plan, sends everything, closes when told.
int simulatedSender(const SimFabric& fabric, int version, const PlanMaker& makePlan, Control& control) {
  fabric.becomeHost(1);
  NetEndpoint endpoint(version);
  if (!endpoint.bound() || endpoint.init() != ncclSuccess) return 2;
  Handle handle{};
  control.receive(handle.data(), handle.size(), kStepLimit, "listen handle");
  void* sendComm = nullptr;
  if (connectTo(endpoint.net(), 0, handle, &sendComm, kStepLimit) != ncclSuccess || sendComm == nullptr) return 3;
  const Plan plan = makePlan(maxRecvsOf(endpoint.net()));
  control.sendText(runSender(endpoint.net(), sendComm, plan, kSendsInFlight, kTransferLimit));
  control.receiveWord(kTransferLimit, "the receiver's go-ahead to close");
  if (endpoint.net().closeSend(sendComm) != ncclSuccess) return 4;
  return endpoint.finalize() == ncclSuccess ? 0 : 5;
}

PlannedMessage message(size_t size, size_t slack, int tag, std::mt19937& random) {
  PlannedMessage m;
  m.tag = tag;
  m.size = size;
  m.capacity = size + slack;
  m.seed = static_cast<uint32_t>(random());
  return m;
}

}  // namespace

PlanMaker randomPlan(uint32_t seed) {
  return [seed](int maxRecvs) { return makePlan(seed, kReceives, maxRecvs); };
}

PlanMaker sizesPlan(std::vector<size_t> sizes, uint32_t seed) {
  return [sizes, seed](int maxRecvs) {
    std::mt19937 random(seed);
    Plan plan;
    int tag = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {  // alone, the buffer exactly its size or 64 bytes larger
      PlannedReceive r;
      r.buffers.push_back(message(sizes[i], i % 2 == 0 ? 0 : 64, tag++, random));
      r.sendOrder = {0};
      plan.receives.push_back(r);
    }
    const size_t group = static_cast<size_t>(std::max(maxRecvs, 1));
    for (int pass = 0; pass < 2; ++pass) {  // grouped: sent in reverse, then in a shuffled order
      for (size_t first = 0; first < sizes.size(); first += group) {
        PlannedReceive r;
        for (size_t i = first; i < std::min(sizes.size(), first + group); ++i)
          r.buffers.push_back(message(sizes[i], (i + static_cast<size_t>(pass)) % 2 == 0 ? 0 : 64, tag++, random));
        for (size_t i = r.buffers.size(); i-- > 0;) r.sendOrder.push_back(i);
        if (pass == 1) std::shuffle(r.sendOrder.begin(), r.sendOrder.end(), random);
        plan.receives.push_back(r);
      }
    }
    return plan;
  };
}

void LoopedBack::post() {
  ASSERT_EQ(net.regMr(link.send, out.data(), out.size(), NCCL_PTR_HOST, &outRegion), ncclSuccess);
  ASSERT_EQ(net.regMr(link.recv, in.data(), in.size(), NCCL_PTR_HOST, &inRegion), ncclSuccess);
  void* data[1] = {in.data()};
  size_t sizes[1] = {in.size()};
  int tags[1] = {1};
  void* regions[1] = {inRegion};
  ASSERT_EQ(net.irecv(link.recv, 1, data, sizes, tags, regions, nullptr, &recv), ncclSuccess);
  ASSERT_NE(recv, nullptr);
}

ncclResult_t firstFailure(emu::NetDriver& net, std::vector<void*> requests, Millis limit) {
  ncclResult_t failed = ncclSuccess;
  pollUntil(
      [&] {
        for (void*& request : requests) {
          int done = 0;
          if (request == nullptr) continue;
          const ncclResult_t result = net.test(request, &done, nullptr);
          if (result != ncclSuccess) {
            failed = result;
            return true;
          }
          if (done != 0) request = nullptr;
        }
        return false;
      },
      limit);
  return failed;
}

std::vector<formats::path_log::ParsedRecord> pathRecords(const std::string& dir) {
  std::vector<formats::path_log::ParsedRecord> records;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string text = railtune::testing::readFile(entry.path());
    formats::path_log::ParseAllResult parsed = formats::path_log::parseRecords(text, entry.path().string());
    EXPECT_EQ(parsed.error, "");
    for (auto& r : parsed.records) records.push_back(std::move(r));
  }
  return records;
}

void runIbWorkload(ScopedEnv& env, const SimFabricSetup& setup, int version, const PlanMaker& makePlan,
                   const std::string& pathLogs) {
  SimFabric fabric(env, setup);
  if (!pathLogs.empty()) env.set("RAILTUNE_PATH_LOG_DIR", pathLogs);
  Watchdog watchdog(50, "NetIbTest: workload between two simulated hosts");
  PeerProcess peer([&](Control& control) { return simulatedSender(fabric, version, makePlan, control); }, 45);

  NetEndpoint endpoint(version);
  ASSERT_TRUE(endpoint.bound()) << "ncclNetPlugin_v" << version << " not bound";
  std::string lines;
  const ncclResult_t init = endpoint.init();
  takeWarnings(&lines);
  ASSERT_EQ(init, ncclSuccess) << "init did not take the verbs transport:\n" << lines;
  int ndev = 0;
  ASSERT_EQ(endpoint.net().devices(&ndev), ncclSuccess);
  ASSERT_GE(ndev, 1);
  ncclNetProperties_v12_t props{};
  ASSERT_EQ(endpoint.net().getProperties(0, &props), ncclSuccess);
  EXPECT_STREQ(props.name, "mlx5_0");
  EXPECT_EQ(props.maxRecvs, 8);
  if (version >= 8) {
    EXPECT_EQ(props.regIsGlobal, 1);  // v6 and v7 properties have no such field
  }
  EXPECT_EQ((props.ptrSupport & NCCL_PTR_CUDA) != 0, setup.peerMemory);

  Handle handle{};
  void* listenComm = nullptr;
  ASSERT_EQ(endpoint.net().listen(0, handle.data(), &listenComm), ncclSuccess);
  peer.control().send(handle.data(), handle.size());
  void* recvComm = nullptr;
  ASSERT_EQ(acceptFrom(endpoint.net(), listenComm, &recvComm, kStepLimit), ncclSuccess);
  ASSERT_NE(recvComm, nullptr) << "the peer's connection never arrived";

  const Plan plan = makePlan(maxRecvsOf(endpoint.net()));
  EXPECT_EQ(runReceiver(endpoint.net(), recvComm, plan, kReceivesInFlight, kTransferLimit), "");
  EXPECT_EQ(peer.control().receiveText(kTransferLimit, "the sender's report"), "");
  peer.control().sendWord(1);
  EXPECT_EQ(peer.wait(kStepLimit), std::optional<int>(0)) << "the sending peer failed";
  EXPECT_EQ(endpoint.net().closeRecv(recvComm), ncclSuccess);
  EXPECT_EQ(endpoint.net().closeListen(listenComm), ncclSuccess);
  EXPECT_EQ(endpoint.finalize(), ncclSuccess);
  EXPECT_TRUE(takeWarnings(&lines).empty()) << lines;
  EXPECT_NE(lines.find("verbs transport"), std::string::npos) << lines;
}

}  // namespace railtune::testing::netfault
