// Every event order NCCL 2.28 and 2.30 produce, through the real profiler .so and its writer, for
// 100,000 operations each (2,000 under sanitizers, which run the same code 10-50 times slower):
// before finalize, the collective log holds one record
// per operation or a "dropped" line counting it. The orders (emulator/profiler_sequence.h) are those of
// NCCL's source: self send/recv with no proxy op (enqueue.cc, scheduleP2pTasksToPlan), AlltoAll, Gather
// and Scatter as P2p groups that contain the self pair, CollNet announcing 0 channels, NVLS across nodes,
// P2p within an NVLink domain (KernelCh, no ProxyOp), symmetric-memory / copy-engine collectives without
// any task event, Coll events stopped before and after their children, and each mask variant.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "emulator/profiler_driver.h"
#include "emulator/profiler_sequence.h"
#include "formats/profile_logs.h"
#include "tests/e2e/emulated_fixture.h"
#include "tests/support/record_file_name.h"

namespace railtune::testing {
namespace {

namespace fs = std::filesystem;
using emu::EmulatedOperation;
using emu::NcclBehaviour;

// Operations per case: over 100 times the capture's 256 slots, so every rule that frees one runs
// thousands of times; fewer under sanitizers and qemu, where each costs ten times more.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(RAILTUNE_TESTS_UNDER_EMULATOR)
constexpr int kOperations = 2'000;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr int kOperations = 2'000;
#else
constexpr int kOperations = 30'000;
#endif
#else
constexpr int kOperations = 30'000;
#endif

constexpr int kRanks = 8;

EmulatedOperation selfP2p(bool send, int rank) {
  EmulatedOperation op = emu::p2pOperation(send, rank, rank, 1024, 2, 1);  // flows listed; NCCL has none
  return op;
}

// One rank's part of an AlltoAll (NCCL 2.28/2.30 turn it into a Send and a Recv per peer, the self
// pair included): network flows to every other rank.
std::vector<EmulatedOperation> allToAll(int rank, int nRanks) {
  std::vector<EmulatedOperation> group;
  for (int peer = 0; peer < nRanks; ++peer) {
    for (bool send : {true, false}) group.push_back(emu::p2pOperation(send, rank, peer, 4096, 1, 1));
  }
  return group;
}

// The root of a Gather receives from every rank, itself included; a Scatter's non-root receives once.
std::vector<EmulatedOperation> gatherAtRoot(int root, int nRanks) {
  std::vector<EmulatedOperation> group{selfP2p(true, root)};
  for (int peer = 0; peer < nRanks; ++peer) group.push_back(emu::p2pOperation(false, root, peer, 4096, 1, 1));
  return group;
}

EmulatedOperation collNet(int rank) {
  EmulatedOperation op = emu::ringAllReduce(rank, kRanks, 2, 1, 2, 1 << 20);
  op.algo = "COLLNET_DIRECT";
  op.announcedChannels = 0;
  return op;
}

EmulatedOperation nvlsAcrossNodes(int rank) {
  EmulatedOperation op = emu::ringAllReduce(rank, kRanks, 4, 1, 2, 8 << 20);
  op.algo = "NVLS";
  op.flows.resize(2);  // the network part on two of the four channels
  return op;
}

EmulatedOperation withinNvlinkDomain(EmulatedOperation op) {
  op.flows.clear();
  return op;
}

EmulatedOperation symmetricKernel() {
  EmulatedOperation op = emu::ringAllReduce(0, kRanks, 4, 1, 1, 4096);
  op.taskEvent = false;
  return op;
}

EmulatedOperation stoppedLast(EmulatedOperation op) {
  op.stopTaskLast = true;
  return op;
}

struct OrderCase {
  const char* name;
  const char* mask;
  int nRanks;
  int rank;
  std::vector<std::vector<EmulatedOperation>> groups;  // one iteration: groups run in turn
  int recordedPerIteration;                            // operations that get a Coll/P2p event the mask takes
};

std::vector<OrderCase> orderCases() {
  const int r = 3;
  const EmulatedOperation ring = emu::ringAllReduce(r, kRanks, 2, 1, 2, 1 << 20);
  const EmulatedOperation send = emu::p2pOperation(true, r, 5, 1 << 16, 2, 2);
  return {
      {"RingAllReduce", "default", kRanks, r, {{ring}}, 1},
      {"CollStoppedAfterItsChildren", "default", kRanks, r, {{stoppedLast(ring)}}, 1},
      {"SelfSendRecvOnOneRank", "default", 1, 0, {{selfP2p(true, 0), selfP2p(false, 0)}}, 2},
      {"AlltoAllWithItsSelfPair", "default", kRanks, r, {allToAll(r, kRanks)}, 2 * kRanks},
      {"GatherAndScatter",
       "default",
       kRanks,
       0,
       {gatherAtRoot(0, kRanks), {emu::p2pOperation(false, 0, 4, 4096, 1, 1)}},
       kRanks + 2},
      {"CollNetAnnouncingNoChannel", "default", kRanks, r, {{collNet(r)}}, 1},
      {"NvlsAcrossNodes", "default", kRanks, r, {{nvlsAcrossNodes(r)}}, 1},
      {"P2pWithinAnNvlinkDomain", "default", kRanks, r, {{withinNvlinkDomain(send)}}, 1},
      {"SymmetricKernelsBetweenCollectives",
       "default",
       kRanks,
       r,
       {{symmetricKernel()}, {ring}, {symmetricKernel()}},
       1},
      {"MaskCollOnly", "coll", kRanks, r, {{ring}, {send}}, 1},
      {"MaskCollProxyOpWithinAnNvlinkDomain", "coll,proxyop", kRanks, r, {{withinNvlinkDomain(ring)}}, 1},
      {"MaskCollP2pProxyOpWithSelfPairs", "coll,p2p,proxyop", kRanks, r, {allToAll(r, kRanks)}, 2 * kRanks},
      {"MaskKernelChOnly", "kernelch", kRanks, r, {{ring}, {withinNvlinkDomain(send)}}, 2},
      {"MaskP2pOnly", "p2p", kRanks, r, {{ring}, allToAll(r, kRanks)}, 2 * kRanks},
      {"MaskAll", "all", kRanks, r, {{ring}, {stoppedLast(send)}}, 2},
  };
}

// What the collective log accounts for: operations recorded, operations counted as lost, hang records.
// Read as the file grows: each complete line is parsed once.
class Accountant {
 public:
  explicit Accountant(fs::path file) : file_(std::move(file)) {}
  uint64_t records = 0, lost = 0, hangs = 0;
  std::string error;
  uint64_t total() const { return records + lost; }

  void readNew() {
    std::ifstream in(file_, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(offset_));
    std::stringstream text;
    text << in.rdbuf();
    std::string chunk = std::move(text).str();
    const size_t end = chunk.rfind('\n');
    if (end == std::string::npos) return;
    chunk.resize(end + 1);
    offset_ += chunk.size();
    const auto parsed = formats::profile::parseCollectiveRecords(chunk, file_.filename().string());
    if (!parsed.error.empty() && error.empty()) error = parsed.error;
    for (const auto& line : parsed.records) {
      if (line.droppedNotice) {
        lost += line.recordsDropped + line.operationsDropped;
      } else if (line.record.kind == formats::profile::RecordKind::Hang) {
        ++hangs;
      } else {
        ++records;
      }
    }
  }

 private:
  fs::path file_;
  size_t offset_ = 0;
};

class ProfilerOrdersTest : public EmulatedTest,
                           public ::testing::WithParamInterface<std::tuple<NcclBehaviour, size_t>> {
 protected:
  void SetUp() override {
    EmulatedTest::SetUp();
    dir = fs::path(::testing::TempDir()) / ("railtune-orders-" + std::to_string(getpid()));
    fs::remove_all(dir);
    env.set("RAILTUNE_PROFILE_DIR", dir.string());
    env.set("RAILTUNE_PROFILE_MASK", testCase().mask);
    env.set("RAILTUNE_JOB_ID", "orders");
    env.set("RAILTUNE_HOST", "gb300-r00-t00");
    env.unset("RAILTUNE_HANG_TIMEOUT");
    const int version = std::get<0>(GetParam()) == NcclBehaviour::V2_30 ? 6 : 5;
    binding = emu::Loader::bindVersion(emu::PluginKind::Profiler, pluginPath("profiler"), version);
    ASSERT_TRUE(binding);
  }
  void TearDown() override {
    fs::remove_all(dir);
    EmulatedTest::TearDown();
  }
  const OrderCase& testCase() const {
    static const std::vector<OrderCase> cases = orderCases();
    return cases.at(std::get<1>(GetParam()));
  }
  fs::path collectives() const {
    return railtune::testing::findRecordFile(dir, "orders-gb300-r00-t00-" + std::to_string(getpid()),
                                             "collectives.jsonl");
  }
  fs::path dir;
  emu::Binding binding;
};

TEST_P(ProfilerOrdersTest, EveryOperationIsOnDiskOrCountedBeforeFinalize) {
  const OrderCase& c = testCase();
  const int iterations = kOperations / c.recordedPerIteration;
  const uint64_t expected = static_cast<uint64_t>(iterations) * static_cast<uint64_t>(c.recordedPerIteration);
  emu::ProfilerDriver driver(binding, std::get<0>(GetParam()));
  ASSERT_EQ(driver.init(0x5eed, "orders", 2, c.nRanks, c.rank), ncclSuccess);
  emu::ProfilerSequence sequence(driver, c.rank);
  for (int i = 0; i < iterations; ++i) {
    for (const std::vector<EmulatedOperation>& group : c.groups) {
      ASSERT_EQ(sequence.run(group).failures, 0);
    }
  }
  // Within the housekeeping interval and a flush (one second each), everything is accounted for.
  Accountant seen(collectives());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (seen.readNew(); seen.error.empty() && seen.total() < expected && std::chrono::steady_clock::now() < deadline;
       seen.readNew()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(seen.error.empty()) << seen.error;
  EXPECT_EQ(seen.total(), expected) << seen.records << " records, " << seen.lost << " counted lost";
  EXPECT_EQ(seen.hangs, 0u);
  ASSERT_EQ(driver.finalize(), ncclSuccess);
  seen.readNew();
  EXPECT_EQ(seen.total(), expected) << "finalize adds nothing: nothing was still held";
  EXPECT_EQ(seen.hangs, 0u);
  EXPECT_TRUE(pluginWarnings().empty()) << pluginLogText();
}

std::string caseName(const ::testing::TestParamInfo<std::tuple<NcclBehaviour, size_t>>& info) {
  return behaviourTag(std::get<0>(info.param)) + "_" + orderCases().at(std::get<1>(info.param)).name;
}

INSTANTIATE_TEST_SUITE_P(Orders, ProfilerOrdersTest,
                         ::testing::Combine(::testing::Values(NcclBehaviour::V2_28, NcclBehaviour::V2_30),
                                            ::testing::Range<size_t>(0, 15)),
                         caseName);

}  // namespace
}  // namespace railtune::testing
