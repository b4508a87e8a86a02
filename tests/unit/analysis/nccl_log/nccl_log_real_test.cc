// Real NCCL logs from public repositories (the shared data folder, SOURCES.md there names each): what the
// import must make of NCCL 2.9 over aws-ofi-nccl, 2.11 over sockets, and 2.27 and 2.29 over RoCE. Skipped
// with a message where the folder is absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "analysis/nccl_log/import.h"
#include "analysis/nccl_log/log_set.h"
#include "formats/path_log.h"

namespace railtune::analysis::nccl_log {
namespace {

namespace pl = formats::path_log;

std::string realLog(const char* name) {
  return std::string(RAILTUNE_SHARED_DATA) + "/nccl-logs/" + name;
}

#define REQUIRE_LOG(path)                                                   \
  if (!std::filesystem::exists(path))                                       \
    GTEST_SKIP() << path                                                    \
                 << " is absent (the shared data folder is not beside the " \
                    "checkout)";

TEST(NcclLogReal, AwsEfaTwoNineHasEveryPeerAndNoHca) {
  const std::string path = realLog("01-aws-efa-eks-ofi-2.9.9.log");
  REQUIRE_LOG(path);
  const LogSet logs = readLogs({path});
  EXPECT_EQ(logs.processes.size(), 16u);
  EXPECT_EQ(logs.version, "2.9.9+cuda11.2") << "rank 0's printf behind the launcher's prefix";
  EXPECT_EQ(logs.counts.badLines, 0u);
  const Import import = importLogs(logs, ImportOptions{});
  EXPECT_EQ(import.counts.connectionEnds, 64u);
  EXPECT_EQ(import.counts.connections, 32u) << "both hosts logged: each connection at both ends";
  EXPECT_EQ(import.counts.peerKnown, 64u) << "16 ranks, each rank once: matched by rank without commId";
  EXPECT_EQ(import.counts.hcaUnknown, 64u) << "the OFI plugin prints no device list";
  EXPECT_EQ(import.counts.gpuUnknown, 64u) << "bus ids without a rail map: the GPU index is not guessed";
  for (const ImportedProcess& p : import.processes)
    for (const ImportedConnection& c : p.connections) {
      EXPECT_EQ(c.record.nccl.net.view(), "AWS Libfabric");
      EXPECT_EQ(c.record.transport.view(), "plugin");
      EXPECT_TRUE(c.record.nccl.gdr);
      EXPECT_NE(c.record.remote.host.view(), p.identity.host) << import.where(c.at);
    }
}

TEST(NcclLogReal, SocketTwoElevenNamesTheInterface) {
  const std::string path = realLog("02-aws-hpc-tutorials-socket-2.11.4.log");
  REQUIRE_LOG(path);
  const Import import = importLogs(readLogs({path}), ImportOptions{});
  EXPECT_EQ(import.processes.size(), 2u);
  EXPECT_EQ(import.counts.connectionEnds, 8u);
  EXPECT_EQ(import.counts.connections, 4u);  // both hosts logged: each connection at both ends
  EXPECT_EQ(import.counts.peerKnown, 8u);
  for (const ImportedProcess& p : import.processes)
    for (const ImportedConnection& c : p.connections) {
      EXPECT_EQ(c.record.local.hca.view(), "eth0");
      EXPECT_EQ(c.record.transport.view(), "socket");
      EXPECT_FALSE(c.record.nccl.gdr);
      EXPECT_EQ(c.record.nccl.connIndex, -1);
    }
}

TEST(NcclLogReal, RoceTwoTwentySevenKeepsNcclsIndicesOfANonContiguousHcaList) {
  const std::string path = realLog("07-slurmv4-roce-ibhca-2.27.5.log");
  REQUIRE_LOG(path);
  const LogSet logs = readLogs({path});
  const Import import = importLogs(logs, ImportOptions{});
  EXPECT_EQ(import.processes.size(), 8u);
  EXPECT_EQ(import.counts.connections, 64u);
  EXPECT_EQ(import.counts.hcaUnknown, 0u);
  EXPECT_EQ(import.counts.commUnknown, 0u);
  EXPECT_EQ(import.counts.peerKnown, 0u) << "the other node's log was not posted";
  std::set<std::string> hcas;
  for (const ImportedProcess& p : import.processes)
    for (const ImportedConnection& c : p.connections) {
      hcas.insert(std::string(c.record.local.hca.view()));
      EXPECT_EQ(c.record.comm.value_or(0), 0xde4443395863ef4aULL);
      EXPECT_EQ(c.record.nccl.link.view(), "RoCE");
      if (c.record.local.device == 7) {
        EXPECT_EQ(c.record.local.hca.view(), "mlx5_11") << import.where(c.at);
      }
      if (c.record.local.device == 3) {
        EXPECT_EQ(c.record.local.hca.view(), "mlx5_5") << import.where(c.at);
      }
      EXPECT_EQ(c.record.local.gpu, c.record.local.device) << "rank with cudaDev d uses dev d: " << import.where(c.at);
    }
  EXPECT_EQ(hcas.size(), 8u);
}

TEST(NcclLogReal, RoceTwoTwentyNineWithElisionsAndRankPrefixes) {
  const std::string path = realLog("08-slurmv4-roce-2.29.3.log");
  REQUIRE_LOG(path);
  const LogSet logs = readLogs({path});
  EXPECT_EQ(logs.counts.badLines, 0u) << "'...' lines are passed over";
  const Import import = importLogs(logs, ImportOptions{});
  EXPECT_EQ(import.processes.size(), 8u);
  EXPECT_EQ(import.counts.connections, 64u);
  EXPECT_EQ(import.counts.commUnknown, 0u) << "[Rank N] ncclCommInitRank ... commId";
  for (const ImportedProcess& p : import.processes) {
    EXPECT_EQ(p.version, "2.29.3+cuda13.1");
    for (const ImportedConnection& c : p.connections) EXPECT_EQ(c.record.comm.value_or(0), 0x35712f37c64c1510ULL);
  }
}

}  // namespace
}  // namespace railtune::analysis::nccl_log
