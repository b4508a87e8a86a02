// One connection however many files carry it, and no host that is not one (log_set.h): the same process's
// log given twice, communicators announced in one file and used in another, two writers' lines spliced into
// one, a file cut inside its last line; and the IB-derived net plugins' device lists, and unique file names.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "analysis/nccl_log/import.h"
#include "analysis/nccl_log/log_set.h"

namespace railtune::analysis::nccl_log {
namespace {

std::string header(const std::string& host, int pid) {
  return host + ":" + std::to_string(pid) + ":" + std::to_string(pid + 1) + " [0] NCCL INFO ";
}

// A 2.27-style process of rank `rank`: its device list, its Init line, one send to rank+1 and one receive
// from rank-1 on channel 0.
std::vector<std::string> process(const std::string& host, int pid, int rank, const std::string& net = "IB") {
  const std::string h = header(host, pid);
  const std::string r = std::to_string(rank);
  return {h + "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB [RO]; OOB eth0:10.0.0.1<0>", h + "Using network " + net,
          h + "ncclCommInitRank comm 0x55aa" + r + " rank " + r + " nranks 2 cudaDev 0 nvmlDev 0 busId 1b000 commId " +
              "0x1234 - Init START",
          h + "Channel 00/0 : " + r + "[0] -> " + std::to_string(1 - rank) + "[0] [send] via NET/" + net + "/1/GDRDMA",
          h + "Channel 00/0 : " + std::to_string(1 - rank) + "[0] -> " + r + "[0] [receive] via NET/" + net + "/1"};
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

class TempDir {
 public:
  TempDir() {
    char name[] = "/tmp/nccl-log-merge-XXXXXX";
    path_ = ::mkdtemp(name);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string write(const std::string& name, const std::vector<std::string>& lines, bool lastNewline = true) {
    const std::string file = path_ + "/" + name;
    std::ofstream out(file, std::ios::binary);
    for (size_t i = 0; i < lines.size(); ++i) out << lines[i] << (i + 1 < lines.size() || lastNewline ? "\n" : "");
    return file;
  }

 private:
  std::string path_;
};

size_t connectionEnds(const LogSet& logs) {
  size_t n = 0;
  for (const Process& p : logs.processes) n += p.connections.size();
  return n;
}

bool named(const LogSet& logs, const std::string& where) {
  for (const Diagnostic& d : logs.diagnostics)
    if (d.where == where) return true;
  return false;
}

TEST(NcclLogMerge, TheSameLogGivenTwiceIsOneSetOfConnections) {
  TempDir dir;
  const std::string a = dir.write("a.log", process("node-a", 10, 0));
  const std::string b = dir.write("b.log", process("node-b", 20, 1));
  // The job's stdout: both processes behind a launcher's prefix, interleaved.
  std::vector<std::string> stdout_;
  const std::vector<std::string> pa = process("node-a", 10, 0), pb = process("node-b", 20, 1);
  for (size_t i = 0; i < pa.size(); ++i) {
    stdout_.push_back("[1,0]<stdout>:" + pa[i]);
    stdout_.push_back("[1,1]<stdout>:" + pb[i]);
  }
  const std::string out = dir.write("stdout.log", stdout_);
  const LogSet once = readLogs({a, b});
  const LogSet twice = readLogs({a, b, out, a});
  ASSERT_EQ(twice.processes.size(), 2u);
  EXPECT_EQ(connectionEnds(once), 4u);
  EXPECT_EQ(connectionEnds(twice), 4u);
  EXPECT_EQ(twice.counts.duplicateLines, 6u);  // stdout's 4, the second a.log's 2
  for (const Process& p : twice.processes) EXPECT_EQ(p.comms.size(), 1u) << p.host << ": one communicator";
  const Import import = importLogs(twice, ImportOptions{});
  EXPECT_EQ(import.counts.connections, 2u);
  EXPECT_EQ(import.counts.connectionEnds, 4u);
  EXPECT_EQ(import.counts.peerKnown, 4u);
}

TEST(NcclLogMerge, AChannelLineTakesItsCommunicatorFromAnEarlierFile) {
  TempDir dir;
  const std::vector<std::string> p = process("node-a", 10, 0);
  const std::string first = dir.write("1.log", {p[0], p[1], p[2]});
  const std::string second = dir.write("2.log", {p[3], p[4]});
  const LogSet logs = readLogs({first, second});
  ASSERT_EQ(logs.processes.size(), 1u);
  ASSERT_EQ(logs.processes[0].connections.size(), 2u);
  for (const NetConnection& c : logs.processes[0].connections) EXPECT_EQ(c.comm, 0);
}

TEST(NcclLogMerge, SplicedLinesAreBadLinesNeverHosts) {
  TempDir dir;
  std::vector<std::string> lines = concat(process("host1", 12, 0), process("host2", 56, 1));
  const std::string h2 = header("host2", 56);
  lines.push_back(header("host1", 12) + "Chan" + h2 + "Channel 01/0 : 1[0] -> 0[0] [send] via NET/IB/0");  // 11
  lines.push_back("host1:1" + h2 + "Channel 02/0 : 1[0] -> 0[0] [send] via NET/IB/0");                     // 12
  lines.push_back("host1:12:13 [0" + h2 + "Channel 03/0 : 1[0] -> 0[0] [send] via NET/IB/0");              // 13
  lines.push_back("Epoch 3 loss" + h2 + "Channel 04/0 : 1[0] -> 0[0] [send] via NET/IB/0");                // 14
  lines.push_back("nel 05/0 : 0[0] -> 1[0] [send] via NET/IB/0");                                          // 15
  lines.push_back(header("ghost", 99) + "Channel 06/0 : 1[0] -> 0[0] [send] via NET/IB/0");                // 16
  const std::string path = dir.write("job.log", lines);
  const LogSet logs = readLogs({path});
  ASSERT_EQ(logs.processes.size(), 2u);
  EXPECT_EQ(logs.processes[0].host, "host1");
  EXPECT_EQ(logs.processes[1].host, "host2");
  EXPECT_EQ(connectionEnds(logs), 4u);
  EXPECT_EQ(logs.counts.badLines, 6u);
  for (int line = 11; line <= 16; ++line) EXPECT_TRUE(named(logs, path + ":" + std::to_string(line))) << line;
}

TEST(NcclLogMerge, AFileCutInsideItsLastChannelLineKeepsNoConnectionFromIt) {
  TempDir dir;
  std::vector<std::string> lines = process("node-a", 10, 0);
  lines.back() = lines.back().substr(0, lines.back().find("/IB/1") + 5);  // "... via NET/IB/1" of "NET/IB/12"?
  const std::string path = dir.write("cut.log", lines, false);
  const LogSet logs = readLogs({path});
  EXPECT_EQ(connectionEnds(logs), 1u);
  EXPECT_EQ(logs.counts.badLines, 1u);
  EXPECT_TRUE(named(logs, path + ":5"));
}

// Before 2.18.3 a communicator's one line (Init COMPLETE) follows its Channel lines: with two communicators in
// which a process has the same rank, each line belongs to the communicator announced next, not the last one.
TEST(NcclLogMerge, OldCommunicatorsAreAnnouncedAfterTheirChannelLines) {
  TempDir dir;
  const std::string h = header("node-a", 10);
  const std::string path =
      dir.write("a.log", {h + "NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB eth0:10.0.0.1<0>",
                          h + "Channel 00/0 : 1[1b000] -> 2[1b000] [send] via NET/IB/0",
                          h + "comm 0x5501 rank 1 nranks 3 cudaDev 0 busId 1b000 commId 0xaaaa - Init COMPLETE",
                          h + "Channel 00/0 : 1[1b000] -> 0[1b000] [send] via NET/IB/0",
                          h + "comm 0x5502 rank 1 nranks 3 cudaDev 0 busId 1b000 commId 0xbbbb - Init COMPLETE"});
  const LogSet logs = readLogs({path});
  ASSERT_EQ(logs.processes.size(), 1u);
  const Process& p = logs.processes[0];
  ASSERT_EQ(p.connections.size(), 2u);
  ASSERT_EQ(p.comms.size(), 2u);
  EXPECT_EQ(p.comms[static_cast<size_t>(p.connections[0].comm)].commId, 0xaaaau);
  EXPECT_EQ(p.comms[static_cast<size_t>(p.connections[1].comm)].commId, 0xbbbbu);
}

// The rest of a line whose front another writer cut off ("-1-33:77:77 [0] ..." of "ip-10-0-1-33") is no host.
TEST(NcclLogMerge, AHostWithItsFrontCutOffIsNoHost) {
  TempDir dir;
  std::vector<std::string> lines = process("ip-10-0-1-33", 77, 0);
  lines.push_back("-1-33:77:78 [0] NCCL INFO Using network IB");
  const std::string path = dir.write("job.log", lines);
  const LogSet logs = readLogs({path});
  ASSERT_EQ(logs.processes.size(), 1u);
  EXPECT_TRUE(named(logs, path + ":6"));
}

TEST(NcclLogMerge, IbDerivedPluginsGetTheirHcaFromNcclsIbList) {
  for (const std::string net : {"IBext", "IBext_v8", "UCX", "UCX-RMA", "UCX-UCT-RD"}) {
    TempDir dir;
    const LogSet logs = readLogs({dir.write("a.log", process("node-a", 10, 0, net))});
    const Import import = importLogs(logs, ImportOptions{});
    ASSERT_EQ(import.processes.size(), 1u);
    for (const ImportedConnection& c : import.processes[0].connections) {
      EXPECT_EQ(c.record.local.hca.view(), "mlx5_3") << net;
      EXPECT_EQ(c.record.nccl.net.view(), net);
    }
    EXPECT_EQ(import.counts.hcaUnknown, 0u) << net;
  }
}

// NCCL's header host is the host name cut at its first '.', with '/' and '%' made '-' (debug.cc): "." , ".."
// and "node/1" are no hosts of NCCL's. Names that differ only in case are two files that a case-insensitive
// copy would make one.
TEST(NcclLogMerge, FileNamesAreUniqueAndNeverHidden) {
  TempDir dir;
  const std::string path =
      dir.write("a.log", concat(concat(concat(process(".", 10, 0), process("node/1", 10, 1)), process("NODE-1", 10, 1)),
                                process("node-1", 10, 0)));
  const LogSet logs = readLogs({path});
  ASSERT_EQ(logs.processes.size(), 2u);
  EXPECT_TRUE(named(logs, path + ":1")) << "host '.'";
  EXPECT_TRUE(named(logs, path + ":6")) << "host 'node/1'";
  ImportOptions options;
  options.job = "../../x";
  const Import import = importLogs(logs, options);
  std::set<std::string> names;
  for (const auto& [name, text] : renderPathLogs(import)) {
    EXPECT_NE(name.front(), '.') << name;
    EXPECT_EQ(name.find('/'), std::string::npos) << name;
    names.insert(name);
  }
  EXPECT_EQ(names.size(), 2u);
  EXPECT_TRUE(names.contains("___.._x-NODE-1-10.nccl.jsonl"));
  EXPECT_TRUE(std::any_of(names.begin(), names.end(), [](const std::string& n) {
    return n.starts_with("___.._x-node-1-10-h") && n.ends_with(".nccl.jsonl");
  }));
  // Stable: the same import names the same files.
  std::set<std::string> again;
  for (const auto& [name, text] : renderPathLogs(importLogs(logs, options))) again.insert(name);
  EXPECT_EQ(names, again);
}

}  // namespace
}  // namespace railtune::analysis::nccl_log
