// Bytes from the profiler's network summary joined to imported connections (analysis/nccl_log/profile_join.h):
// the summary files are written with the profiler's own renderer, so the join reads what the plugin writes.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>

#include "analysis/nccl_log/import.h"
#include "analysis/nccl_log/log_set.h"
#include "analysis/nccl_log/profile_join.h"
#include "formats/profile_logs.h"

namespace railtune::analysis::nccl_log {
namespace {

namespace fs = std::filesystem;
namespace pl = formats::path_log;
namespace pf = formats::profile;

// Rank 0 on node-a sends to rank 1 on node-b on channel 0, for collectives (connIndex 0) and for P2P (1).
LogSet job() {
  LogSetBuilder builder;
  builder.startFile("a.log");
  const char* lines[] = {
      "node-a:100:100 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB eth0:1.2.3.4<0>",
      ("node-a:100:100 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1b000 "
       "commId 0x00000000000000aa - Init START"),
      "node-a:100:100 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA",
      "node-a:100:100 [0] NCCL INFO Channel 00/1 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA/Shared",
  };
  int number = 0;
  for (const char* line : lines) builder.addLine(line, ++number);
  return builder.finish();
}

pf::OperationRecord operation(pf::RecordKind kind, int channel, int peer, uint64_t bytes, int64_t endNs) {
  pf::OperationRecord r;
  r.kind = kind;
  r.comm = 0xaa;
  r.rank = 0;
  r.nRanks = 2;
  r.operation.assign(kind == pf::RecordKind::P2p ? "Send" : "AllReduce");
  r.peer = kind == pf::RecordKind::P2p ? peer : -1;
  r.bytes = bytes;
  r.end.realtimeNs = endNs;
  r.start.realtimeNs = endNs - 1000;
  r.nFlows = 1;
  r.flows[0].channel = channel;
  r.flows[0].peer = peer;
  r.flows[0].send = true;
  r.flows[0].bytes = bytes;
  r.flows[0].steps = 4;
  return r;
}

class NcclLogProfileJoin : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("railtune-join-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void writeNet(const std::string& host, int pid, const std::vector<pf::OperationRecord>& records) {
    const Identity identity{host, "job", pid};
    std::ofstream out(dir_ / pf::profileFileName(identity, pf::ProfileFile::Net, "1"));
    for (const pf::OperationRecord& r : records) out << pf::renderNetLine(identity, r) << "\n";
  }

  fs::path dir_;
};

TEST_F(NcclLogProfileJoin, CollectiveBytesGoToConnIndexZeroAndP2pBytesToOne) {
  writeNet(
      "node-a.cluster.local", 100,
      {operation(pf::RecordKind::Collective, 0, 1, 1000, 5'000'000),
       operation(pf::RecordKind::Collective, 0, 1, 500, 6'000'000), operation(pf::RecordKind::P2p, 0, 1, 64, 7'000'000),
       operation(pf::RecordKind::Collective, 3, 1, 9, 8'000'000)});  // channel 3: no such connection
  Import import = importLogs(job(), ImportOptions{});
  const ProfileJoinCounts counts = joinProfileFlows({dir_.string()}, &import);
  EXPECT_EQ(counts.files, 1u);
  EXPECT_EQ(counts.flows, 4u);
  EXPECT_EQ(counts.flowsJoined, 3u);
  EXPECT_EQ(counts.flowsUnmatched, 1u);
  EXPECT_EQ(counts.connectionsWithBytes, 2u);
  const ImportedProcess& p = import.processes.at(0);
  ASSERT_EQ(p.traffic.size(), 2u);
  for (const pl::PathRecord& close : p.traffic) {
    EXPECT_EQ(close.kind, pl::RecordKind::Close);
    const pl::PathRecord& connect = p.connections.at(close.connection - 1).record;
    if (connect.nccl.connIndex == 0) {
      EXPECT_EQ(close.traffic.bytesSent, 1500u);
      EXPECT_EQ(close.traffic.messagesSent, 8u);
    } else {
      EXPECT_EQ(close.traffic.bytesSent, 64u);
    }
  }
  // The close records are part of the rendered path log.
  const auto files = renderPathLogs(import);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_NE(files[0].second.find("\"record\":\"close\""), std::string::npos);
}

TEST_F(NcclLogProfileJoin, AnotherProcessOrABadLineJoinsNothingAndIsCounted) {
  writeNet("node-a", 999, {operation(pf::RecordKind::Collective, 0, 1, 1000, 5'000'000)});
  std::ofstream(dir_ / "job-node-a-100.1.net.jsonl") << "{\"schema\":\"railtune.profile.net.v1\",\"trunc\n";
  Import import = importLogs(job(), ImportOptions{});
  const ProfileJoinCounts counts = joinProfileFlows({dir_.string()}, &import);
  EXPECT_EQ(counts.flowsUnmatched, 1u);
  EXPECT_EQ(counts.badLines, 1u);
  EXPECT_TRUE(import.processes.at(0).traffic.empty());
  bool named = false;
  for (const Diagnostic& d : import.diagnostics)
    named |= d.message.find("job-node-a-100.1.net.jsonl:1") != std::string::npos;
  EXPECT_TRUE(named);
}

}  // namespace
}  // namespace railtune::analysis::nccl_log
