// checkPaths (analysis/paths/path_check.h): every finding kind, counted once per connection, and the tables.
#include <gtest/gtest.h>

#include "analysis/paths/path_check.h"

namespace railtune::analysis::paths {
namespace {

ConnectionEnd end(const std::string& host, int pid, int rank, int rail, int gpu) {
  ConnectionEnd e;
  e.host = host;
  e.pid = pid;
  e.rank = rank;
  e.device = rail;
  e.hca = "mlx5_" + std::to_string(rail);
  e.rail = rail;
  e.gpu = gpu;
  return e;
}

// A logical connection from `from` to `to`: the sender's record and the receiver's, paired.
void addPair(JobPaths& job, const ConnectionEnd& from, const ConnectionEnd& to, int fromExpected = -2,
             int toExpected = -2) {
  Connection send, recv;
  send.send = true;
  send.local = from;
  send.remote = to;
  send.remote.gpu = -1;
  send.expectedRail = fromExpected == -2 ? from.gpu : fromExpected;
  send.traffic.bytesSent = 1000;
  recv.send = false;
  recv.local = to;
  recv.remote = from;
  recv.remote.gpu = -1;
  recv.expectedRail = toExpected == -2 ? to.gpu : toExpected;
  recv.traffic.bytesReceived = 1000;
  send.closed = recv.closed = true;  // a job that ended cleanly (findNeverClosed: PathsCheck.NeverClosed...)
  const long index = static_cast<long>(job.connections.size());
  send.source = "s:" + std::to_string(index);
  recv.source = "r:" + std::to_string(index + 1);
  send.peerIndex = index + 1;
  recv.peerIndex = index;
  job.connections.push_back(send);
  job.connections.push_back(recv);
}

JobPaths twoHosts() {
  JobPaths job;
  job.job = "j";
  job.hosts = {"a", "b"};
  return job;
}

std::vector<const Finding*> ofKind(const CheckReport& report, FindingKind kind) {
  std::vector<const Finding*> out;
  for (const Finding& f : report.findings)
    if (f.kind == kind) out.push_back(&f);
  return out;
}

formats::RailMap mapOf(int rails) {
  formats::RailMap map;
  map.rails = rails;
  for (const char* name : {"a", "b"}) {
    formats::RailMapHost host;
    host.name = name;
    for (int g = 0; g < rails; ++g) {
      formats::RailMapGpu gpu;
      gpu.index = g;
      gpu.nics.push_back(formats::RailMapNic{"mlx5_" + std::to_string(g), "", "", 1, g, -1, 0});
      host.gpus.push_back(gpu);
    }
    map.hosts.push_back(host);
  }
  return map;
}

TEST(PathsCheck, CleanJobHasNoFindingAndCountsEachConnectionOnce) {
  JobPaths job = twoHosts();
  for (int g = 0; g < 2; ++g) {
    addPair(job, end("a", 1, g, g, g), end("b", 2, 2 + g, g, g));
    addPair(job, end("b", 2, 2 + g, g, g), end("a", 1, g, g, g));
  }
  const CheckReport report = checkPaths(job, nullptr);
  EXPECT_TRUE(report.findings.empty());
  EXPECT_EQ(report.connections, 4);
  EXPECT_EQ(report.hosts, 2);
  ASSERT_EQ(report.rails.size(), 2u);
  EXPECT_EQ(report.rails[1].rail, 1);
  EXPECT_EQ(report.rails[1].connections, 2);
  EXPECT_EQ(report.rails[1].bytes, 2000u);
  ASSERT_EQ(report.nics.size(), 4u);
  EXPECT_EQ(report.nics[0].host, "a");
  EXPECT_EQ(report.nics[0].hca, "mlx5_0");
  EXPECT_EQ(report.nics[0].connections, 2);
  EXPECT_EQ(report.nics[0].bytesSent, 1000u);
  EXPECT_EQ(report.nics[0].bytesReceived, 1000u);
  EXPECT_EQ(report.violations(), 0);
}

TEST(PathsCheck, MisboundSenderIsOneViolationNamingBothRecords) {
  JobPaths job = twoHosts();
  addPair(job, end("a", 1, 0, 1, 0), end("b", 2, 4, 0, 0));  // GPU 0 (rail 0) sends through mlx5_1
  const CheckReport report = checkPaths(job, nullptr);
  ASSERT_EQ(report.findings.size(), 1u);
  const Finding& f = report.findings[0];
  EXPECT_EQ(f.severity, Severity::Violation);
  EXPECT_EQ(f.kind, FindingKind::CrossRail);
  EXPECT_EQ(f.message,
            "cross-rail: rank 0 on a GPU 0 (rail 0) sends through mlx5_1 (rail 1) to rank 4 on b mlx5_0 (rail 0)");
  EXPECT_EQ(f.connections, (std::vector<long>{0, 1}));
  EXPECT_EQ(f.host, "a");
  EXPECT_EQ(f.peerHost, "b");
  EXPECT_EQ(f.rail, 1);
  EXPECT_EQ(report.violations(), 1);
}

TEST(PathsCheck, MisboundReceiverIsNamedAsTheReceiver) {
  JobPaths job = twoHosts();
  addPair(job, end("a", 1, 0, 0, 0), end("b", 2, 4, 1, 0));
  const CheckReport report = checkPaths(job, nullptr);
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].message,
            "cross-rail: rank 4 on b GPU 0 (rail 0) receives through mlx5_1 (rail 1) from rank 0 on a mlx5_0 (rail 0)");
}

TEST(PathsCheck, EndsOnDifferentRailsCrossTheSpine) {
  JobPaths job = twoHosts();
  addPair(job, end("a", 1, 0, 0, 0), end("b", 2, 5, 1, 1));  // each end on its own GPU's rail
  const CheckReport report = checkPaths(job, nullptr);
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].message,
            "cross-rail: rank 0 on a mlx5_0 (rail 0) sends to rank 5 on b mlx5_1 (rail 1): the two ends are on "
            "different rails, so the traffic crosses the spine");
}

TEST(PathsCheck, RailMapCatchesAWriterWithAStaleMap) {
  JobPaths job = twoHosts();
  ConnectionEnd a = end("a", 1, 0, 0, 1);  // GPU 1 on mlx5_0; the writer's map said rail 0 for GPU 1
  ConnectionEnd b = end("b", 2, 4, 0, 0);
  addPair(job, a, b, 0, 0);
  EXPECT_TRUE(checkPaths(job, nullptr).findings.empty());
  const formats::RailMap map = mapOf(2);
  const CheckReport report = checkPaths(job, &map);
  const auto cross = ofKind(report, FindingKind::CrossRail);
  ASSERT_EQ(cross.size(), 1u);
  EXPECT_EQ(cross[0]->message,
            "cross-rail: rank 0 on a GPU 1 (rail 1) sends through mlx5_0 (rail 0) to rank 4 on b mlx5_0 (rail 0) "
            "(rails from the rail map given; the writer's own record did not flag it)");
}

TEST(PathsCheck, DigestMismatchIsAViolation) {
  JobPaths job = twoHosts();
  addPair(job, end("a", 1, 0, 0, 0), end("b", 2, 4, 0, 0));
  job.connections[0].localDigest = 0x1111;
  job.connections[0].remoteDigest = 0x2222;
  job.connections[1].localDigest = 0x2222;
  job.connections[1].remoteDigest = 0x1111;
  const CheckReport report = checkPaths(job, nullptr);
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].kind, FindingKind::DigestMismatch);
  EXPECT_EQ(report.findings[0].message,
            "digest mismatch: rank 0 on a (configuration 0000000000001111) and rank 4 on b (configuration "
            "0000000000002222) were started with different rules, rail map or environment");
  EXPECT_EQ(report.violations(), 1);
}

TEST(PathsCheck, AsymmetricRailsAreANoteOnlyWhereBothDirectionsTalk) {
  JobPaths job = twoHosts();
  job.hosts.push_back("c");
  addPair(job, end("a", 1, 0, 0, 0), end("b", 2, 4, 0, 0));
  addPair(job, end("a", 1, 0, 0, 0), end("b", 2, 4, 0, 0));
  addPair(job, end("b", 2, 4, 0, 0), end("a", 1, 0, 0, 0));
  addPair(job, end("a", 1, 0, 0, 0), end("c", 3, 8, 0, 0));  // one way only: a ring's neighbour
  const CheckReport report = checkPaths(job, nullptr);
  ASSERT_EQ(report.findings.size(), 1u);
  const Finding& f = report.findings[0];
  EXPECT_EQ(f.severity, Severity::Note);
  EXPECT_EQ(f.kind, FindingKind::AsymmetricRails);
  EXPECT_EQ(f.message,
            "asymmetric rails: a -> b uses rail 0 for 2 connections, b -> a for 1 connection (tree algorithms are "
            "asymmetric in small jobs, so this is a note)");
  EXPECT_EQ(f.connections, (std::vector<long>{0, 2, 4}));
  EXPECT_EQ(report.violations(), 0);
}

TEST(PathsCheck, UnusedRailsFromTheMapOrBelowTheHighestSeen) {
  JobPaths job = twoHosts();
  addPair(job, end("a", 1, 0, 0, 0), end("b", 2, 4, 0, 0));
  addPair(job, end("a", 1, 2, 2, 2), end("b", 2, 6, 2, 2));
  const CheckReport plain = checkPaths(job, nullptr);
  const auto without = ofKind(plain, FindingKind::UnusedRail);
  ASSERT_EQ(without.size(), 1u);
  EXPECT_EQ(without[0]->rail, 1);
  EXPECT_EQ(without[0]->message,
            "unused rail: rail 1 (below the highest rail seen (rail 2)) carried no connection in this job");
  const formats::RailMap map = mapOf(4);
  const CheckReport mapped = checkPaths(job, &map);
  const auto with = ofKind(mapped, FindingKind::UnusedRail);
  ASSERT_EQ(with.size(), 2u);
  EXPECT_EQ(with[1]->rail, 3);
  EXPECT_EQ(with[1]->severity, Severity::Note);
}

TEST(PathsCheck, MissingHostIsANote) {
  JobPaths job = twoHosts();
  job.hosts = {"a"};
  Connection send;
  send.local = end("a", 1, 0, 0, 0);
  send.remote = end("b", 2, 4, 0, -1);
  send.expectedRail = 0;
  send.closed = true;  // a finished job: the only note is the missing host
  job.connections.push_back(send);
  const CheckReport report = checkPaths(job, nullptr);
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].kind, FindingKind::MissingHost);
  EXPECT_EQ(report.findings[0].host, "b");
  EXPECT_EQ(report.findings[0].message,
            "missing host: b wrote no path log for this job, though 1 connection names it as its peer (its end is "
            "unchecked)");
  EXPECT_EQ(report.connections, 1);
}

TEST(PathsCheck, ViolationsComeFirst) {
  JobPaths job = twoHosts();
  job.hosts = {"a"};
  addPair(job, end("a", 1, 0, 0, 0), end("b", 2, 4, 0, 0));
  job.connections.pop_back();
  job.connections[0].peerIndex = -1;
  addPair(job, end("a", 1, 0, 1, 0), end("a", 1, 1, 1, 1));
  const CheckReport report = checkPaths(job, nullptr);
  ASSERT_GE(report.findings.size(), 2u);
  EXPECT_EQ(report.findings[0].severity, Severity::Violation);
  EXPECT_EQ(report.findings.back().severity, Severity::Note);
}

// A killed job: connect records only, no close. Each process is named once with the connections it
// left open and the time of its last record; a process whose connections all closed is not named.
TEST(PathsCheck, NeverClosedConnectionsNameTheProcessAndWhenItWasLastHeardOf) {
  JobPaths job = twoHosts();
  addPair(job, end("a", 1, 0, 0, 0), end("b", 2, 2, 0, 0));
  addPair(job, end("b", 2, 2, 1, 1), end("a", 1, 1, 1, 1));
  for (size_t i = 0; i < job.connections.size(); ++i) job.connections[i].lastTimeUs = 1764480000000000 + 1000 * i;
  // b's two records (indexes 1 and 2) never closed; b was last heard of at index 2's time.
  job.connections[1].closed = job.connections[2].closed = false;
  job.connections[1].traffic = job.connections[2].traffic = ConnectionTraffic{};
  job.connections[3].lastTimeUs = 1764480002500000;  // a's last record, 2.498 s after b's
  const CheckReport report = checkPaths(job, nullptr);
  const auto notes = ofKind(report, FindingKind::NeverClosed);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0]->severity, Severity::Note);
  EXPECT_EQ(notes[0]->host, "b");
  EXPECT_EQ(notes[0]->connections, (std::vector<long>{1, 2}));
  EXPECT_EQ(
      notes[0]->message,
      "never closed: pid 2 on b left 2 of its 2 connection ends without a close record (first at r:1); last heard "
      "of at 2025-11-30T05:20:00.002Z, 2.498 s before the job's last record: killed, or still running when "
      "the logs were collected");
  ASSERT_EQ(report.unclosed.size(), 1u);
  EXPECT_EQ(report.unclosed[0].host, "b");
  EXPECT_EQ(report.unclosed[0].pid, 2);
  EXPECT_EQ(report.unclosed[0].open, 2);
  EXPECT_EQ(report.unclosed[0].connections, 2);
  EXPECT_EQ(report.unclosed[0].lastHeardUs, 1764480000002000);
  EXPECT_EQ(report.violations(), 0);
}

TEST(PathsCheck, AJobThatClosedEverythingHasNoNeverClosedNote) {
  JobPaths job = twoHosts();
  addPair(job, end("a", 1, 0, 0, 0), end("b", 2, 2, 0, 0));
  const CheckReport report = checkPaths(job, nullptr);
  EXPECT_TRUE(ofKind(report, FindingKind::NeverClosed).empty());
  EXPECT_TRUE(report.unclosed.empty());
}

}  // namespace
}  // namespace railtune::analysis::paths

namespace railtune::analysis::paths {
namespace {

// No rail known anywhere (an NCCL log that names no rails, no rail map): nothing was checked, which is not a clean
// pass. The report says how many connections were not checked, and the table says "rails unknown".
TEST(PathsCheck, NoRailKnownIsRailsUnknownNotClean) {
  JobPaths job = twoHosts();
  ConnectionEnd a = end("a", 1, 0, 0, 0), b = end("b", 2, 1, 0, 0);
  a.rail = b.rail = -1;
  addPair(job, a, b, -1, -1);
  addPair(job, b, a, -1, -1);
  const CheckReport report = checkPaths(job, nullptr);
  EXPECT_EQ(report.connections, 2);
  EXPECT_EQ(report.connectionEnds, 4);
  EXPECT_EQ(report.railsUnchecked, 2);
  EXPECT_TRUE(report.railsUnknown());
  EXPECT_EQ(report.violations(), 0);
}

// One connection's rails known, the other's not: "rails unknown: 1 of 2 connections not checked".
TEST(PathsCheck, PartlyKnownRailsCountWhatWasNotChecked) {
  JobPaths job = twoHosts();
  addPair(job, end("a", 1, 0, 0, 0), end("b", 2, 1, 0, 0));
  ConnectionEnd a = end("a", 1, 0, 1, 1), b = end("b", 2, 1, 1, 1);
  a.rail = b.rail = -1;
  addPair(job, b, a, -1, -1);
  const CheckReport report = checkPaths(job, nullptr);
  EXPECT_EQ(report.railsUnchecked, 1);
  EXPECT_FALSE(report.railsUnknown());
}

// Both ends' rails known but no GPU rail (records of a writer without a rail map): the ends agree, so the
// connection was checked (it did not cross the spine).
TEST(PathsCheck, BothEndsRailsKnownIsChecked) {
  JobPaths job = twoHosts();
  addPair(job, end("a", 1, 0, 0, 0), end("b", 2, 1, 0, 0), -1, -1);
  EXPECT_EQ(checkPaths(job, nullptr).railsUnchecked, 0);
}

// A rail map gives the rails the records did not: checked.
TEST(PathsCheck, RailMapChecksWhatTheRecordsLeftUnknown) {
  JobPaths job = twoHosts();
  ConnectionEnd a = end("a", 1, 0, 0, 0), b = end("b", 2, 1, 0, 0);
  a.rail = b.rail = -1;
  addPair(job, a, b, -1, -1);
  const formats::RailMap map = mapOf(2);
  EXPECT_EQ(checkPaths(job, &map).railsUnchecked, 0);
}

// NICs and hosts in natural order: mlx5_2 before mlx5_11, host r2 before r10.
TEST(PathsCheck, NicTableIsInNaturalOrder) {
  JobPaths job;
  job.job = "j";
  job.hosts = {"r2", "r10"};
  for (int nic : {11, 2, 1}) {
    ConnectionEnd from = end("r10", 1, 0, 0, 0), to = end("r2", 2, 1, 0, 0);
    from.hca = to.hca = "mlx5_" + std::to_string(nic);
    addPair(job, from, to);
  }
  const CheckReport report = checkPaths(job, nullptr);
  std::vector<std::string> order;
  for (const NicUse& n : report.nics) order.push_back(n.host + " " + n.hca);
  EXPECT_EQ(order, (std::vector<std::string>{"r2 mlx5_1", "r2 mlx5_2", "r2 mlx5_11", "r10 mlx5_1", "r10 mlx5_2",
                                             "r10 mlx5_11"}));
}

// One rail, two planes: a violation of its own kind, naming both planes; a single-plane end (-1) is not compared.
TEST(PathsCheck, EndsOnDifferentPlanesOfOneRailAreCrossPlane) {
  JobPaths job = twoHosts();
  ConnectionEnd a = end("a", 1, 0, 0, 0), b = end("b", 2, 1, 0, 0);
  a.plane = 0;
  b.plane = 1;
  addPair(job, a, b);
  b.plane = -1;
  addPair(job, a, b);
  const CheckReport report = checkPaths(job, nullptr);
  ASSERT_EQ(ofKind(report, FindingKind::CrossPlane).size(), 1u);
  EXPECT_EQ(report.violations(), 1);
  EXPECT_NE(report.findings[0].message.find("plane 0 sends to rank 1 on b mlx5_0 (rail 0) plane 1"), std::string::npos)
      << report.findings[0].message;
}

// Records that name no rail (a writer without a rail map), both ends bound as the map says but on different rails:
// the map's rails of the two NICs show the traffic crossing the spine.
TEST(PathsCheck, RailMapGivesTheRailsOfEndsTheRecordsLeftUnknown) {
  JobPaths job = twoHosts();
  ConnectionEnd a = end("a", 1, 0, 0, 0), b = end("b", 2, 1, 1, 1);
  a.rail = b.rail = -1;
  addPair(job, a, b, -1, -1);
  const formats::RailMap map = mapOf(2);
  const CheckReport report = checkPaths(job, &map);
  ASSERT_EQ(report.violations(), 1);
  EXPECT_EQ(report.railsUnchecked, 0);
  EXPECT_NE(report.findings[0].message.find("(rail 0) sends to rank 1 on b mlx5_1 (rail 1)"), std::string::npos)
      << report.findings[0].message;
}

}  // namespace
}  // namespace railtune::analysis::paths
