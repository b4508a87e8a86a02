// The profiler's JSONL formats (formats/profile_logs.h): rendering against the golden
// examples in docs/formats/, the strict readers on those same files (architecture rule 6), the
// readers' errors on malformed lines against tests/data/golden/profile/, and nccl-tests' bandwidth
// formulas (formats/profile_record.h).
// Regenerate the goldens after an intended change:
//   RAILTUNE_UPDATE_GOLDEN=1 ctest --test-dir <build> -R '^unit\.ProfilerOutput'
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "profiler_plugin/profile_format.h"
#include "tests/unit/profiler_plugin/output/profiler_output_examples.h"
#include "tests/unit/profiler_plugin/output/profiler_output_golden.h"

namespace railtune::profiler::output {
namespace {

using railtune::profiler::testing::compareGolden;
using railtune::profiler::testing::exampleIdentity;
using railtune::profiler::testing::exampleLost;
using railtune::profiler::testing::exampleRecords;
using railtune::profiler::testing::exampleV7Records;
using railtune::profiler::testing::readFile;

const std::string kCollectivesExample = std::string(RAILTUNE_FORMATS_DIR) + "/profile-collectives.example.jsonl";
constexpr const char* kExampleBootId = "3f2a9c4e-7b1d-4e8a-9c55-0d6b2f8e1a47";
const std::string kNetExample = std::string(RAILTUNE_FORMATS_DIR) + "/profile-net.example.jsonl";

// The writer's header, the example records, a capture's loss notice, and the writer's own loss.
std::string collectivesText() {
  std::string text;
  appendHeaderLine(&text, exampleIdentity(), 1764479990000000000, kExampleBootId);
  text += "\n";
  for (const OperationRecord& r : exampleRecords()) text += renderCollectiveLine(exampleIdentity(), r) + "\n";
  for (const OperationRecord& r : exampleV7Records()) text += renderCollectiveLine(exampleIdentity(), r) + "\n";
  text += renderCollectiveLine(exampleIdentity(), exampleLost()) + "\n";
  return text + renderDroppedLine(exampleIdentity(), 1764480400000000000, 5) + "\n";
}

std::string netText() {
  std::string text;
  for (const OperationRecord& r : exampleRecords()) {
    if (r.kind != RecordKind::Hang && r.nFlows > 0) text += renderNetLine(exampleIdentity(), r) + "\n";
  }
  return text;
}

TEST(ProfilerOutputRecords, CollectiveLogMatchesTheGoldenExample) {
  compareGolden(kCollectivesExample, collectivesText());
}

TEST(ProfilerOutputRecords, NetSummaryMatchesTheGoldenExample) {
  compareGolden(kNetExample, netText());
}

TEST(ProfilerOutputRecords, ReaderReadsTheCollectiveExampleBackExactly) {
  const CollectiveParseResult parsed = parseCollectiveRecords(readFile(kCollectivesExample), "example");
  ASSERT_EQ(parsed.error, "");
  std::vector<OperationRecord> expected = exampleRecords();
  for (const OperationRecord& r : exampleV7Records()) expected.push_back(r);
  ASSERT_EQ(parsed.records.size(), expected.size() + 2);
  ASSERT_EQ(parsed.headers.size(), 1u);
  const ParsedCollective& header = parsed.headers[0];
  EXPECT_TRUE(header.header);
  EXPECT_FALSE(header.droppedNotice);
  EXPECT_EQ(header.identity.pid, 4121);
  EXPECT_EQ(header.record.start.realtimeNs, 1764479990000000000);
  EXPECT_EQ(header.bootId, kExampleBootId);
  std::string rendered;
  appendHeaderLine(&rendered, header.identity, header.record.start.realtimeNs, header.bootId);
  EXPECT_EQ(rendered + "\n", readFile(kCollectivesExample).substr(0, rendered.size() + 1));
  const std::vector<ParsedCollective>& all = parsed.records;
  for (size_t i = 0; i < expected.size(); ++i) {
    const ParsedCollective& got = all[i];
    EXPECT_EQ(got.identity.job, "48213");
    EXPECT_EQ(got.identity.host, "gb300-r01-t05");
    EXPECT_EQ(got.identity.pid, 4121);
    EXPECT_FALSE(got.droppedNotice);
    EXPECT_FALSE(got.header);
    EXPECT_EQ(got.recordsDropped, 0u);
    EXPECT_EQ(renderCollectiveLine(got.identity, got.record), renderCollectiveLine(exampleIdentity(), expected[i]))
        << "record " << i;
  }
  EXPECT_EQ(all[0].record.comm, 0x5d3c0f1e2a4b6c7dULL);
  EXPECT_EQ(all[0].record.timing, TimingSource::Kernel);
  EXPECT_FALSE(all[3].record.comm.has_value());
  EXPECT_EQ(all[1].record.closedBy, CloseReason::Overtaken);
  EXPECT_EQ(all[4].record.flows[0].outstanding, 2u);
  // Profiler v7's fields come back exactly, the tag's largest value included.
  EXPECT_EQ(all[5].record.userTag, 2u);
  EXPECT_EQ(all[5].record.path, OperationPath::Symmetric);
  EXPECT_EQ(all[5].record.kernelVariant.view(), "AGxLL_R");
  EXPECT_EQ(all[5].record.phases.longestNs[1], 24000u);
  EXPECT_EQ(all[6].record.userTag, UINT64_MAX);
  EXPECT_TRUE(all[6].record.phases.incomplete);
  EXPECT_FALSE(all[0].record.userTag.has_value());  // v1..v6 records carry none
  const ParsedCollective& lost = all[expected.size()];
  EXPECT_TRUE(lost.droppedNotice);
  EXPECT_EQ(lost.record.kind, RecordKind::Lost);
  EXPECT_EQ(lost.operationsDropped, 2u);
  EXPECT_EQ(lost.eventsDropped, 40u);
  EXPECT_EQ(lost.recordsDropped, 0u);
  EXPECT_EQ(lost.record.comm, 0x5d3c0f1e2a4b6c7dULL);
  EXPECT_EQ(lost.record.rank, 3);
  EXPECT_EQ(lost.record.start.realtimeNs, 1764480300000000000);
  EXPECT_EQ(renderDroppedLine(lost.identity, droppedNoticeOf(lost)),
            renderCollectiveLine(exampleIdentity(), exampleLost()));
  EXPECT_TRUE(all[expected.size() + 1].droppedNotice);
  EXPECT_EQ(all[expected.size() + 1].recordsDropped, 5u);
  EXPECT_FALSE(all[expected.size() + 1].record.comm.has_value());
}

// Files written before "closed_by" and "dropped" lines: records_dropped on any line, no closed_by.
TEST(ProfilerOutputRecords, ReaderAcceptsLinesOfEarlierVersions) {
  std::string allReduce = renderCollectiveLine(exampleIdentity(), exampleRecords()[0], 3);
  const size_t at = allReduce.find("\"closed_by\":\"events\",");
  ASSERT_NE(at, std::string::npos) << allReduce;
  allReduce.erase(at, std::string("\"closed_by\":\"events\",").size());
  const CollectiveLineResult old = parseCollectiveLine(allReduce, "old.jsonl", 1);
  ASSERT_EQ(old.error, "");
  EXPECT_EQ(old.parsed->record.closedBy, CloseReason::Events);
  EXPECT_EQ(old.parsed->recordsDropped, 3u);
  const std::string hang = renderCollectiveLine(exampleIdentity(), exampleRecords()[4], 7);
  EXPECT_EQ(parseCollectiveLine(hang, "old.jsonl", 1).parsed->recordsDropped, 7u);
}

// The header of a file written again after the one before was removed (docs/profiler.md, "Nothing
// unaccounted"): its counts and reason read back and render again to the same bytes; a reason without a
// count, or a count of 0, is refused.
TEST(ProfilerOutputRecords, AHeaderAfterARemovedFileCountsWhatItHeld) {
  DroppedNotice lost;
  lost.records = 212;
  lost.operations = 3;
  std::string line;
  appendHeaderLine(&line, exampleIdentity(), 1764479990000000000, kExampleBootId, lost,
                   "the file was removed while the job ran");
  const CollectiveLineResult read = parseCollectiveLine(line, "again.jsonl", 1);
  ASSERT_TRUE(read.parsed) << read.error;
  EXPECT_TRUE(read.parsed->header);
  EXPECT_EQ(read.parsed->recordsDropped, 212u);
  EXPECT_EQ(read.parsed->operationsDropped, 3u);
  EXPECT_EQ(read.parsed->eventsDropped, 0u);
  EXPECT_EQ(read.parsed->droppedReason, "the file was removed while the job ran");
  std::string again;
  appendHeaderLine(&again, read.parsed->identity, read.parsed->record.start.realtimeNs, read.parsed->bootId,
                   droppedNoticeOf(*read.parsed), read.parsed->droppedReason);
  EXPECT_EQ(again, line);
  std::string plain;
  appendHeaderLine(&plain, exampleIdentity(), 1764479990000000000, kExampleBootId);
  EXPECT_EQ(plain.find("dropped"), std::string::npos) << "an ordinary header says no loss: " << plain;
  std::string reasonAlone = plain;
  reasonAlone.insert(1, "\"dropped_reason\":\"x\",");
  EXPECT_FALSE(parseCollectiveLine(reasonAlone, "a.jsonl", 1).parsed) << reasonAlone;
  std::string zero = line;
  const std::string count = "\"records_dropped\":212";
  zero.replace(zero.find(count), count.size(), "\"records_dropped\":0");
  const CollectiveLineResult refused = parseCollectiveLine(zero, "b.jsonl", 1);
  EXPECT_FALSE(refused.parsed);
  EXPECT_NE(refused.error.find("records_dropped"), std::string::npos) << refused.error;
}

TEST(ProfilerOutputRecords, ClosedByIsOnCompletedLinesOnly) {
  for (const CloseReason reason : {CloseReason::Events, CloseReason::Enqueued, CloseReason::Overtaken, CloseReason::Age,
                                   CloseReason::Evicted, CloseReason::Finalize}) {
    OperationRecord r = exampleRecords()[2];
    r.closedBy = reason;
    const std::string line = renderCollectiveLine(exampleIdentity(), r);
    EXPECT_NE(line.find(std::string("\"closed_by\":\"") + closeReasonName(reason) + "\""), std::string::npos);
    EXPECT_EQ(parseCollectiveLine(line, "f", 1).parsed->record.closedBy, reason);
  }
  std::string bad = renderCollectiveLine(exampleIdentity(), exampleRecords()[0]);
  bad.replace(bad.find("\"events\""), 8, "\"later\"");
  EXPECT_EQ(parseCollectiveLine(bad, "f", 1).error,
            "f:1:1: field 'closed_by': expected events, enqueued, overtaken, age, evicted or finalize");
  const std::string hang = renderCollectiveLine(exampleIdentity(), exampleRecords()[4]);
  EXPECT_EQ(hang.find("closed_by"), std::string::npos);
  std::string hangClosed = hang;
  hangClosed.insert(1, "\"closed_by\":\"age\",");
  EXPECT_EQ(parseCollectiveLine(hangClosed, "f", 1).error, "f:1:1: field 'closed_by': unknown field");
}

TEST(ProfilerOutputRecords, DroppedLinesWriteOnlyTheirCounts) {
  DroppedNotice notice;
  notice.realtimeNs = 12;
  notice.events = 9;
  EXPECT_EQ(renderDroppedLine(Identity{"h", "j", 1}, notice),
            "{\"events_dropped\":9,\"host\":\"h\",\"job\":\"j\",\"pid\":1,\"record\":\"dropped\","
            "\"schema\":\"railtune.profile.collectives.v1\",\"time_realtime_ns\":12}");
  const CollectiveLineResult read = parseCollectiveLine(renderDroppedLine(Identity{"h", "j", 1}, notice), "f", 1);
  ASSERT_EQ(read.error, "");
  EXPECT_EQ(read.parsed->eventsDropped, 9u);
  EXPECT_EQ(read.parsed->record.eventsDropped, 9u);
  const std::string zero =
      "{\"host\":\"h\",\"job\":\"j\",\"operations_dropped\":0,\"pid\":1,\"record\":\"dropped\","
      "\"schema\":\"railtune.profile.collectives.v1\",\"time_realtime_ns\":12}";
  EXPECT_EQ(parseCollectiveLine(zero, "f", 1).error, "f:1:1: field 'operations_dropped': written only when > 0");
}

TEST(ProfilerOutputRecords, ReaderReadsTheNetExampleBackExactly) {
  const NetParseResult all = parseNetRecords(readFile(kNetExample), "example");
  ASSERT_EQ(all.error, "");
  ASSERT_EQ(all.records.size(), 3u);
  std::vector<OperationRecord> expected;
  for (const OperationRecord& r : exampleRecords()) {
    if (r.kind != RecordKind::Hang && r.nFlows > 0) expected.push_back(r);
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(renderNetLine(all.records[i].identity, all.records[i].record),
              renderNetLine(exampleIdentity(), expected[i]));
  }
  const NetFlow& twoPlane = all.records[2].record.flows[0];
  EXPECT_EQ(twoPlane.hca.view(), "mlx5_1");
  EXPECT_EQ(twoPlane.plane, 1);
  EXPECT_EQ(all.records[1].record.flows[0].device, -1) << "nic null: unknown";
}

TEST(ProfilerOutputRecords, DerivedFieldsAreWrittenAsComputed) {
  const OperationRecord allReduce = exampleRecords()[0];
  const std::string line = renderCollectiveLine(exampleIdentity(), allReduce, 0);
  EXPECT_NE(line.find("\"duration_us\":5123.456"), std::string::npos) << line;
  EXPECT_NE(line.find("\"algbw_gbps\":209.574"), std::string::npos) << line;  // 2^30 B / 5123456 ns
  EXPECT_NE(line.find("\"busbw_gbps\":416.237"), std::string::npos) << line;  // x 2 * 143 / 144
  EXPECT_EQ(line.find("records_dropped"), std::string::npos) << line;
  EXPECT_NE(line.find("\"closed_by\":\"events\""), std::string::npos) << line;
  EXPECT_EQ(line.find("\"peer\""), std::string::npos) << line;
}

TEST(ProfilerOutputRecords, ReaderErrorsNameFileLineAndField) {
  for (const char* name : {"malformed-collectives", "malformed-net"}) {
    const std::string golden = std::string(RAILTUNE_PROFILE_GOLDEN) + "/" + name;
    const std::string text = readFile(golden + ".jsonl");
    ASSERT_FALSE(text.empty()) << golden;
    std::string errors;
    std::istringstream lines(text);
    int number = 0;
    for (std::string line; std::getline(lines, line);) {
      const std::string file = std::string(name) + ".jsonl";
      const std::string error = std::string(name) == "malformed-net" ? parseNetLine(line, file, ++number).error
                                                                     : parseCollectiveLine(line, file, ++number).error;
      EXPECT_NE(error, "") << "accepted: " << line;
      errors += error + "\n";
    }
    compareGolden(golden + ".errors.txt", errors);
  }
}

TEST(ProfilerOutputRecords, ParseStopsAtTheFirstBadLineWithItsNumber) {
  const std::string good = renderCollectiveLine(exampleIdentity(), exampleRecords()[0], 0);
  const CollectiveParseResult all = parseCollectiveRecords(good + "\n" + good + "\n{\"schema\":1}\n", "f.jsonl");
  EXPECT_EQ(all.records.size(), 2u);
  EXPECT_EQ(all.error, "f.jsonl:3:1: field 'schema': expected a string");
  EXPECT_EQ(parseCollectiveRecords(good.substr(0, 40), "cut.jsonl").error.substr(0, 13), "cut.jsonl:1:4");
}

TEST(ProfilerOutputRecords, DeepNestingIsRefusedBeforeParsing) {
  const std::string hostile(100000, '[');
  EXPECT_EQ(parseNetRecords(hostile, "deep.jsonl").error, "deep.jsonl:1:9: nested too deep");
}

OperationRecord timed(const char* op, int nRanks, uint64_t bytes, int64_t ns) {
  OperationRecord r;
  r.operation.assign(op);
  r.nRanks = nRanks;
  r.bytes = bytes;
  r.start = Timestamp{100, 1000};
  r.end = Timestamp{100 + ns, 1000 + ns};
  return r;
}

TEST(ProfilerOutputRecords, BandwidthFollowsNcclTests) {
  // 8 GB in one second: algbw 8 GB/s; busbw by nccl-tests' factor for 8 ranks.
  constexpr uint64_t kBytes = 8000000000;
  constexpr int64_t kSecond = 1000000000;
  EXPECT_DOUBLE_EQ(algorithmBandwidthGBps(timed("AllReduce", 8, kBytes, kSecond)), 8.0);
  EXPECT_DOUBLE_EQ(busBandwidthGBps(timed("AllReduce", 8, kBytes, kSecond)), 14.0);  // 2 * 7 / 8
  for (const char* op : {"AllGather", "ReduceScatter", "AlltoAll", "AllToAll"}) {
    EXPECT_DOUBLE_EQ(busBandwidthGBps(timed(op, 8, kBytes, kSecond)), 7.0) << op;  // 7 / 8
  }
  for (const char* op : {"Broadcast", "Reduce", "Send", "Recv"}) {
    EXPECT_DOUBLE_EQ(busBandwidthGBps(timed(op, 8, kBytes, kSecond)), 8.0) << op;
  }
  EXPECT_DOUBLE_EQ(busBandwidthGBps(timed("AllReduce", 1, kBytes, kSecond)), 0.0) << "one rank moves nothing";
  EXPECT_DOUBLE_EQ(algorithmBandwidthGBps(timed("AllReduce", 8, kBytes, 0)), 0.0) << "no time: 0, not inf";
  EXPECT_DOUBLE_EQ(algorithmBandwidthGBps(timed("AllReduce", 8, kBytes, -5)), 0.0);
  EXPECT_DOUBLE_EQ(busBandwidthGBps(timed("AllGather", 0, kBytes, kSecond)), 0.0) << "rank count unknown";
}

TEST(ProfilerOutputRecords, TimingSourcesHaveTheirNames) {
  EXPECT_STREQ(timingSourceName(TimingSource::Kernel), "kernel");
  EXPECT_STREQ(timingSourceName(TimingSource::Proxy), "proxy");
  EXPECT_STREQ(timingSourceName(TimingSource::Enqueue), "enqueue");
}

}  // namespace
TEST(ProfilerOutputRecords, HeaderBootIdIsOptionalAndStrict) {
  std::string line;
  appendHeaderLine(&line, exampleIdentity(), 1764479990000000000);
  EXPECT_EQ(line.find("boot_id"), std::string::npos);  // none known: none written
  CollectiveLineResult parsed = parseCollectiveLine(line, "f", 1);
  ASSERT_TRUE(parsed.parsed) << parsed.error;
  EXPECT_EQ(parsed.parsed->bootId, "");
  line.clear();
  appendHeaderLine(&line, exampleIdentity(), 1764479990000000000, kExampleBootId);
  parsed = parseCollectiveLine(line, "f", 1);
  ASSERT_TRUE(parsed.parsed) << parsed.error;
  EXPECT_EQ(parsed.parsed->bootId, kExampleBootId);
  std::string bad = line;
  bad.replace(bad.find("3f2a9c4e"), 8, "3F2A9C4E");
  parsed = parseCollectiveLine(bad, "f", 1);
  EXPECT_FALSE(parsed.parsed);
  EXPECT_NE(parsed.error.find("f:1:1: field 'boot_id': expected a UUID"), std::string::npos) << parsed.error;
  EXPECT_TRUE(isBootId(kExampleBootId));
  EXPECT_FALSE(isBootId("3f2a9c4e7b1d4e8a9c550d6b2f8e1a47"));
}

}  // namespace railtune::profiler::output
