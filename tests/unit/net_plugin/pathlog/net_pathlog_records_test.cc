// Path log records (formats/path_log.h): the writer's rendering against the golden
// example in docs/formats/, the reader on that same file (architecture rule 6), and the reader's
// errors on malformed records against tests/data/golden/path_log/.
// Regenerate both goldens after an intended change:
//   RAILTUNE_UPDATE_GOLDEN=1 ctest --test-dir <build> -R '^unit\.NetPathlogRecords'
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "formats/path_log.h"
#include "tests/support/file_text.h"

namespace railtune::formats::path_log {
namespace {

Identity exampleIdentity() {
  return Identity{"gb300-r01-t05", "48213", 4121};
}

PathRecord connectRecord(uint64_t connection, Direction direction, int rail, int expectedRail) {
  PathRecord r;
  r.kind = RecordKind::Connect;
  r.timeUs = 1764480000000000 + static_cast<int64_t>(connection) * 1000;
  r.connection = connection;
  r.comm = 0x5d3c0f1e2a4b6c7dULL;
  r.rank = 3;
  r.direction = direction;
  r.transport.assign("socket");
  r.streams = 4;
  r.local = LocalEnd{};
  r.local.device = rail;
  r.local.hca.assign("mlx5_" + std::to_string(rail));
  r.local.netdev.assign("ibp" + std::to_string(rail) + "s0");
  r.local.rail = rail;
  r.local.gpu = 3;
  r.remote.host.assign("gb300-r02-t05");
  r.remote.pid = 5230;
  r.remote.device = rail;
  r.remote.hca.assign("mlx5_" + std::to_string(rail));
  r.remote.rail = rail;
  r.remote.rank = 75;
  r.expectedRail = expectedRail;
  r.localDigest = r.remoteDigest = 0x9f2c4e1a7b3d5c60ULL;
  return r;
}

PathRecord trafficRecord(RecordKind kind, uint64_t connection, int64_t timeUs, uint64_t scale) {
  PathRecord r;
  r.kind = kind;
  r.timeUs = timeUs;
  r.connection = connection;
  r.comm = 0x5d3c0f1e2a4b6c7dULL;
  r.rank = 3;
  r.traffic = Traffic{scale * 1048576, scale * 65536, scale * 16, scale, scale * 850};
  return r;
}

// A connection of the verbs transport: its connect record carries the verbs facts (RoCE, two QPs).
PathRecord ibConnectRecord() {
  PathRecord r = connectRecord(4, Direction::Send, 2, 2);
  r.timeUs = 1764480021500000;
  r.transport.assign("ib");
  r.streams = 2;
  r.local.netdev.assign("enp2s0np0");
  r.verbs.present = true;
  r.verbs.port = 1;
  r.verbs.gid.assign("0000:0000:0000:0000:0000:ffff:0a00:0203");
  r.verbs.gidIndex = 3;
  r.verbs.linkLayer.assign("RoCE");
  r.verbs.mtu = 4096;
  r.verbs.qpCount = 2;
  r.verbs.localQpn[0] = 0x1a2, r.verbs.localQpn[1] = 0x1a3;
  r.verbs.remoteQpn[0] = 0x2b4, r.verbs.remoteQpn[1] = 0x2b5;
  return r;
}

// One of each kind and case: a matching send, a cross-rail receive whose peer runs another
// configuration, its traffic, a connection with nothing known about its GPU, a loss notice, and a connection of the
// verbs transport with its close (QPNs, bytes per QP).
std::vector<PathRecord> exampleRecords() {
  std::vector<PathRecord> records;
  records.push_back(connectRecord(1, Direction::Send, 3, 3));
  PathRecord crossRail = connectRecord(2, Direction::Recv, 1, 3);
  crossRail.remoteDigest = 0x1111222233334444ULL;
  crossRail.remote.rank = -1;
  records.push_back(crossRail);
  records.push_back(trafficRecord(RecordKind::Snapshot, 1, 1764480010000000, 100));
  records.push_back(trafficRecord(RecordKind::Snapshot, 2, 1764480010000000, 3));
  PathRecord unknown = connectRecord(3, Direction::Send, 0, -1);
  unknown.comm.reset();
  unknown.rank = -1;
  unknown.local.gpu = -1;
  unknown.local.plane = 1;
  unknown.remote.plane = 1;
  unknown.dropped = 2;
  records.push_back(unknown);
  records.push_back(trafficRecord(RecordKind::Close, 1, 1764480020000000, 250));
  PathRecord notice;
  notice.kind = RecordKind::Dropped;
  notice.timeUs = 1764480021000000;
  notice.dropped = 5;
  records.push_back(notice);
  records.push_back(ibConnectRecord());
  PathRecord ibClose = trafficRecord(RecordKind::Close, 4, 1764480022000000, 40);
  ibClose.traffic.qpCount = 2;
  ibClose.traffic.bytesPerQp[0] = 20 * 1048576 + 20 * 65536;
  ibClose.traffic.bytesPerQp[1] = 20 * 1048576 + 20 * 65536;
  records.push_back(ibClose);
  return records;
}

using railtune::testing::readFile;

void compareGolden(const std::string& path, const std::string& actual) {
  const char* update = std::getenv("RAILTUNE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << path << " is missing; run with RAILTUNE_UPDATE_GOLDEN=1 to create it";
  EXPECT_EQ(readFile(path), actual) << "differs from " << path << " (RAILTUNE_UPDATE_GOLDEN=1 rewrites it)";
}

TEST(NetPathlogRecords, RenderingMatchesTheGoldenExample) {
  std::string text;
  for (const PathRecord& r : exampleRecords()) text += renderRecord(exampleIdentity(), r) + "\n";
  compareGolden(RAILTUNE_PATH_LOG_EXAMPLE, text);
}

TEST(NetPathlogRecords, ReaderReadsTheGoldenExampleBackExactly) {
  const ParseAllResult all = parseRecords(readFile(RAILTUNE_PATH_LOG_EXAMPLE), "path-log.example.jsonl");
  ASSERT_EQ(all.error, "");
  const std::vector<PathRecord> expected = exampleRecords();
  ASSERT_EQ(all.records.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const ParsedRecord& got = all.records[i];
    EXPECT_EQ(got.identity.job, "48213");
    EXPECT_EQ(got.identity.host, "gb300-r01-t05");
    EXPECT_EQ(got.identity.pid, 4121);
    EXPECT_EQ(renderRecord(got.identity, got.record), renderRecord(exampleIdentity(), expected[i])) << "record " << i;
  }
  const PathRecord& crossRail = all.records[1].record;
  EXPECT_EQ(crossRail.kind, RecordKind::Connect);
  EXPECT_EQ(crossRail.direction, Direction::Recv);
  EXPECT_EQ(crossRail.expectedRail, 3);
  EXPECT_EQ(crossRail.local.rail, 1);
  EXPECT_NE(crossRail.localDigest, crossRail.remoteDigest);
  EXPECT_EQ(all.records[5].record.traffic.bytesSent, 250u * 1048576u);
  EXPECT_EQ(all.records[5].record.traffic.qpCount, 0);
  EXPECT_FALSE(all.records[0].record.verbs.present);
  EXPECT_TRUE(all.records[7].record.verbs == expected[7].verbs);
  EXPECT_TRUE(all.records[8].record.traffic == expected[8].traffic);
}

TEST(NetPathlogRecords, UnknownValuesAreNullOrLeftOut) {
  const std::string line = renderRecord(exampleIdentity(), exampleRecords()[4]);
  EXPECT_NE(line.find("\"expected_rail\":null"), std::string::npos) << line;
  EXPECT_NE(line.find("\"rail_match\":null"), std::string::npos) << line;
  EXPECT_EQ(line.find("\"comm\""), std::string::npos) << line;
  EXPECT_EQ(line.find("\"rank\":-1"), std::string::npos) << line;  // the writer's rank: omitted
  EXPECT_NE(line.find("\"dropped\":2"), std::string::npos) << line;
}

TEST(NetPathlogRecords, ReaderErrorsNameFileLineAndField) {
  const std::string text = readFile(std::string(RAILTUNE_PATH_LOG_GOLDEN) + "/malformed.jsonl");
  ASSERT_FALSE(text.empty());
  std::string errors;
  int lineNumber = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const ParseResult one = parseRecord(line, "malformed.jsonl", ++lineNumber);
    EXPECT_FALSE(one.parsed.has_value()) << "line " << lineNumber << " was accepted";
    errors += one.error + "\n";
  }
  compareGolden(std::string(RAILTUNE_PATH_LOG_GOLDEN) + "/malformed.errors.txt", errors);
}

TEST(NetPathlogRecords, PeerHeaderBecomesTheRemoteEnd) {
  HandshakeHeader peer;
  peer.host = "gb300-r02-t05";
  peer.pid = 5230;
  peer.device = 1;
  peer.hca = "mlx5_1";
  peer.rail = 1;
  peer.plane = 0;
  peer.rank = 75;
  peer.digest = 0x1111222233334444ULL;
  PathRecord connect;
  describePeer(peer, 0x9f2c4e1a7b3d5c60ULL, &connect);
  EXPECT_EQ(connect.remote.host.view(), "gb300-r02-t05");
  EXPECT_EQ(connect.remote.pid, 5230);
  EXPECT_EQ(connect.remote.device, 1);
  EXPECT_EQ(connect.remote.hca.view(), "mlx5_1");
  EXPECT_EQ(connect.remote.rail, 1);
  EXPECT_EQ(connect.remote.plane, 0);
  EXPECT_EQ(connect.remote.rank, 75);
  EXPECT_EQ(connect.localDigest, 0x9f2c4e1a7b3d5c60ULL);
  EXPECT_EQ(connect.remoteDigest, 0x1111222233334444ULL);
  const std::string line = renderRecord(exampleIdentity(), connect);
  EXPECT_NE(line.find("\"match\":false"), std::string::npos) << line;
}

TEST(NetPathlogRecords, ParseAllStopsAtTheFirstBadLine) {
  const std::string good = renderRecord(exampleIdentity(), exampleRecords()[0]);
  const ParseAllResult all = parseRecords(good + "\n" + good + "\n{\"schema\":1}\n", "f.jsonl");
  EXPECT_EQ(all.records.size(), 2u);
  EXPECT_EQ(all.error, "f.jsonl:3:1: field 'schema': expected a string");
}

}  // namespace
}  // namespace railtune::formats::path_log
