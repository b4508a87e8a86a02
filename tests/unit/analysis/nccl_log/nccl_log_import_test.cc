// Rebuilding path-log records from NCCL INFO logs (analysis/nccl_log/import.h): small jobs written line by
// line in the formats NCCL prints, then what the import makes of them, field by field.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/nccl_log/import.h"
#include "analysis/nccl_log/log_set.h"
#include "formats/path_log.h"
#include "formats/rail_map.h"

namespace railtune::analysis::nccl_log {
namespace {

namespace pl = formats::path_log;

// Two hosts of two GPUs; GPU g's NIC is mlx5_g on rail g.
constexpr const char* kRailMap = R"({"schema":"railtune.rail_map.v1","cluster":"t","rails":2,"planes":1,"hosts":[
{"name":"node-a","domain":"node-a","gpus":[
 {"index":0,"bus_id":"0000:1b:00.0","nics":[{"hca":"mlx5_0","netdev":"ib0","bus_id":"0000:18:00.0","port":1,"rail":0,"plane":-1}]},
 {"index":1,"bus_id":"0000:43:00.0","nics":[{"hca":"mlx5_1","netdev":"ib1","bus_id":"0000:40:00.0","port":1,"rail":1,"plane":-1}]}]},
{"name":"node-b","domain":"node-b","gpus":[
 {"index":0,"bus_id":"0000:1b:00.0","nics":[{"hca":"mlx5_0","netdev":"ib0","bus_id":"0000:18:00.0","port":1,"rail":0,"plane":-1}]},
 {"index":1,"bus_id":"0000:43:00.0","nics":[{"hca":"mlx5_1","netdev":"ib1","bus_id":"0000:40:00.0","port":1,"rail":1,"plane":-1}]}]}]})";

struct Rank {
  const char* host;
  int pid;
  int gpu;
  int rank;
};

std::string prefix(const Rank& r) {
  return std::string(r.host) + ":" + std::to_string(r.pid) + ":" + std::to_string(r.pid) + " [" +
         std::to_string(r.gpu) + "] NCCL INFO ";
}

// A 2.27-style log of one process: version, device list, Init START, then the given Channel lines.
std::vector<std::string> processLog(const Rank& r, const std::vector<std::string>& channels) {
  std::vector<std::string> lines = {
      prefix(r) + "NCCL version 2.27.5+cuda12.9",
      prefix(r) + "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB eth0:10.0.0.1<0>",
      prefix(r) + "Using network IB",
      prefix(r) + "ncclCommInitRank comm 0x5500" + std::to_string(r.rank) + " rank " + std::to_string(r.rank) +
          " nranks 4 cudaDev " + std::to_string(r.gpu) + " nvmlDev " + std::to_string(r.gpu) +
          " busId 1b000 commId 0xabcdef0123456789 - Init START",
  };
  for (const std::string& c : channels) lines.push_back(prefix(r) + c);
  return lines;
}

LogSet read(const std::vector<std::pair<std::string, std::vector<std::string>>>& files) {
  LogSetBuilder builder;
  for (const auto& [name, lines] : files) {
    builder.startFile(name);
    int number = 0;
    for (const std::string& line : lines) builder.addLine(line, ++number);
  }
  return builder.finish();
}

const ImportedConnection* find(const Import& import, const char* host, int rank, bool send, int channel) {
  for (const ImportedProcess& p : import.processes)
    for (const ImportedConnection& c : p.connections)
      if (p.identity.host == host && c.record.rank == rank && (c.record.direction == pl::Direction::Send) == send &&
          c.record.nccl.channel == channel)
        return &c;
  return nullptr;
}

const Rank kA0{"node-a", 100, 0, 0}, kA1{"node-a", 101, 1, 1}, kB0{"node-b", 200, 0, 2}, kB1{"node-b", 201, 1, 3};

// Ring 0 -> 2 on rail 0, 3 -> 1 on rail 1; rank 1 sends to rank 3 on channel 1 through NIC 0 (a cross-rail send).
LogSet twoHostJob() {
  return read({
      {"a0.log", processLog(kA0, {"Channel 00/0 : 0[0] -> 2[0] [send] via NET/IB/0/GDRDMA"})},
      {"a1.log", processLog(kA1, {"Channel 00/0 : 3[1] -> 1[1] [receive] via NET/IB/1/GDRDMA",
                                  "Channel 01/0 : 1[1] -> 3[1] [send] via NET/IB/0/GDRDMA"})},
      {"b0.log", processLog(kB0, {"Channel 00/0 : 0[0] -> 2[0] [receive] via NET/IB/0/GDRDMA"})},
      {"b1.log", processLog(kB1, {"Channel 00/0 : 3[1] -> 1[1] [send] via NET/IB/1/GDRDMA",
                                  "Channel 01/0 : 1[1] -> 3[1] [receive] via NET/IB/1/GDRDMA"})},
  });
}

TEST(NcclLogImport, EachNetworkLineIsAConnectRecordWithBothEnds) {
  const LogSet logs = twoHostJob();
  ASSERT_EQ(logs.processes.size(), 4u);
  const Import import = importLogs(logs, ImportOptions{});
  EXPECT_EQ(import.counts.connections, 3u);  // each logged at both ends
  EXPECT_EQ(import.counts.connectionEnds, 6u);
  EXPECT_EQ(import.counts.peerKnown, 6u);
  const ImportedConnection* send = find(import, "node-a", 0, true, 0);
  ASSERT_NE(send, nullptr);
  const pl::PathRecord& r = send->record;
  EXPECT_EQ(import.where(send->at), "a0.log:5");
  EXPECT_EQ(r.source, pl::Source::NcclLog);
  EXPECT_EQ(r.comm.value_or(0), 0xabcdef0123456789ULL);
  EXPECT_EQ(r.transport.view(), "ib");
  EXPECT_EQ(r.nccl.net.view(), "IB");
  EXPECT_EQ(r.nccl.connIndex, 0);
  EXPECT_EQ(r.nccl.port, 1);
  EXPECT_EQ(r.nccl.link.view(), "IB");
  EXPECT_TRUE(r.nccl.gdr);
  EXPECT_EQ(r.local.hca.view(), "mlx5_0");
  EXPECT_EQ(r.local.gpu, 0);
  EXPECT_EQ(r.remote.host.view(), "node-b");
  EXPECT_EQ(r.remote.pid, 200);
  EXPECT_EQ(r.remote.rank, 2);
  EXPECT_EQ(r.remote.hca.view(), "mlx5_0");
  EXPECT_EQ(r.expectedRail, -1) << "no rail map, no expected rail";
  EXPECT_EQ(r.local.rail, -1) << "no rail map and a list without rails";
}

TEST(NcclLogImport, TheRailMapGivesRailsAndFindsTheCrossRailSend) {
  const formats::RailMap map = formats::parseRailMap(kRailMap, "map.json");
  ImportOptions options;
  options.railMap = &map;
  const Import import = importLogs(twoHostJob(), options);
  EXPECT_EQ(import.counts.crossRail, 1u);
  const ImportedConnection* cross = find(import, "node-a", 1, true, 1);
  ASSERT_NE(cross, nullptr);
  EXPECT_EQ(cross->record.local.hca.view(), "mlx5_0");
  EXPECT_EQ(cross->record.local.rail, 0);
  EXPECT_EQ(cross->record.expectedRail, 1);
  EXPECT_EQ(cross->record.remote.rail, 1);
  const ImportedConnection* fine = find(import, "node-b", 3, true, 0);
  ASSERT_NE(fine, nullptr);
  EXPECT_EQ(fine->record.local.rail, 1);
  EXPECT_EQ(fine->record.expectedRail, 1);
}

TEST(NcclLogImport, APxnSendExpectsTheProxyGpusRail) {
  const formats::RailMap map = formats::parseRailMap(kRailMap, "map.json");
  ImportOptions options;
  options.railMap = &map;
  // Rank 1 (GPU 1) sends through rank 0's proxy and NIC 0: rail 0 is the proxy GPU's, so not a violation.
  const Import import =
      importLogs(read({
                     {"a0.log", processLog(kA0, {})},
                     {"a1.log", processLog(kA1, {"Channel 02/0 : 1[1] -> 2[0] [send] via NET/IB/0(0)/GDRDMA"})},
                 }),
                 options);
  const ImportedConnection* pxn = find(import, "node-a", 1, true, 2);
  ASSERT_NE(pxn, nullptr);
  EXPECT_EQ(pxn->record.nccl.proxyRank, 0);
  EXPECT_EQ(pxn->record.local.rail, 0);
  EXPECT_EQ(pxn->record.expectedRail, 0);
  EXPECT_EQ(import.counts.crossRail, 0u);
  EXPECT_TRUE(pxn->record.remote.host.view().empty()) << "rank 2's log was not given";
  EXPECT_EQ(pxn->record.remote.rank, 2);
}

TEST(NcclLogImport, OldLogsGetTheGpuFromTheBusIdThroughTheRailMap) {
  const formats::RailMap map = formats::parseRailMap(kRailMap, "map.json");
  ImportOptions options;
  options.railMap = &map;
  // 2.11: no version line with a header (rank 0's printf), bus ids in brackets, no commId.
  const LogSet logs =
      read({{"job.log",
             {"NCCL version 2.11.4+cuda11.4",
              "node-a:100:100 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB eth0:1.2.3.4<0>",
              "node-a:100:107 [0] NCCL INFO Channel 00 : 0[43000] -> 2[1b000] [send] via NET/IB/1/GDRDMA",
              "node-a:100:100 [0] NCCL INFO comm 0x7f01 rank 0 nranks 4 cudaDev 0 busId 43000 - Init COMPLETE"}}});
  EXPECT_EQ(logs.version, "2.11.4+cuda11.4");
  const Import import = importLogs(logs, options);
  ASSERT_EQ(import.counts.connections, 1u);
  const pl::PathRecord& r = import.processes[0].connections[0].record;
  EXPECT_EQ(r.local.gpu, 1) << "bus 0000:43:00.0 is GPU 1 in the rail map";
  EXPECT_EQ(r.expectedRail, 1);
  EXPECT_EQ(r.local.rail, 1);
  EXPECT_EQ(r.nccl.connIndex, -1);
  EXPECT_FALSE(r.comm) << "no commId before 2.16";
  EXPECT_EQ(import.counts.commUnknown, 0u) << "the process's only communicator of rank 0, whose line follows";
}

TEST(NcclLogImport, WithoutARailMapTwoThirtyListsGiveRails) {
  const Rank r{"gb-1", 7, 0, 0};
  const LogSet logs = read({{"x.log",
                             {prefix(r) + "NET/IB : Using [0]mlx5_0:1:2:1/IB [RO]; OOB eth0:1.2.3.4<0>",
                              prefix(r) + "Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0/GDRDMA"}}});
  const Import import = importLogs(logs, ImportOptions{});
  const pl::PathRecord& c = import.processes[0].connections[0].record;
  EXPECT_EQ(c.local.rail, 2);
  EXPECT_EQ(c.local.plane, 1);
  EXPECT_EQ(c.expectedRail, -1);
}

TEST(NcclLogImport, UnknownFactsStayUnknownAndAreSaid) {
  const Rank r{"gb-1", 7, 3, 5};
  const LogSet logs = read({{"x.log",
                             {prefix(r) + "Channel 00/0 : 5[3] -> 1[1] [send] via NET/AWS Libfabric/2/GDRDMA",
                              prefix(r) + "Channel 01/0 : 5[3] -> 1[1] [send] via NET/AWS Libfabric/2/",
                              "some other program's line", prefix(r) + "..."}}});
  EXPECT_EQ(logs.counts.badLines, 1u);
  ASSERT_FALSE(logs.diagnostics.empty());
  EXPECT_EQ(logs.diagnostics[0].where, "x.log:2");
  const Import import = importLogs(logs, ImportOptions{});
  ASSERT_EQ(import.counts.connections, 1u);
  const pl::PathRecord& c = import.processes[0].connections[0].record;
  EXPECT_TRUE(c.local.hca.view().empty());
  EXPECT_EQ(c.transport.view(), "plugin");
  EXPECT_EQ(c.local.gpu, 3) << "2.18.3+ print the NVML index in brackets (no version line: small numbers)";
  EXPECT_EQ(import.counts.hcaUnknown, 1u);
  bool said = false;
  for (const Diagnostic& d : import.diagnostics)
    said |= d.message.find("NET/AWS Libfabric : Using") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(NcclLogImport, ALineReadTwiceIsOneConnection) {
  const std::vector<std::string> lines = processLog(kA0, {"Channel 00/0 : 0[0] -> 2[0] [send] via NET/IB/0/GDRDMA"});
  const LogSet logs = read({{"stdout.log", lines}, {"node-a.100.nccl.log", lines}});
  ASSERT_EQ(logs.processes.size(), 1u);
  EXPECT_EQ(logs.processes[0].connections.size(), 1u);
  EXPECT_EQ(logs.counts.duplicateLines, 1u);
}

TEST(NcclLogImport, RenderedRecordsReadBackStrictly) {
  const formats::RailMap map = formats::parseRailMap(kRailMap, "map.json");
  ImportOptions options;
  options.job = "train-42";
  options.railMap = &map;
  const Import import = importLogs(twoHostJob(), options);
  const auto files = renderPathLogs(import);
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[0].first, "train-42-node-a-100.nccl.jsonl");
  for (const auto& [name, text] : files) {
    const pl::ParseAllResult parsed = pl::parseRecords(text, name);
    EXPECT_EQ(parsed.error, "");
    for (const pl::ParsedRecord& r : parsed.records) {
      EXPECT_EQ(r.record.source, pl::Source::NcclLog);
      EXPECT_EQ(pl::renderRecord(r.identity, r.record) + "\n", text.substr(0, text.find('\n') + 1)) << name;
      break;
    }
  }
}

}  // namespace
}  // namespace railtune::analysis::nccl_log
