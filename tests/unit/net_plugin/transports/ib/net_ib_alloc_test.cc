// The verbs transport's data path allocates nothing (architecture rule 3): isend, irecv and test on a
// connection over the strict verbs simulator, counted with a replaced operator new on the thread that drives
// them (the simulator's agent thread plays the NIC and may grow its buffers), for single and grouped receives
// on 1 and 4 QPs.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "net_plugin/transports/ib/ib_engine.h"
#include "tests/support/allocation_counter.h"
#include "tests/unit/net_plugin/transports/ib/sim_engine_pair.h"

namespace railtune::net::ib {
namespace {

using Clock = std::chrono::steady_clock;

class NetIbAllocation : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    if (!railtune::testing::kCountsAllocations) GTEST_SKIP() << "operator new is not replaced under TSan";
    testing::useSimulatedHost();
    LoadedVerbs verbs = loadVerbs({VERBS_SIM_LIBRARY});
    ASSERT_TRUE(verbs.ok()) << verbs.reason;
    IbEngineOptions options;
    options.connection.layout.qpsPerConnection = GetParam();
    options.connection.layout.splitDataOnQps = GetParam() > 1;
    pair_ = testing::connectedPair(std::move(verbs), options);
    engine_ = pair_.engine.get();
    send_ = pair_.send;
    recv_ = pair_.recv;
  }
  void TearDown() override { pair_.close(); }

  // One receive of `n` buffers of `bytes` each and its n sends, driven to completion.
  void exchange(int n, size_t bytes, MemoryRegion* out, MemoryRegion* in, std::vector<std::byte>& outData,
                std::vector<std::byte>& inData) {
    std::array<RecvBuffer, kMaxRecvs> buffers{};
    for (int i = 0; i < n; ++i)
      buffers[static_cast<size_t>(i)] =
          RecvBuffer{inData.data() + static_cast<size_t>(i) * bytes, bytes, i, in, nullptr};
    Request* recv = engine_->irecv(recv_, std::span<const RecvBuffer>(buffers.data(), static_cast<size_t>(n)));
    ASSERT_NE(recv, nullptr);
    std::array<Request*, kMaxRecvs> sends{};
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    for (int i = 0; i < n; ++i) {
      while (sends[static_cast<size_t>(i)] == nullptr && Clock::now() < deadline)
        sends[static_cast<size_t>(i)] =
            engine_->isend(send_, outData.data() + static_cast<size_t>(i) * bytes, bytes, i, out, nullptr);
      ASSERT_NE(sends[static_cast<size_t>(i)], nullptr);
    }
    for (int i = 0; i < n; ++i)
      while (!engine_->test(sends[static_cast<size_t>(i)]).done && Clock::now() < deadline) {
      }
    while (!engine_->test(recv).done && Clock::now() < deadline) {
    }
    ASSERT_LT(Clock::now(), deadline);
  }

  testing::EnginePair pair_;
  IbEngine* engine_ = nullptr;
  SendComm* send_ = nullptr;
  RecvComm* recv_ = nullptr;
};

TEST_P(NetIbAllocation, TheDataPathAllocatesNothing) {
  constexpr size_t kBytes = 1 << 16;
  std::vector<std::byte> outData(kBytes * kMaxRecvs, std::byte{0x3c}), inData(kBytes * kMaxRecvs);
  MemoryRegion* out = engine_->registerMemory(send_, outData.data(), outData.size(), MemoryType::Host);
  MemoryRegion* in = engine_->registerMemory(recv_, inData.data(), inData.size(), MemoryType::Host);
  for (int warm = 0; warm < 4; ++warm) exchange(warm % 2 == 0 ? 1 : kMaxRecvs, kBytes, out, in, outData, inData);
  const size_t before = railtune::testing::tAllocations;
  for (int round = 0; round < 100; ++round)
    exchange(round % 3 == 0 ? kMaxRecvs : 1, round % 2 == 0 ? kBytes : 8, out, in, outData, inData);
  EXPECT_EQ(railtune::testing::tAllocations - before, 0u);
  EXPECT_EQ(inData, outData);
  engine_->deregisterMemory(send_, out);
  engine_->deregisterMemory(recv_, in);
}

INSTANTIATE_TEST_SUITE_P(Qps, NetIbAllocation, ::testing::Values(1, 4), [](const ::testing::TestParamInfo<int>& param) {
  return std::to_string(param.param) + "qps";
});

}  // namespace
}  // namespace railtune::net::ib
