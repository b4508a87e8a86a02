// The multi-process emulated job (emulator/net_job) through the real libnccl-net-railtune.so: ranks in
// separate processes, handles exchanged out of band, every collective with odd sizes, with and without
// MNNVL, both NCCL behaviours; the path logs read back: one connect record per end of every plugin
// connection, rails as expected, and an injected misbinding visible on exactly the injected rank; and a 16-rank
// job over the verbs transport on the verbs simulator with the same misbinding.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <thread>

#include "cli/demo/net.h"
#include "emulator/net_job/job_plan.h"
#include "emulator/net_job/job_report.h"
#include "emulator/net_job/launcher.h"
#include "emulator/net_job/profile_summary.h"
#include "formats/rail_map.h"
#include "tests/support/path_log_oracle.h"

namespace railtune::emu::netjob {
namespace {

using railtune::testing::crossRail;
using railtune::testing::describeConnection;
using railtune::testing::PathLogs;
using railtune::testing::railMismatch;
using railtune::testing::readPathLogs;
using railtune::testing::writerRank;

namespace fs = std::filesystem;

class NetJobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info->name();  // "Test/param" for parameterised tests: one folder, not two
    std::replace(name.begin(), name.end(), '/', '_');
    dir_ = fs::path(::testing::TempDir()) / ("railtune-net-job-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  JobOptions options(int ranks, int racks, const std::string& railMap = "") {
    JobOptions o;
    o.placement.ranks = ranks;
    o.placement.racks = racks;
    o.railMapPath = railMap;
    o.collectives = parseCollectiveList("all");
    o.bytes = oddSize();
    o.iterations = 2;
    o.pluginPath = std::string(RAILTUNE_PLUGIN_DIR) + "/libnccl-net-railtune.so";
    o.pathLogDir = (dir_ / "paths").string();
    o.timeoutSeconds = 30;
    o.chunkBytes = 16 * 1024;  // many chunks in flight even for small buffers
    return o;
  }
  static std::string smallMap() { return std::string(RAILTUNE_NET_JOB_DATA) + "/two-gpu-trays.json"; }

  // Random odd sizes, from a fixed seed so that a failure can be replayed.
  size_t oddSize() { return std::uniform_int_distribution<size_t>(1, 100000)(random_) | 1u; }

  JobResult run(const JobOptions& o) {
    const JobResult result = runJob(o);
    EXPECT_TRUE(result.ok()) << formatJobReport(o, result);
    return result;
  }

  static std::map<int, int> rankOfPid(const JobResult& result) {
    std::map<int, int> out;
    for (const RankResult& r : result.ranks) out[r.pid] = r.rank;
    return out;
  }

  // One connect record per end of every plugin connection, written by the process of that end.
  static void expectOneRecordPerConnectionEnd(const JobResult& result, const PathLogs& logs) {
    ASSERT_EQ(logs.connects.size(), 2u * static_cast<size_t>(result.pluginConnections()));
    std::map<int, int> sends, recvs;
    for (const auto& c : logs.connects)
      ++(c.record.direction == formats::path_log::Direction::Send ? sends : recvs)[c.identity.pid];
    for (const RankResult& r : result.ranks) {
      EXPECT_EQ(sends[r.pid], r.pluginSends) << "rank " << r.rank;
      EXPECT_EQ(recvs[r.pid], r.pluginRecvs) << "rank " << r.rank;
    }
  }

  fs::path dir_;
  std::mt19937_64 random_{20261130};
};

TEST_F(NetJobTest, FourRanksOverTwoRacksRunEveryCollective) {
  const JobOptions o = options(4, 2, smallMap());
  SCOPED_TRACE("bytes per rank " + std::to_string(o.bytes));
  const JobResult result = run(o);
  ASSERT_EQ(result.ranks.size(), 4u);
  for (const RankResult& r : result.ranks) {
    ASSERT_EQ(r.collectives.size(), 5u);
    for (const CollectiveResult& c : r.collectives) EXPECT_GT(c.verifiedBytes, 0u) << r.rank << " " << c.collective;
    EXPECT_EQ(r.device, r.gpu) << "the device named after the GPU's HCA";
  }
  EXPECT_EQ(result.pluginConnections(), 8);  // all-to-all between racks: 2 x 2 x 2 directed edges
  const PathLogs logs = readPathLogs(o.pathLogDir);
  expectOneRecordPerConnectionEnd(result, logs);
  for (const auto& c : logs.connects) EXPECT_FALSE(railMismatch(c.record)) << describeConnection(c, rankOfPid(result));
}

// Timing starts after one untimed warm-up iteration and a barrier of all ranks (a file per rank in the job
// folder), and the report says the figure is the emulator's, not the plugin's.
TEST_F(NetJobTest, TimingFollowsAWarmUpAndABarrierAndIsLabelledTheEmulators) {
  JobOptions o = options(4, 2, smallMap());
  o.collectives = {Collective::AllReduce, Collective::TreeAllReduce};
  o.jobDir = (dir_ / "job").string();  // kept, to look at the barrier's marks
  const JobResult result = run(o);
  ASSERT_EQ(result.ranks.size(), 4u);
  for (const RankResult& r : result.ranks) {
    ASSERT_EQ(r.collectives.size(), 2u);
    for (const CollectiveResult& c : r.collectives) {
      EXPECT_EQ(c.warmup, 1) << r.rank << " " << c.collective;
      EXPECT_EQ(c.iterations, 2);
    }
  }
  for (const char* collective : {"all-reduce", "tree"})
    for (int rank = 0; rank < 4; ++rank)
      EXPECT_TRUE(
          fs::exists(dir_ / "job" / "handles" / ("barrier-" + std::string(collective) + "-" + std::to_string(rank))))
          << collective << " " << rank;
  const std::string report = formatJobReport(o, result);
  EXPECT_NE(report.find("emu GB/s"), std::string::npos) << report;
  EXPECT_EQ(report.find("algbw"), std::string::npos) << report;
  EXPECT_NE(report.find("the emulator's speed, not the plugin's"), std::string::npos) << report;
  EXPECT_NE(report.find("after 1 warm-up iteration(s) and a barrier of all ranks"), std::string::npos) << report;
  // Without warm-up the timed iterations still verify every byte.
  o.warmup = 0;
  o.jobDir.clear();
  const JobResult cold = run(o);
  for (size_t i = 0; i < cold.ranks.size(); ++i)
    for (size_t c = 0; c < cold.ranks[i].collectives.size(); ++c)
      EXPECT_EQ(cold.ranks[i].collectives[c].verifiedBytes, result.ranks[i].collectives[c].verifiedBytes);
}

TEST_F(NetJobTest, MnnvlKeepsOneDomainOffThePlugin) {
  JobOptions o = options(4, 0, smallMap());  // two trays of one NVLink domain
  const JobResult withMnnvl = run(o);
  EXPECT_EQ(withMnnvl.pluginConnections(), 0);
  for (const RankResult& r : withMnnvl.ranks) EXPECT_EQ(r.device, -1) << "rank " << r.rank << " used the plugin";
  o.mnnvl = false;
  o.bytes = oddSize();
  fs::remove_all(o.pathLogDir);
  const JobResult without = run(o);
  EXPECT_EQ(without.pluginConnections(), 8);
  expectOneRecordPerConnectionEnd(without, readPathLogs(o.pathLogDir));
}

class NetJobNcclTest : public NetJobTest, public ::testing::WithParamInterface<NcclBehaviour> {};

TEST_P(NetJobNcclTest, EightRanksOfTheDefaultClusterWithoutMnnvl) {
  JobOptions o = options(8, 2);
  o.behaviour = GetParam();
  o.mnnvl = false;
  o.iterations = 1;
  SCOPED_TRACE("bytes per rank " + std::to_string(o.bytes));
  const JobResult result = run(o);
  ASSERT_EQ(result.ranks.size(), 8u);
  EXPECT_EQ(result.pluginConnections(), 2 * 4 * 4);  // all-to-all between the hosts (ring and tree edges among them)
  expectOneRecordPerConnectionEnd(result, readPathLogs(o.pathLogDir));
}

INSTANTIATE_TEST_SUITE_P(BothNccls, NetJobNcclTest, ::testing::Values(NcclBehaviour::V2_28, NcclBehaviour::V2_30),
                         [](const auto& p) { return p.param == NcclBehaviour::V2_28 ? "nccl2_28" : "nccl2_30"; });

TEST_F(NetJobTest, RingAndTreeConnectionsStayOnTheirRails) {
  JobOptions o = options(8, 2);
  o.collectives = parseCollectiveList("all-reduce,tree");
  o.mnnvl = false;
  const JobResult result = run(o);
  const PathLogs logs = readPathLogs(o.pathLogDir);
  expectOneRecordPerConnectionEnd(result, logs);
  for (const auto& c : logs.connects) EXPECT_FALSE(crossRail(c.record)) << describeConnection(c, rankOfPid(result));
}

TEST_F(NetJobTest, MisbindingShowsOnExactlyTheInjectedRank) {
  JobOptions o = options(8, 2);
  o.collectives = parseCollectiveList("all-reduce,tree");
  o.faultRank = 0;  // on the tree's root and the ring's closing hop: it has plugin connections
  o.faultEnv = {{"RAILTUNE_NET_FAULT_MISBIND", "mlx5_0:mlx5_1"}};
  const JobResult result = run(o);
  const PathLogs logs = readPathLogs(o.pathLogDir);
  expectOneRecordPerConnectionEnd(result, logs);
  const auto pids = rankOfPid(result);
  int mismatched = 0;
  for (const auto& c : logs.connects) {
    const bool injected = writerRank(c, pids) == 0;
    EXPECT_EQ(railMismatch(c.record), injected) << describeConnection(c, pids);
    if (injected) {
      EXPECT_EQ(c.record.local.hca.view(), "mlx5_1");
      EXPECT_EQ(c.record.expectedRail, 0);
    }
    mismatched += railMismatch(c.record);
  }
  EXPECT_EQ(mismatched, result.ranks[0].pluginSends + result.ranks[0].pluginRecvs);
  EXPECT_GT(mismatched, 0);
}

// The same job over the verbs transport (JobOptions::transport ib, as `emu net-job --transport ib`) on the strict
// verbs simulator: the launcher describes the rail map's hosts and HCAs to it (verbs_job.h) and each rank process
// is its host; rank 0's HCA is misbound.
TEST_F(NetJobTest, SixteenRanksOverTheVerbsTransportShowTheMisboundHca) {
  JobOptions o = options(16, 2);
  o.collectives = parseCollectiveList("all-reduce,tree");
  o.mnnvl = false;  // every hop between trays crosses the plugin
  o.transport = NetTransport::Ib;
  o.verbsLibrary = VERBS_SIM_LIBRARY;
  o.faultRank = 0;
  o.faultEnv = {{"RAILTUNE_NET_FAULT_MISBIND", "mlx5_0:mlx5_1"}};
  const JobResult result = run(o);
  const PathLogs logs = readPathLogs(o.pathLogDir);
  expectOneRecordPerConnectionEnd(result, logs);
  const auto pids = rankOfPid(result);
  int mismatched = 0;
  for (const auto& c : logs.connects) {
    EXPECT_EQ(c.record.transport.view(), "ib") << describeConnection(c, pids);
    EXPECT_TRUE(c.record.verbs.present) << describeConnection(c, pids);
    EXPECT_EQ(c.record.verbs.linkLayer.view(), "InfiniBand");
    const bool injected = writerRank(c, pids) == 0;
    EXPECT_EQ(railMismatch(c.record), injected) << describeConnection(c, pids);
    if (injected) {
      EXPECT_EQ(c.record.local.hca.view(), "mlx5_1");
    }
    mismatched += railMismatch(c.record);
  }
  EXPECT_EQ(mismatched, result.ranks[0].pluginSends + result.ranks[0].pluginRecvs);
  EXPECT_GT(mismatched, 0);
}

// --delay-rank: the delayed rank's process sleeps before each timed collective, so that in each of them its profiler
// record starts after every other rank's (all processes read one monotonic clock). The delay (300 ms) dwarfs any
// scheduling noise; what is asserted is the order, not a duration.
TEST_F(NetJobTest, ADelayedRankEntersEveryTimedCollectiveLast) {
  JobOptions o = options(4, 2, smallMap());
  o.collectives = parseCollectiveList("all-reduce");
  o.iterations = 3;
  o.bytes = 4096 + 1;
  o.profileDir = (dir_ / "profile").string();
  o.profilerPath = std::string(RAILTUNE_PLUGIN_DIR) + "/libnccl-profiler-railtune.so";
  o.delayRank = 2;
  o.delayUs = 300'000;
  run(o);
  static const std::regex fields(R"("rank":(\d+),"record":"collective".*"seq":(\d+),"start_monotonic_ns":(\d+))");
  std::map<int, std::map<int, long long>> startBySeq;  // seq -> rank -> start
  for (const fs::directory_entry& e : fs::directory_iterator(o.profileDir)) {
    if (!e.path().string().ends_with(".collectives.jsonl")) continue;
    std::ifstream in(e.path());
    std::smatch m;
    for (std::string line; std::getline(in, line);)
      if (std::regex_search(line, m, fields)) startBySeq[std::stoi(m[2])][std::stoi(m[1])] = std::stoll(m[3]);
  }
  ASSERT_EQ(startBySeq.size(), 3u);
  for (const auto& [seq, starts] : startBySeq) {
    ASSERT_EQ(starts.size(), 4u) << "seq " << seq;
    const auto latest = std::max_element(starts.begin(), starts.end(),
                                         [](const auto& a, const auto& b) { return a.second < b.second; });
    EXPECT_EQ(latest->first, 2) << "seq " << seq;
  }
}

TEST_F(NetJobTest, ADelayRankOutsideTheJobIsRefused) {
  JobOptions o = options(4, 2, smallMap());
  o.delayRank = 4;
  o.delayUs = 1000;
  EXPECT_THROW(runJob(o), std::runtime_error);
}

TEST_F(NetJobTest, ARankWithoutThePluginFailsTheJobQuickly) {
  JobOptions o = options(4, 2, smallMap());
  o.faultRank = 2;
  o.faultEnv = {{"NCCL_NET_PLUGIN", "none"}};  // NCCL falls back to its own transports on that rank
  const auto start = std::chrono::steady_clock::now();
  const JobResult result = runJob(o);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.errors.front().find("rank 2 (small-r1-t0, GPU 0): the net plugin did not take the communicator"),
            std::string::npos)
      << result.errors.front();
  EXPECT_FALSE(result.jobDir.empty()) << "a failed job keeps its folder";
  fs::remove_all(result.jobDir);
}

// `--profile-dir`: every rank loads the profiler too; each collective call is one record with NCCL's
// function, algorithm and message size, the network summaries of ranks with plugin connections name
// the HCA and rail of their own NIC (from the net plugin's events), and every trace parses.
class NetJobProfileTest : public NetJobTest, public ::testing::WithParamInterface<NcclBehaviour> {};

struct ExpectedRecord {
  const char* operation;
  const char* algorithm;
  uint64_t bytes;
};

ExpectedRecord expectedRecord(Collective c, size_t bytes, int nRanks) {
  const uint64_t n = static_cast<uint64_t>(nRanks);
  switch (c) {
    case Collective::AllReduce:
      return {"AllReduce", "RING", bytes};
    case Collective::AllGather:
      return {"AllGather", "RING", bytes * n};  // nccl-tests: the gathered size
    case Collective::ReduceScatter:
      return {"ReduceScatter", "RING", bytes / n * n};
    case Collective::AllToAll:
      return {"AlltoAll", "RING", bytes / n * n};
    case Collective::TreeAllReduce:
      return {"AllReduce", "TREE", bytes};
  }
  return {"", "", 0};
}

TEST_P(NetJobProfileTest, EveryCollectiveIsOneRecordAndTheNetSummaryNamesTheNic) {
  JobOptions o = options(4, 2, smallMap());  // two racks of two-GPU trays: the ring crosses racks twice
  o.behaviour = GetParam();
  o.bytes = 40000;  // divisible by the ranks: NCCL's counts per rank are exact
  o.profileDir = (dir_ / "profile").string();
  o.profilerPath = std::string(RAILTUNE_PLUGIN_DIR) + "/libnccl-profiler-railtune.so";
  const JobResult result = run(o);
  ASSERT_TRUE(result.ok());
  ASSERT_GT(result.pluginConnections(), 0) << "two racks: the ring crosses the net plugin";
  const ProfileSummary summary = readProfile(o.profileDir);
  for (const RankResult& r : result.ranks) {
    SCOPED_TRACE("rank " + std::to_string(r.rank));
    ASSERT_EQ(summary.byPid.count(r.pid), 1u);
    const ProfileFiles& files = summary.byPid.at(r.pid);
    ASSERT_EQ(files.collectives.size(), o.collectives.size() * static_cast<size_t>(o.iterations));
    for (size_t i = 0; i < files.collectives.size(); ++i) {
      const formats::profile::OperationRecord& record = files.collectives[i].record;
      const ExpectedRecord want = expectedRecord(o.collectives[i / static_cast<size_t>(o.iterations)], o.bytes, 4);
      EXPECT_EQ(record.operation.view(), want.operation) << i;
      EXPECT_EQ(record.algorithm.view(), want.algorithm) << i;
      EXPECT_EQ(record.bytes, want.bytes) << want.operation;
      EXPECT_EQ(record.rank, r.rank);
      EXPECT_EQ(record.nRanks, 4);
      EXPECT_EQ(files.collectives[i].identity.pid, r.pid);
    }
    EXPECT_TRUE(files.traceParses);
    const bool plugin = r.pluginSends + r.pluginRecvs > 0;
    EXPECT_EQ(!files.net.empty(), plugin) << "network flows exist exactly where the net plugin carries them";
    const int rail = result.plan.ranks[static_cast<size_t>(r.rank)].rail;
    for (const auto& net : files.net) {
      ASSERT_GT(net.record.nFlows, 0u);
      for (uint32_t f = 0; f < net.record.nFlows; ++f) {
        EXPECT_EQ(net.record.flows[f].hca.view(), r.hca) << "railtune's net event names the rank's own NIC";
        EXPECT_EQ(net.record.flows[f].rail, rail);
        EXPECT_GT(net.record.flows[f].steps, 0u);
      }
    }
  }
  EXPECT_FALSE(summary.nics.empty());
}

INSTANTIATE_TEST_SUITE_P(Nccl, NetJobProfileTest, ::testing::Values(NcclBehaviour::V2_28, NcclBehaviour::V2_30),
                         [](const ::testing::TestParamInfo<NcclBehaviour>& p) {
                           return p.param == NcclBehaviour::V2_28 ? std::string("nccl_2_28") : std::string("nccl_2_30");
                         });

// rm -rf of the profile folder, then mkdir, while an 8-rank job runs (issue: the job ended with the folder
// empty and nothing counted). Every rank process's writer notices at its next flush and writes new files
// whose header counts what the removed ones held: on disk + counted lost = every collective call of
// every rank, and the exit line says how many were lost. One rank sleeps 100 ms before each timed
// collective, so that the job outlasts the writers' first flush (1 s); the removal comes after it.
TEST_F(NetJobTest, AProfileFolderRemovedMidJobLosesNothingUncounted) {
  JobOptions o = options(8, 2);
  o.collectives = parseCollectiveList("all-reduce");
  o.iterations = 40;
  o.bytes = 8 * 1024;
  o.profileDir = (dir_ / "profile").string();
  o.profilerPath = std::string(RAILTUNE_PLUGIN_DIR) + "/libnccl-profiler-railtune.so";
  o.delayRank = 0;
  o.delayUs = 100'000;
  // The job forks its ranks from a single-threaded process: the folder is removed by a child of the test.
  const pid_t remover = fork();
  ASSERT_GE(remover, 0);
  if (remover == 0) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      try {
        if (readProfile(o.profileDir).records > 0) {
          fs::remove_all(o.profileDir);
          fs::create_directories(o.profileDir);
          _exit(0);
        }
      } catch (const std::exception&) {  // no files yet, or a line being written
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    _exit(1);
  }
  const JobResult result = runJob(o);
  int removed = -1;
  ASSERT_EQ(waitpid(remover, &removed, 0), remover);
  ASSERT_TRUE(WIFEXITED(removed) && WEXITSTATUS(removed) == 0) << "no record reached the disk while the job ran";
  ASSERT_TRUE(result.ok()) << formatJobReport(o, result);
  const ProfileSummary summary = readProfile(o.profileDir);
  EXPECT_EQ(summary.byPid.size(), 8u) << "every rank process wrote its files again";
  EXPECT_GT(summary.recordsLost, 0u);
  EXPECT_EQ(summary.records + summary.recordsLost, 8u * 40u)
      << summary.records << " on disk, " << summary.recordsLost << " counted lost";
  const std::string line = formatProfileCount(summary, o.profileDir);
  EXPECT_NE(line.find(std::to_string(summary.recordsLost) + " records lost"), std::string::npos) << line;
}

TEST_F(NetJobTest, AProfileNeedsAPartPerRankInEveryRingStep) {
  JobOptions o = options(4, 2, smallMap());
  o.bytes = 3;
  o.profileDir = (dir_ / "profile").string();
  o.profilerPath = std::string(RAILTUNE_PLUGIN_DIR) + "/libnccl-profiler-railtune.so";
  try {
    runJob(o);
    ADD_FAILURE() << "3 bytes over 4 ranks were accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--bytes of at least --ranks"), std::string::npos) << e.what();
  }
}

// The demo's part (cli/demo/net.h): 16 ranks over two racks, one rank misbound; it finds exactly that.
TEST_F(NetJobTest, DemoFindsTheInjectedCrossRailConnections) {
  ::testing::internal::CaptureStdout();
  size_t pluginWarnings = 0;
  const int problems =
      cli::writeDemoNet(dir_, std::string(RAILTUNE_PLUGIN_DIR) + "/libnccl-net-railtune.so", pluginWarnings);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(problems, 0) << out;
  EXPECT_NE(out.find("16 ranks over 2 racks"), std::string::npos) << out;
  EXPECT_NE(out.find("Net plugin paths (an emulated job)"), std::string::npos) << out;
  EXPECT_NE(out.find("the emulator's speed, not the plugin's"), std::string::npos) << out;
  EXPECT_NE(out.find("Net plugin speed: not measured by the demo"), std::string::npos) << out;
  EXPECT_NE(out.find("Expected finding: `railtune paths check` exits 1"), std::string::npos) << out;
  EXPECT_NE(out.find("sends through mlx5_1 (rail 1)"), std::string::npos) << "the misbound NIC, named\n" << out;
  EXPECT_FALSE(readPathLogs((dir_ / "net" / "paths").string()).connects.empty());
  EXPECT_TRUE(fs::exists(dir_ / "net" / "paths.html")) << "the rendered page";
  EXPECT_NE(out.find("median busbw"), std::string::npos) << out;
  EXPECT_EQ(readProfile(dir_ / "profile").byPid.size(), 16u) << "one rank process each";
}

}  // namespace
}  // namespace railtune::emu::netjob
