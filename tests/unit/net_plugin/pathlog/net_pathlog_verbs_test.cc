// The verbs facts of ib connections in path log records (formats/path_log.h): the connect record's "verbs" object
// and the traffic records' "bytes_per_qp" read back exactly, records without them rendered as before, and each
// way the strict reader refuses them, naming file, line, column and field.
#include <gtest/gtest.h>

#include <string>

#include "formats/path_log.h"
#include "net_plugin/pathlog/counters.h"

namespace railtune::formats::path_log {
namespace {

Identity verbsIdentity() {
  return Identity{"gb300-r01-t05", "48213", 4121};
}

PathRecord ibConnect(int qps) {
  PathRecord r;
  r.kind = RecordKind::Connect;
  r.timeUs = 1764480000000000;
  r.connection = 9;
  r.rank = 3;
  r.transport.assign("ib");
  r.streams = qps;
  r.local.device = 0;
  r.local.hca.assign("mlx5_0");
  r.local.rail = 0;
  r.remote.host.assign("gb300-r02-t05");
  r.remote.pid = 5230;
  r.remote.hca.assign("mlx5_0");
  r.verbs.present = true;
  r.verbs.port = 1;
  r.verbs.gid.assign("fe80:0000:0000:0000:0c42:a1ff:fe5b:b220");
  r.verbs.gidIndex = 0;
  r.verbs.linkLayer.assign("InfiniBand");
  r.verbs.mtu = 4096;
  r.verbs.qpCount = qps;
  for (int i = 0; i < qps; ++i) {
    r.verbs.localQpn[i] = 0x100u + static_cast<uint32_t>(i);
    r.verbs.remoteQpn[i] = 0xffff00u + static_cast<uint32_t>(i);  // 24-bit QPNs for all 128
  }
  r.verbs.adaptiveRouting = true;
  return r;
}

PathRecord ibClose(int qps) {
  PathRecord r;
  r.kind = RecordKind::Close;
  r.timeUs = 1764480001000000;
  r.connection = 9;
  r.traffic.bytesSent = 1000;
  r.traffic.qpCount = qps;
  for (int i = 0; i < qps; ++i) r.traffic.bytesPerQp[i] = 1000u / static_cast<uint64_t>(qps);
  return r;
}

ParsedRecord roundTrip(const PathRecord& record) {
  const std::string line = renderRecord(verbsIdentity(), record);
  const ParseResult back = parseRecord(line, "v.jsonl", 1);
  EXPECT_TRUE(back.parsed.has_value()) << back.error << "\n" << line;
  return back.parsed.value_or(ParsedRecord{});
}

// The line of a record with one field's text replaced (the record must contain `from`).
std::string edited(const PathRecord& record, const std::string& from, const std::string& to) {
  std::string line = renderRecord(verbsIdentity(), record);
  const size_t at = line.find(from);
  EXPECT_NE(at, std::string::npos) << from << " not in " << line;
  if (at != std::string::npos) line.replace(at, from.size(), to);
  return line;
}

// 129 ones: one more entry than any record may list.
std::string ones129() {
  std::string text = "1";
  for (int i = 1; i <= kMaxQpsRecorded; ++i) text += ",1";
  return text;
}

std::string errorOf(const std::string& line) {
  const ParseResult result = parseRecord(line, "v.jsonl", 7);
  EXPECT_FALSE(result.parsed.has_value()) << line;
  return result.error;
}

TEST(NetPathlogVerbs, ConnectRecordRendersTheVerbsObject) {
  const std::string line = renderRecord(verbsIdentity(), ibConnect(2));
  EXPECT_NE(line.find("\"verbs\":{\"adaptive_routing\":true,\"gid\":\"fe80:0000:0000:0000:0c42:a1ff:fe5b:b220\","
                      "\"gid_index\":0,\"link_layer\":\"InfiniBand\",\"mtu\":4096,\"peer_qps\":[16776960,16776961],"
                      "\"port\":1,\"qps\":[256,257]}"),
            std::string::npos)
      << line;
}

TEST(NetPathlogVerbs, VerbsFactsReadBackExactly) {
  for (int qps : {1, 2, kMaxQpsRecorded}) {
    const PathRecord connect = ibConnect(qps);
    const ParsedRecord back = roundTrip(connect);
    EXPECT_TRUE(back.record.verbs == connect.verbs) << qps;
    EXPECT_EQ(back.record.streams, qps);
    const PathRecord close = ibClose(qps);
    EXPECT_TRUE(roundTrip(close).record.traffic == close.traffic) << qps;
  }
  PathRecord unknownIndex = ibConnect(1);
  unknownIndex.verbs.gidIndex = -1;
  unknownIndex.verbs.linkLayer.assign("RoCE");
  unknownIndex.verbs.mtu = 1024;
  EXPECT_NE(renderRecord(verbsIdentity(), unknownIndex).find("\"gid_index\":null"), std::string::npos);
  EXPECT_TRUE(roundTrip(unknownIndex).record.verbs == unknownIndex.verbs);
}

TEST(NetPathlogVerbs, RecordsWithoutVerbsFactsHaveNoNewKeys) {
  PathRecord connect = ibConnect(2);
  connect.verbs = VerbsFacts{};
  const std::string line = renderRecord(verbsIdentity(), connect);
  EXPECT_EQ(line.find("verbs"), std::string::npos) << line;
  EXPECT_FALSE(roundTrip(connect).record.verbs.present);
  const std::string close = renderRecord(verbsIdentity(), ibClose(0));
  EXPECT_EQ(close.find("bytes_per_qp"), std::string::npos) << close;
}

TEST(NetPathlogVerbs, StrictReaderRefusesBadVerbsFacts) {
  const PathRecord c = ibConnect(2);
  const std::string at = "v.jsonl:7:1: ";
  EXPECT_EQ(errorOf(edited(c, "\"transport\":\"ib\"", "\"transport\":\"socket\"")),
            at + "field 'verbs': only in the net plugin's records of transport 'ib'");
  EXPECT_EQ(errorOf(edited(c, "\"port\":1,", "\"port\":0,")),
            at + "field 'verbs.port': expected an integer from 1 to 255");
  EXPECT_EQ(errorOf(edited(c, "\"port\":1,", "\"port\":\"1\",")),
            at + "field 'verbs.port': expected an integer from 1 to 255");
  EXPECT_EQ(errorOf(edited(c, "fe80:0000", "fe80::")),
            at + "field 'verbs.gid': expected eight groups of four lowercase hex digits");
  EXPECT_EQ(errorOf(edited(c, "a1ff", "A1FF")),
            at + "field 'verbs.gid': expected eight groups of four lowercase hex digits");
  EXPECT_EQ(errorOf(edited(c, "\"gid_index\":0", "\"gid_index\":-1")),
            at + "field 'verbs.gid_index': expected an integer from 0 to 65536");
  EXPECT_EQ(errorOf(edited(c, "\"InfiniBand\"", "\"Ethernet\"")),
            at + "field 'verbs.link_layer': expected InfiniBand or RoCE");
  EXPECT_EQ(errorOf(edited(c, "\"mtu\":4096", "\"mtu\":1500")),
            at + "field 'verbs.mtu': expected 256, 512, 1024, 2048 or 4096");
  EXPECT_EQ(errorOf(edited(c, "\"mtu\":4096", "\"mtu\":8192")),
            at + "field 'verbs.mtu': expected an integer from 0 to 4096");
  EXPECT_EQ(errorOf(edited(c, "\"qps\":[256,257]", "\"qps\":[256]")),
            at + "field 'verbs.qps': expected one QP per stream (2), got 1");
  EXPECT_EQ(errorOf(edited(c, "\"qps\":[256,257]", "\"qps\":256")),
            at + "field 'verbs.qps': expected an array of 1 to 128 integers");
  EXPECT_EQ(errorOf(edited(c, "\"qps\":[256,257]", "\"qps\":[256,-1]")),
            at + "field 'verbs.qps': element 1: expected an integer from 0 to 16777215");
  EXPECT_EQ(errorOf(edited(c, "\"qps\":[256,257]", "\"qps\":[256,16777216]")),
            at + "field 'verbs.qps': element 1: expected an integer from 0 to 16777215");
  EXPECT_EQ(errorOf(edited(c, "\"peer_qps\":[16776960,16776961]", "\"peer_qps\":[16777200]")),
            at + "field 'verbs.peer_qps': expected as many as 'qps' (2)");
  EXPECT_EQ(errorOf(edited(c, "\"adaptive_routing\":true", "\"adaptive_routing\":1")),
            at + "field 'verbs.adaptive_routing': expected true or false");
  EXPECT_EQ(errorOf(edited(c, "\"adaptive_routing\":true,", "")), at + "field 'verbs.adaptive_routing': missing");
  EXPECT_EQ(errorOf(edited(c, "\"adaptive_routing\":true,", "\"adaptive_routing\":true,\"ar\":true,")),
            at + "field 'verbs.ar': unknown field");
  PathRecord noVerbs = c;
  noVerbs.verbs = VerbsFacts{};
  EXPECT_EQ(errorOf(edited(noVerbs, "\"transport\":\"ib\"", "\"transport\":\"ib\",\"verbs\":7")),
            at + "field 'verbs': expected an object");
}

TEST(NetPathlogVerbs, StrictReaderRefusesVerbsBeyond128QpsOrInImports) {
  PathRecord many = ibConnect(kMaxQpsRecorded);
  many.streams = kMaxQpsRecorded + 1;  // more QPs than a record lists: no verbs facts can agree
  EXPECT_EQ(errorOf(renderRecord(verbsIdentity(), many)),
            "v.jsonl:7:1: field 'verbs.qps': expected one QP per stream (129), got 128");
  const std::string tooMany = edited(ibConnect(kMaxQpsRecorded), "\"qps\":[256", "\"qps\":[1,256");
  EXPECT_EQ(errorOf(tooMany), "v.jsonl:7:1: field 'verbs.qps': expected an array of 1 to 128 integers");
  PathRecord imported = ibConnect(1);
  imported.source = Source::NcclLog;
  imported.nccl.net.assign("IB");
  imported.nccl.channel = 0;
  EXPECT_EQ(errorOf(edited(imported, "\"remote\":", "\"verbs\":{\"port\":1},\"remote\":")),
            "v.jsonl:7:1: field 'verbs': only in the net plugin's records of transport 'ib'");
}

TEST(NetPathlogVerbs, StrictReaderRefusesBadBytesPerQp) {
  const PathRecord c = ibClose(2);
  const std::string at = "v.jsonl:7:1: ";
  EXPECT_EQ(errorOf(edited(c, "\"bytes_per_qp\":[500,500]", "\"bytes_per_qp\":[]")),
            at + "field 'bytes_per_qp': expected an array of 1 to 128 integers");
  EXPECT_EQ(errorOf(edited(c, "\"bytes_per_qp\":[500,500]", "\"bytes_per_qp\":[500,-5]")),
            at + "field 'bytes_per_qp': element 1: expected an integer >= 0");
  EXPECT_EQ(errorOf(edited(c, "\"bytes_per_qp\":[500,500]", "\"bytes_per_qp\":[500,1.5]")),
            at + "field 'bytes_per_qp': element 1: expected an integer >= 0");
  EXPECT_EQ(errorOf(edited(c, "\"bytes_per_qp\":[500,500]", "\"bytes_per_qp\":[" + ones129() + "]")),
            at + "field 'bytes_per_qp': expected an array of 1 to 128 integers");
  PathRecord dropped;
  dropped.kind = RecordKind::Dropped;
  dropped.dropped = 1;
  EXPECT_EQ(errorOf(edited(dropped, "\"dropped\":1", "\"bytes_per_qp\":[1],\"dropped\":1")),
            at + "field 'bytes_per_qp': unknown field");
}

TEST(NetPathlogVerbs, CountersSampleBytesPerQp) {
  net::pathlog::ConnectionCounters counters;
  EXPECT_EQ(counters.sample().qpCount, 0);
  counters.countQpBytes(2, 300);
  counters.countQpBytes(0, 100);
  counters.countQpBytes(0, 50);
  counters.countQpBytes(-1, 7);               // ignored
  counters.countQpBytes(kMaxQpsRecorded, 7);  // ignored
  const Traffic t = counters.sample();
  EXPECT_EQ(t.qpCount, 3);
  EXPECT_EQ(t.bytesPerQp[0], 150u);
  EXPECT_EQ(t.bytesPerQp[1], 0u);
  EXPECT_EQ(t.bytesPerQp[2], 300u);
  EXPECT_EQ(t.bytesSent, 0u);  // the transport counts bytes and messages as before
}

}  // namespace
}  // namespace railtune::formats::path_log
