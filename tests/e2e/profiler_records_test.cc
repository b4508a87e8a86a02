// The wired profiler through the emulator, as NCCL 2.30 and 2.28 drive it: a ring AllReduce in
// NCCL's event order (emulator/profiler_sequence.h) with railtune's NetPlugin events under the steps,
// through every ABI version, and what lands in RAILTUNE_PROFILE_DIR read back with the strict readers:
// one collective record with the communicator's identity, nccl-tests bytes and a timing source; the
// network summary naming the NICs; a Chrome trace that parses. And a stalled step: the hang watchdog
// writes a hang record naming the outstanding flows, with one WARN, and the job goes on.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "analysis/profile/hangs.h"
#include "analysis/profile/logs.h"
#include "emulator/profiler_driver.h"
#include "emulator/profiler_sequence.h"
#include "formats/profile_logs.h"
#include "tests/e2e/emulated_fixture.h"
#include "tests/support/file_text.h"
#include "tests/support/record_file_name.h"

namespace railtune::testing {
namespace {

namespace fs = std::filesystem;
using emu::NcclBehaviour;

using railtune::testing::readFile;

class ProfilerRecordsTest : public EmulatedTest, public ::testing::WithParamInterface<std::tuple<NcclBehaviour, int>> {
 protected:
  void SetUp() override {
    EmulatedTest::SetUp();
    dir = fs::path(::testing::TempDir()) / ("railtune-profile-" + std::to_string(getpid()));
    fs::remove_all(dir);
    env.set("RAILTUNE_PROFILE_DIR", dir.string());
    env.set("RAILTUNE_PROFILE_MASK", "all");
    env.set("RAILTUNE_JOB_ID", "profile-test");
    env.set("RAILTUNE_HOST", "gb300-r00-t00");
    env.unset("RAILTUNE_HANG_TIMEOUT");
    binding = emu::Loader::bindVersion(emu::PluginKind::Profiler, pluginPath("profiler"), version());
    ASSERT_TRUE(binding);
  }
  void TearDown() override {
    fs::remove_all(dir);
    EmulatedTest::TearDown();
  }
  int version() const { return std::get<1>(GetParam()); }
  fs::path file(const std::string& kind) const {
    return railtune::testing::findRecordFile(dir, "profile-test-gb300-r00-t00-" + std::to_string(getpid()), kind);
  }
  void expectHangAnalysed();
  fs::path dir;
  emu::Binding binding;
};

TEST_P(ProfilerRecordsTest, ARingAllReduceBecomesOneRecordWithItsNetworkFlows) {
  {
    emu::ProfilerDriver driver(binding, std::get<0>(GetParam()));
    ASSERT_EQ(driver.init(0xabc, "trainer", 2, 8, 3), ncclSuccess);
    emu::ProfilerSequence sequence(driver, 3);
    const emu::EmulatedOperation allReduce = emu::ringAllReduce(3, 8, 2, 1, 4, 4 << 20);
    const emu::SequenceStats stats = sequence.run(allReduce);
    EXPECT_EQ(stats.failures, 0);
    EXPECT_GT(stats.handles, 0);
    ASSERT_EQ(driver.finalize(), ncclSuccess);  // the last communicator: the writer flushes and closes
    EXPECT_TRUE(driver.violations().empty()) << driver.violations().front();
  }
  EXPECT_TRUE(pluginWarnings().empty()) << pluginLogText();
  const auto collectives = formats::profile::parseCollectiveRecords(readFile(file("collectives.jsonl")), "c");
  ASSERT_TRUE(collectives.error.empty()) << collectives.error;
  ASSERT_EQ(collectives.records.size(), 1u) << readFile(file("collectives.jsonl"));
  const formats::profile::OperationRecord& r = collectives.records[0].record;
  EXPECT_EQ(collectives.records[0].identity.job, "profile-test");
  EXPECT_EQ(r.operation.view(), "AllReduce");
  EXPECT_EQ(r.bytes, 4u << 20) << "count x 4 bytes (ncclFloat32)";
  EXPECT_EQ(r.channels, 2);
  EXPECT_GE(r.end.monotonicNs, r.start.monotonicNs);
  if (version() >= 4) {
    EXPECT_EQ(r.comm, std::optional<uint64_t>(0xabc));
    EXPECT_EQ(r.rank, 3);
    EXPECT_EQ(r.nRanks, 8);
    EXPECT_EQ(r.algorithm.view(), "RING");
  }
  if (version() >= 4) {
    EXPECT_STREQ(formats::profile::timingSourceName(r.timing), "kernel");
  }
  const auto net = formats::profile::parseNetRecords(readFile(file("net.jsonl")), "n");
  ASSERT_TRUE(net.error.empty()) << net.error;
  ASSERT_EQ(net.records.size(), 1u);
  const formats::profile::OperationRecord& flows = net.records[0].record;
  EXPECT_EQ(flows.nFlows, 4u) << "2 channels x (1 send + 1 receive)";
  if (version() >= 4) {  // NetPlugin events exist from v4 (net v10+ callback)
    for (uint32_t i = 0; i < flows.nFlows; ++i) {
      EXPECT_EQ(flows.flows[i].hca.view().rfind("mlx5_", 0), 0u) << "the NIC from railtune's net event";
      EXPECT_EQ(flows.flows[i].steps, 4u);
    }
  }
  const std::string trace = readFile(file("trace.json"));
  EXPECT_TRUE(nlohmann::json::accept(trace)) << trace.substr(0, 400);
}

// `railtune profile hangs` on what the plugin wrote: the stalled AllReduce is a hung collective, rank 5
// stuck by the watchdog's own record, with outstanding flows.
void ProfilerRecordsTest::expectHangAnalysed() {
  const analysis::profile::ProfileLogs logs = analysis::profile::readProfileLogs({.folders = {dir.string()}});
  const analysis::profile::HangReport report = analysis::profile::analyseHangs(logs, nullptr, std::nullopt);
  ASSERT_EQ(report.jobs.size(), 1u);
  ASSERT_EQ(report.jobs[0].hung.size(), 1u);
  const analysis::profile::HungCollective& hung = report.jobs[0].hung[0];
  EXPECT_EQ(hung.op, "AllReduce");
  ASSERT_EQ(hung.stuck.size(), 1u);
  EXPECT_EQ(hung.stuck[0].rank, 5);
  EXPECT_TRUE(hung.stuck[0].watchdog);
  EXPECT_FALSE(hung.stuck[0].flows.empty()) << "the outstanding steps' channels and peers";
}

TEST_P(ProfilerRecordsTest, AStalledStepIsAHangRecordAndOneWarning) {
  if (version() < 3) GTEST_SKIP() << "v1/v2 have no events the watchdog can tell a stall from";
  env.set("RAILTUNE_HANG_TIMEOUT", "1");
  emu::ProfilerDriver driver(binding, std::get<0>(GetParam()));
  ASSERT_EQ(driver.init(0xdef, "trainer", 2, 8, 5), ncclSuccess);
  emu::ProfilerSequence sequence(driver, 5);
  emu::EmulatedOperation stuck = emu::ringAllReduce(5, 8, 1, 1, 4, 1 << 20);
  stuck.stallAtStep = 2;
  EXPECT_EQ(sequence.run(stuck).failures, 0);
  // The watchdog scans every second; the hang is older than 1 s after about 2 s. It writes the record
  // first and WARNs after, so wait for both.
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  std::string text;
  const auto warned = [&] { return version() < 4 || !pluginWarnings().empty(); };
  while (std::chrono::steady_clock::now() < end) {
    text = fs::exists(file("collectives.jsonl")) ? readFile(file("collectives.jsonl")) : "";
    if (text.find("\"hang\"") != std::string::npos && warned()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_NE(text.find("\"hang\""), std::string::npos) << "no hang record on disk within 15 s" << pluginLogText();
  const auto parsed = formats::profile::parseCollectiveRecords(text, "c");
  ASSERT_TRUE(parsed.error.empty()) << parsed.error;
  if (version() >= 4) {  // v1..v3 get no logger from NCCL: their WARN goes to stderr
    const std::vector<std::string> warnings = pluginWarnings();
    ASSERT_EQ(warnings.size(), 1u) << pluginLogText();
    EXPECT_NE(warnings[0].find("AllReduce"), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[0].find("via mlx5_"), std::string::npos) << "the NIC of the outstanding steps";
  }
  expectHangAnalysed();
  EXPECT_EQ(driver.finalize(), ncclSuccess) << "the job is not touched; finalize still works";
}

INSTANTIATE_TEST_SUITE_P(Versions, ProfilerRecordsTest,
                         ::testing::Combine(::testing::Values(NcclBehaviour::V2_28, NcclBehaviour::V2_30),
                                            ::testing::Values(1, 3, 4, 5, 6)),
                         [](const ::testing::TestParamInfo<std::tuple<NcclBehaviour, int>>& p) {
                           return behaviourTag(std::get<0>(p.param)) + "_v" + std::to_string(std::get<1>(p.param));
                         });

}  // namespace
}  // namespace railtune::testing
