// The watchdog's WARN text and its settings (RAILTUNE_HANG_TIMEOUT), without a thread.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "profiler_plugin/watchdog/hang_report.h"
#include "profiler_plugin/watchdog/hang_settings.h"
#include "tests/support/fake_env.h"

namespace railtune::profiler {
namespace {

using railtune::testing::fakeEnv;
using railtune::testing::fakeEnvVars;

NetFlow flow(int channel, int peer, bool send, uint32_t outstanding) {
  NetFlow f;
  f.channel = channel;
  f.peer = peer;
  f.send = send;
  f.outstanding = outstanding;
  return f;
}

OperationRecord allReduce() {
  OperationRecord r;
  r.kind = RecordKind::Hang;
  r.comm = 0x5eed;
  r.rank = 3;
  r.nRanks = 16;
  r.seq = 42;
  r.operation.assign("AllReduce");
  r.bytes = 1048576;
  r.algorithm.assign("RING");
  r.protocol.assign("LL128");
  r.channels = 4;
  r.stuckForNs = 301'250'000'000;
  return r;
}

TEST(WatchdogReport, NamesTheFlowsWithOutstandingStepsAndTheirNics) {
  OperationRecord r = allReduce();
  r.flows[0] = flow(0, 4, true, 2);
  r.flows[0].hca.assign("mlx5_3");
  r.flows[0].device = 3;
  r.flows[0].rail = 3;
  r.flows[0].plane = 0;
  r.flows[1] = flow(0, 2, false, 0);  // done: not named
  r.flows[2] = flow(1, 2, false, 1);
  r.flows[2].device = 1;
  r.flows[3] = flow(2, 4, true, 5);
  r.nFlows = 4;
  EXPECT_EQ(describeHang(r),
            "comm 0x5eed rank 3/16 seq 42 AllReduce (RING/LL128, 1048576 bytes, 4 channels) incomplete for 301.2 s; "
            "outstanding: ch 0 peer 4 send 2 steps via mlx5_3 (dev 3 rail 3 plane 0); ch 1 peer 2 recv 1 steps via "
            "dev 1; ch 2 peer 4 send 5 steps (NIC not reported)");
}

TEST(WatchdogReport, SaysWhenNoNetworkStepIsOutstanding) {
  OperationRecord r = allReduce();
  r.comm.reset();
  r.flows[0] = flow(0, 1, true, 0);
  r.nFlows = 1;
  EXPECT_EQ(describeHang(r),
            "comm (unknown id) rank 3/16 seq 42 AllReduce (RING/LL128, 1048576 bytes, 4 channels) incomplete for "
            "301.2 s; no network step outstanding");
}

TEST(WatchdogReport, P2pNamesItsPeerAndHasNoAlgorithm) {
  OperationRecord r = allReduce();
  r.operation.assign("Send");
  r.algorithm.assign("");
  r.protocol.assign("");
  r.peer = 9;
  r.channels = 1;
  EXPECT_EQ(describeHang(r),
            "comm 0x5eed rank 3/16 seq 42 Send peer 9 (1048576 bytes, 1 channels) incomplete for 301.2 s; no network "
            "step outstanding");
}

TEST(WatchdogReport, CountsFlowsBeyondTheNamedOnes) {
  OperationRecord r = allReduce();
  for (uint32_t i = 0; i < 12; ++i) r.flows[i] = flow(static_cast<int>(i), 1, true, 1);
  r.nFlows = 12;
  r.flowsDropped = 3;
  const std::string text = describeHang(r);
  EXPECT_NE(text.find("ch 7 peer 1 send 1 steps"), std::string::npos);
  EXPECT_EQ(text.find("ch 8 peer"), std::string::npos);
  EXPECT_NE(text.find("; and 4 more flows (3 flows not tracked)"), std::string::npos) << text;
  EXPECT_LT(text.size(), 1000u);  // within NCCL's log line
}

TEST(WatchdogReport, TheLongestLineFitsTheLogLine) {
  OperationRecord r = allReduce();
  r.comm = UINT64_MAX;
  r.rank = r.nRanks = INT32_MAX;
  r.seq = r.bytes = UINT64_MAX;
  r.operation.assign(std::string(100, 'o'));
  r.algorithm.assign(std::string(100, 'a'));
  r.protocol.assign(std::string(100, 'p'));
  r.channels = INT32_MAX;
  r.stuckForNs = UINT64_MAX;
  for (uint32_t i = 0; i < kMaxFlowsPerRecord; ++i) {
    r.flows[i] = flow(INT32_MIN, INT32_MIN, false, UINT32_MAX);
    r.flows[i].hca.assign(std::string(100, 'h'));
    r.flows[i].device = r.flows[i].rail = r.flows[i].plane = INT32_MIN;
  }
  r.nFlows = kMaxFlowsPerRecord;
  r.flowsDropped = UINT32_MAX;
  // common/log.cc writes 1024 bytes with "railtune profiler: hang: " in front.
  EXPECT_LT(describeHang(r).size() + 25, 1024u) << describeHang(r).size();
}

TEST(WatchdogReport, IgnoresAFlowCountBeyondTheArray) {
  OperationRecord r = allReduce();
  r.nFlows = 1000;  // a corrupt count must not read past the flows
  EXPECT_NE(describeHang(r).find("no network step outstanding"), std::string::npos);
}

class WatchdogSettings : public ::testing::Test {
 protected:
  void SetUp() override { fakeEnvVars().clear(); }
  void TearDown() override { fakeEnvVars().clear(); }
};

TEST_F(WatchdogSettings, DefaultIsFiveMinutesCheckedEverySecond) {
  const HangSettings s = readHangSettings(fakeEnv);
  EXPECT_EQ(s.timeoutNs, 300ULL * 1000000000);
  EXPECT_EQ(s.interval.count(), 1000);
  EXPECT_TRUE(s.enabled());
  EXPECT_TRUE(s.error.empty());
}

TEST_F(WatchdogSettings, ZeroTurnsItOff) {
  fakeEnvVars()["RAILTUNE_HANG_TIMEOUT"] = "0";
  const HangSettings s = readHangSettings(fakeEnv);
  EXPECT_FALSE(s.enabled());
  EXPECT_TRUE(s.error.empty());
}

TEST_F(WatchdogSettings, AcceptsSeconds) {
  fakeEnvVars()["RAILTUNE_HANG_TIMEOUT"] = "45";
  EXPECT_EQ(readHangSettings(fakeEnv).timeoutNs, 45ULL * 1000000000);
}

TEST_F(WatchdogSettings, RejectsNegativeHugeAndTextKeepingTheDefault) {
  for (const char* bad : {"-1", "86401", "5m"}) {
    fakeEnvVars()["RAILTUNE_HANG_TIMEOUT"] = bad;
    const HangSettings s = readHangSettings(fakeEnv);
    EXPECT_EQ(s.timeoutNs, 300ULL * 1000000000) << bad;
    EXPECT_NE(s.error.find(std::string("RAILTUNE_HANG_TIMEOUT='") + bad + "'"), std::string::npos) << s.error;
  }
}

}  // namespace
}  // namespace railtune::profiler
