// loadPathLogs (analysis/paths/path_load.h): folder walk, file kinds, bad lines, jobs, connections, pairing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/paths/path_load.h"
#include "tests/unit/analysis/paths/paths_test_support.h"

namespace railtune::analysis::paths {
namespace {

using testing::connectOf;
using testing::fileName;
using testing::line;
using testing::TempFolder;
using testing::TestEnd;
using testing::trafficOf;
namespace pl = formats::path_log;

const TestEnd& kA = testing::kRack1Tray1;
const TestEnd& kB = testing::kRack2Tray1;

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A sends to B and B sends to A, each end logging connect, a snapshot and a close.
struct CheckedCounts {
  size_t records = 0, closed = 0;
};

CheckedCounts countsOf(const JobPaths& job) {
  CheckedCounts c;
  c.records = job.connections.size();
  for (const Connection& conn : job.connections) c.closed += conn.closed ? 1 : 0;
  return c;
}

void writeTwoHostJob(const TempFolder& dir, const std::string& job = "48213") {
  dir.write(fileName(job, kA),
            line(job, kA, connectOf(kA, kB, true, 1, 0)) + line(job, kA, connectOf(kA, kB, false, 2, 0)) +
                line(job, kA, trafficOf(1, false, 10, 1000, 0)) + line(job, kA, trafficOf(1, true, 20, 2000, 0)) +
                line(job, kA, trafficOf(2, true, 20, 0, 3000)));
  dir.write(fileName(job, kB),
            line(job, kB, connectOf(kB, kA, false, 1, 0)) + line(job, kB, connectOf(kB, kA, true, 2, 0)) +
                line(job, kB, trafficOf(1, true, 20, 0, 2000)) + line(job, kB, trafficOf(2, true, 20, 3000, 0)));
}

std::vector<std::string> wheres(const std::vector<InputDiagnostic>& diagnostics) {
  std::vector<std::string> out;
  for (const InputDiagnostic& d : diagnostics) out.push_back(d.where + ": " + d.message);
  return out;
}

TEST(PathsLoad, JoinsAndPairsBothEnds) {
  const TempFolder dir("pair");
  writeTwoHostJob(dir);
  const LoadedPaths loaded = loadPathLogs(dir.str(), {});
  ASSERT_EQ(loaded.jobs.size(), 1u);
  EXPECT_TRUE(loaded.diagnostics.empty());
  const JobPaths& job = loaded.jobs.front();
  EXPECT_EQ(job.job, "48213");
  EXPECT_EQ(job.hosts, (std::vector<std::string>{kA.host, kB.host}));
  EXPECT_TRUE(job.diagnostics.empty()) << ::testing::PrintToString(wheres(job.diagnostics));
  ASSERT_EQ(job.connections.size(), 4u);
  // Files in name order, records in line order: A's send, A's receive, B's receive, B's send.
  EXPECT_EQ(job.connections[0].peerIndex, 2);
  EXPECT_EQ(job.connections[2].peerIndex, 0);
  EXPECT_EQ(job.connections[1].peerIndex, 3);
  EXPECT_EQ(job.connections[3].peerIndex, 1);
  // The close wins over the snapshot; ranks a record did not know come from the other records.
  EXPECT_TRUE(job.connections[0].closed);
  EXPECT_EQ(job.connections[0].traffic.bytesSent, 2000u);
  EXPECT_EQ(job.connections[1].local.rank, 0);
  EXPECT_EQ(job.connections[0].remote.rank, 4);
  EXPECT_EQ(job.connections[0].source, dir.str() + "/" + fileName("48213", kA) + ":1");
}

TEST(PathsLoad, IdenticalCandidatesPairInConnectionOrder) {
  const TempFolder dir("order");
  dir.write(fileName("j", kA),
            line("j", kA, connectOf(kA, kB, true, 7, 0)) + line("j", kA, connectOf(kA, kB, true, 3, 0)));
  dir.write(fileName("j", kB),
            line("j", kB, connectOf(kB, kA, false, 9, 0)) + line("j", kB, connectOf(kB, kA, false, 4, 0)));
  const JobPaths job = loadPathLogs(dir.str(), {}).jobs.at(0);
  // A's conn 3 (index 1) pairs with B's conn 4 (index 3), A's conn 7 with B's conn 9.
  EXPECT_EQ(job.connections[1].peerIndex, 3);
  EXPECT_EQ(job.connections[0].peerIndex, 2);
}

TEST(PathsLoad, MisboundEndsPairDespiteTheirDevices) {
  const TempFolder dir("misbound");
  TestEnd misbound = kA;
  misbound.device = 1;  // the handshake announces the device used; the record logs the one NCCL asked for
  pl::PathRecord send = connectOf(kA, kB, true, 1, 0);
  send.local.hca.assign("mlx5_1");
  send.local.rail = 1;
  dir.write(fileName("j", kA), line("j", kA, send));
  dir.write(fileName("j", kB), line("j", kB, connectOf(kB, misbound, false, 1, 0)));
  const JobPaths job = loadPathLogs(dir.str(), {}).jobs.at(0);
  EXPECT_EQ(job.connections[0].peerIndex, 1);
}

TEST(PathsLoad, GoldenExampleOfTheWriter) {
  const TempFolder dir("golden");
  dir.write("48213-gb300-r01-t05-4121.jsonl", readText(RAILTUNE_PATH_LOG_EXAMPLE));
  const LoadedPaths loaded = loadPathLogs(dir.str(), {});
  ASSERT_EQ(loaded.jobs.size(), 1u);
  const JobPaths& job = loaded.jobs.front();
  ASSERT_EQ(job.connections.size(), 4u);
  EXPECT_TRUE(job.connections[0].closed);
  EXPECT_EQ(job.connections[0].traffic.bytesSent, 262144000u);
  EXPECT_FALSE(job.connections[1].closed);
  EXPECT_EQ(job.connections[1].traffic.bytesSent, 3145728u);
  EXPECT_FALSE(job.connections[2].comm.has_value());
  // Two records say records were lost; the peer host wrote no log.
  const std::vector<std::string> got = wheres(job.diagnostics);
  ASSERT_EQ(got.size(), 3u) << ::testing::PrintToString(got);
  EXPECT_NE(got[0].find(":5:1: the writer lost 2 record(s)"), std::string::npos) << got[0];
  EXPECT_NE(got[1].find(":7:1: the writer lost 5 record(s)"), std::string::npos) << got[1];
  EXPECT_EQ(got[2].find(": host gb300-r02-t05 wrote no path log for job 48213: 4 connections"), 0u) << got[2];
  // The ib connection: its verbs facts, and the bytes per QP of its close.
  const Connection& ib = job.connections[3];
  EXPECT_EQ(ib.transport, "ib");
  EXPECT_TRUE(ib.verbs.present);
  EXPECT_EQ(ib.verbs.qpCount, 2);
  EXPECT_EQ(ib.verbs.localQpn[1], 0x1a3u);
  EXPECT_TRUE(ib.closed);
  EXPECT_EQ(ib.traffic.bytesPerQp, (std::vector<uint64_t>{22282240, 22282240}));
  EXPECT_TRUE(job.connections[0].traffic.bytesPerQp.empty());
}

TEST(PathsLoad, TruncatedAndInterleavedLinesAreNamedAndSkipped) {
  const TempFolder dir("bad-lines");
  const std::string connect = line("j", kA, connectOf(kA, kB, true, 1, 0));
  const std::string other = line("j", kA, connectOf(kA, kB, true, 2, 0));
  const std::string truncated = connect.substr(0, 80) + "\n";
  const std::string interleaved = other.substr(0, 60) + connect.substr(0, 50) + other.substr(60);
  dir.write(fileName("j", kA), truncated + interleaved + other + line("j", kA, connectOf(kA, kB, true, 3, 0)));
  const LoadedPaths loaded = loadPathLogs(dir.str(), {});
  ASSERT_EQ(loaded.jobs.size(), 1u);
  const JobPaths& job = loaded.jobs.front();
  EXPECT_EQ(job.connections.size(), 2u);
  ASSERT_EQ(job.diagnostics.size(), 3u);  // two bad lines, and host B never logged
  const std::string file = dir.str() + "/" + fileName("j", kA);
  EXPECT_EQ(job.diagnostics[0].where, file + ":1:81");
  EXPECT_NE(job.diagnostics[0].message.find("not JSON"), std::string::npos) << job.diagnostics[0].message;
  EXPECT_EQ(job.diagnostics[1].where.rfind(file + ":2:", 0), 0u) << job.diagnostics[1].where;
}

TEST(PathsLoad, UnknownSchemaVersionIsNamedOnceAndSkipped) {
  const TempFolder dir("version");
  writeTwoHostJob(dir);
  std::string v2 = line("j", kA, connectOf(kA, kB, true, 1, 0));
  v2.replace(v2.find("path_log.v1"), 11, "path_log.v2");
  dir.write("new/j-other-1.jsonl", v2 + v2);
  const LoadedPaths loaded = loadPathLogs(dir.str(), {});
  ASSERT_EQ(loaded.diagnostics.size(), 1u);
  EXPECT_EQ(loaded.diagnostics[0].where, dir.str() + "/new/j-other-1.jsonl");
  EXPECT_NE(loaded.diagnostics[0].message.find("schema railtune.path_log.v2 is not a path log version"),
            std::string::npos);
  ASSERT_EQ(loaded.jobs.size(), 1u);
  EXPECT_EQ(loaded.jobs[0].job, "48213");
}

TEST(PathsLoad, OtherFilesAreSkippedSilentlyAndForeignOnesNamed) {
  const TempFolder dir("others");
  writeTwoHostJob(dir);
  dir.write("prof/48213-gb300-r01-t01-100.collectives.jsonl", "{\"schema\":\"railtune.profile.collectives.v1\"}\n");
  dir.write("prof/48213-gb300-r01-t01-100.trace.json", "{\"traceEvents\":[\n{\"ph\":\"X\"}\n]}\n");
  dir.write("notes.txt", "hello\n");
  dir.write("prof/48213-gb300-r01-t01-100.net.jsonl", "");  // a rank without network flows
  dir.write("rail-map.json", "{\n  \"schema\": \"railtune.rail_map.v1\"\n}\n");
  dir.write("zz-empty.jsonl", "\n\n");
  const LoadedPaths loaded = loadPathLogs(dir.str(), {});
  ASSERT_EQ(loaded.diagnostics.size(), 1u) << ::testing::PrintToString(wheres(loaded.diagnostics));
  EXPECT_EQ(loaded.diagnostics[0].where, dir.str() + "/notes.txt");
  EXPECT_EQ(loaded.diagnostics[0].message, "not a path log (no line is a JSON record with a schema); skipped");
  EXPECT_EQ(loaded.jobs.at(0).connections.size(), 4u);
}

// Earlier versions named a path log "<job>-<host>-<pid>.jsonl"; now the process's start time follows
// the pid ("<job>-<host>-<pid>.<start>.jsonl", "<start>_<4 hex digits>" beside another process of the
// same job, host and pid). Both are read and joined; the profiler's tagged files are skipped silently.
TEST(PathsLoad, OldAndTaggedFileNamesAreReadAlike) {
  const TempFolder dir("names");
  writeTwoHostJob(dir);
  const std::string tagged = dir.str() + "/48213-" + kB.host + "-" + std::to_string(kB.pid) + ".1a2b3c_9f0e.jsonl";
  std::filesystem::rename(dir.path() / fileName("48213", kB), tagged);
  dir.write("48213-gb300-r01-t01-100.1a2b3c.trace.json", "[\n]\n");
  dir.write("48213-gb300-r01-t01-100.1a2b3c.collectives.jsonl", "{\"schema\":\"railtune.profile.collectives.v1\"}\n");
  const LoadedPaths loaded = loadPathLogs(dir.str(), {});
  EXPECT_TRUE(loaded.diagnostics.empty()) << ::testing::PrintToString(wheres(loaded.diagnostics));
  ASSERT_EQ(loaded.jobs.size(), 1u);
  const JobPaths& job = loaded.jobs.front();
  EXPECT_EQ(job.hosts, (std::vector<std::string>{kA.host, kB.host}));
  ASSERT_EQ(job.connections.size(), 4u);
  size_t fromTagged = 0;
  for (const auto& c : job.connections) {
    EXPECT_GE(c.peerIndex, 0) << c.source;
    fromTagged += c.source.rfind(tagged + ":", 0) == 0 ? 1 : 0;
  }
  EXPECT_EQ(fromTagged, 2u);
}

TEST(PathsLoad, JobsAreSeparatedAndCanBeChosen) {
  const TempFolder dir("jobs");
  writeTwoHostJob(dir, "200");
  writeTwoHostJob(dir, "100");
  const LoadedPaths both = loadPathLogs(dir.str(), {});
  ASSERT_EQ(both.jobs.size(), 2u);
  EXPECT_EQ(both.jobs[0].job, "100");
  EXPECT_EQ(both.jobs[1].job, "200");
  EXPECT_EQ(both.jobs[1].connections.size(), 4u);
  const LoadedPaths one = loadPathLogs(dir.str(), LoadOptions{"200"});
  ASSERT_EQ(one.jobs.size(), 1u);
  EXPECT_EQ(one.jobs[0].job, "200");
  EXPECT_TRUE(loadPathLogs(dir.str(), LoadOptions{"300"}).jobs.empty());
}

TEST(PathsLoad, OrphanTrafficAndRepeatedRecordsAreNamed) {
  const TempFolder dir("orphan");
  dir.write(fileName("j", kA),
            line("j", kA, trafficOf(9, false, 5, 1, 1)) + line("j", kA, connectOf(kA, kB, true, 1, 0)) +
                line("j", kA, connectOf(kA, kB, true, 1, 0)) + line("j", kA, trafficOf(1, false, 30, 300, 0)) +
                line("j", kA, trafficOf(1, false, 10, 100, 0)));
  const JobPaths job = loadPathLogs(dir.str(), {}).jobs.at(0);
  ASSERT_EQ(job.connections.size(), 1u);
  EXPECT_EQ(job.connections[0].traffic.bytesSent, 300u);  // the latest snapshot, not the last line
  const std::vector<std::string> got = wheres(job.diagnostics);
  ASSERT_EQ(got.size(), 3u) << ::testing::PrintToString(got);
  EXPECT_NE(got[0].find(":3:1: second connect record of connection 1"), std::string::npos) << got[0];
  EXPECT_NE(got[1].find(":1:1: snapshot of connection 9 (pid 100 on gb300-r01-t01) without a connect record"),
            std::string::npos)
      << got[1];
  EXPECT_NE(got[2].find("host gb300-r02-t01 wrote no path log"), std::string::npos) << got[2];
}

TEST(PathsLoad, FolderErrors) {
  EXPECT_THROW(loadPathLogs("/nonexistent/railtune-paths", {}), std::runtime_error);
  const TempFolder dir("empty");
  const LoadedPaths loaded = loadPathLogs(dir.str(), {});
  EXPECT_TRUE(loaded.jobs.empty());
  EXPECT_TRUE(loaded.diagnostics.empty());
}

// The same logs found twice (a copy in another folder, as when a host's logs are collected twice): every
// connection once, the copy's connect and close records named once per file rather than once each (a repeated
// snapshot changes nothing and is not named).
TEST(PathsLoad, ACopyOfALogInAnotherFolderAddsNoConnection) {
  const TempFolder dir("copy");
  writeTwoHostJob(dir);
  const TempFolder once("copy-once");
  writeTwoHostJob(once);
  const CheckedCounts counts = countsOf(loadPathLogs(once.str(), {}).jobs.at(0));
  std::filesystem::create_directories(dir.str() + "/again");
  std::filesystem::copy_file(dir.str() + "/" + fileName("48213", kA), dir.str() + "/again/" + fileName("48213", kA));
  const JobPaths job = loadPathLogs(dir.str(), {}).jobs.at(0);
  EXPECT_EQ(countsOf(job).records, counts.records);
  EXPECT_EQ(countsOf(job).closed, counts.closed);
  const std::vector<std::string> got = wheres(job.diagnostics);
  ASSERT_EQ(got.size(), 1u) << ::testing::PrintToString(got);
  EXPECT_NE(got[0].find("again/" + fileName("48213", kA) + ": 4 records repeat those already read from "),
            std::string::npos)
      << got[0];
}

}  // namespace
}  // namespace railtune::analysis::paths
