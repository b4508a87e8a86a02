// The profile logs reader: the fast path against the strict reader on the golden example, and each
// kind of bad input reported "FILE:LINE:COLUMN" and skipped while the rest is read.
#include <gtest/gtest.h>

#include <memory>

#include "analysis/profile/fast_collective.h"
#include "analysis/profile/logs.h"
#include "formats/profile_logs.h"
#include "tests/support/fast_collective_check.h"
#include "tests/support/synthetic_profile_job.h"
#include "tests/unit/analysis/profile/profile_analysis_test_support.h"

namespace railtune::analysis::profile {
namespace {

using railtune::testing::disagreement;
using testing::TempDir;
namespace syn = railtune::testing::synthetic_profile;

// The example's lines but profiler v7's (those with "user_tag"): the fast path leaves v7's keys to the
// strict reader until it reads them.
std::vector<std::string> goldenLines() {
  const std::string text = testing::readText(std::string(RAILTUNE_FORMATS_DIR) + "/profile-collectives.example.jsonl");
  std::vector<std::string> lines;
  for (size_t start = 0, end; start < text.size(); start = end + 1) {
    end = text.find('\n', start);
    std::string line = text.substr(start, end - start);
    if (line.find("\"user_tag\"") == std::string::npos) lines.push_back(std::move(line));
  }
  return lines;
}

// The fields point into the padded copy, which lives as long as the reader's test does.
std::optional<CollectiveFields> fastRead(FastCollectiveReader& reader, const std::string& line) {
  static std::vector<std::unique_ptr<std::string>> copies;
  copies.push_back(std::make_unique<std::string>(line + std::string(FastCollectiveReader::paddingBytes(), '\0')));
  return reader.read(std::string_view(copies.back()->data(), line.size()));
}

TEST(ProfileReader, FastPathTakesTheGoldenCompletedRecordsAndLeavesTheRest) {
  FastCollectiveReader reader;
  int fast = 0;
  for (const std::string& line : goldenLines()) {
    const auto strict = formats::profile::parseCollectiveLine(line, "golden", 1);
    ASSERT_TRUE(strict.parsed) << strict.error;
    const auto fields = fastRead(reader, line);
    const bool completed = !strict.parsed->droppedNotice && !strict.parsed->header &&
                           strict.parsed->record.kind != formats::profile::RecordKind::Hang;
    EXPECT_EQ(fields.has_value(), completed) << line;
    if (!fields) continue;
    ++fast;
    const formats::profile::OperationRecord& r = strict.parsed->record;
    EXPECT_EQ(fields->job, strict.parsed->identity.job);
    EXPECT_EQ(fields->host, strict.parsed->identity.host);
    EXPECT_EQ(fields->pid, strict.parsed->identity.pid);
    EXPECT_EQ(fields->comm, r.comm);
    EXPECT_EQ(fields->rank, r.rank);
    EXPECT_EQ(fields->nRanks, r.nRanks);
    EXPECT_EQ(fields->seq, r.seq);
    EXPECT_EQ(fields->op, r.operation.view());
    EXPECT_EQ(fields->p2p, r.kind == formats::profile::RecordKind::P2p);
    EXPECT_EQ(fields->endMonotonicNs - fields->startMonotonicNs, r.end.monotonicNs - r.start.monotonicNs);
    EXPECT_EQ(fields->endRealtimeNs, r.end.realtimeNs);
  }
  EXPECT_EQ(fast, 4);
}

TEST(ProfileReader, FastPathRejectsWhatTheStrictReaderRejects) {
  FastCollectiveReader reader;
  const std::string good = goldenLines()[1];  // the first completed record, after the header
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string line = good;
    line.replace(line.find(from), from.size(), to);
    return line;
  };
  const std::vector<std::string> bad = {
      good.substr(0, good.size() / 2),                                   // truncated
      good + good,                                                       // two writers interleaved
      replaced("collectives.v1", "collectives.v2"),                      // unknown schema version
      replaced("\"duration_us\":5123.456", "\"duration_us\":5123.457"),  // derived field disagrees
      replaced("\"seq\":17", "\"seq\":17,\"extra\":1"),                  // unknown key
      replaced("\"seq\":17", "\"seq\":-17"),                             // a count below zero
      replaced("\"rank\":3", "\"rank\":3,\"rank\":4"),  // duplicate key (the strict reader refuses it too)
      replaced("\"comm\":\"5d3c0f1e2a4b6c7d\"", "\"comm\":\"5D3C0F1E2A4B6C7D\""),
      replaced("\"rank\":3", "\"rank\":144"),  // not below nranks
  };
  for (const std::string& line : bad) {
    EXPECT_FALSE(fastRead(reader, line)) << line;
  }
}

TEST(ProfileReader, FastPathReadsClosedByAndPeerAndLeavesUnknownReasonsToTheStrictReader) {
  FastCollectiveReader reader;
  std::string line;
  for (const std::string& l : goldenLines())
    if (l.find("\"record\":\"p2p\"") != std::string::npos) line = l;
  ASSERT_NE(line.find("\"closed_by\":\"events\""), std::string::npos) << line;
  line.replace(line.find("\"closed_by\":\"events\""), 20, "\"closed_by\":\"finalize\"");
  const auto fields = fastRead(reader, line);
  ASSERT_TRUE(fields) << line;
  EXPECT_EQ(fields->closedBy, formats::profile::CloseReason::Finalize);
  EXPECT_GE(fields->peer, 0);
  EXPECT_EQ(disagreement(line), "");
  const std::string unknown =
      line.substr(0, line.find("finalize")) + "Finalize" + line.substr(line.find("finalize") + 8);
  EXPECT_FALSE(fastRead(reader, unknown));
  EXPECT_EQ(disagreement(unknown), "");
  const std::string old = line.substr(0, line.find("\"closed_by\"")) + line.substr(line.find("\"comm\""));
  const auto oldFields = fastRead(reader, old);
  ASSERT_TRUE(oldFields) << old;
  EXPECT_EQ(oldFields->closedBy, formats::profile::CloseReason::Events);  // earlier versions: closed by its events
  EXPECT_EQ(disagreement(old), "");
}

TEST(ProfileReader, ReadsTheGoldenExampleWithEveryRecordKind) {
  TempDir dir;
  dir.write("48213-gb300-r01-t05-4121.collectives.jsonl", testing::joinLines(goldenLines()));
  const ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, false, 2, 20});
  EXPECT_EQ(logs.problems.count, 0u) << (logs.problems.first.empty() ? "" : logs.problems.first[0]);
  EXPECT_EQ(logs.collectiveFiles, 1u);
  EXPECT_EQ(logs.samples.size(), 3u);  // AllReduce, AllGather, Broadcast
  EXPECT_EQ(logs.p2pRecords, 1u);
  ASSERT_EQ(logs.hangs.size(), 1u);
  EXPECT_EQ(logs.hangs[0].parsed.record.seq, 42u);
  EXPECT_EQ(logs.droppedNotices, 2u);
  EXPECT_EQ(logs.recordsDropped, 5u);
  // The writer's records of the process, and the operations and events of rank 3's pool.
  ASSERT_EQ(logs.losses.size(), 2u);
  EXPECT_EQ(logs.losses[0].rank, -1);
  EXPECT_EQ(logs.losses[0].recordsDropped, 5u);
  EXPECT_EQ(logs.losses[1].rank, 3);
  EXPECT_EQ(logs.losses[1].operationsDropped, 2u);
  EXPECT_EQ(logs.losses[1].eventsDropped, 42u);  // 40 in the notice, 2 on its AllGather
  EXPECT_EQ(logs.jobs, std::vector<std::string>{"48213"});
}

// A file written again after the one before was removed (docs/profiler.md, "Nothing unaccounted"): its
// header's counts are the process's losses, as a dropped line's.
TEST(ProfileReader, AHeaderAfterARemovedFileCountsItsLosses) {
  std::vector<std::string> lines = goldenLines();
  formats::profile::DroppedNotice lost;
  lost.records = 212;
  const formats::profile::CollectiveLineResult header = formats::profile::parseCollectiveLine(lines[0], "h", 1);
  ASSERT_TRUE(header.parsed) << header.error;
  lines[0].clear();
  formats::profile::appendHeaderLine(&lines[0], header.parsed->identity, header.parsed->record.start.realtimeNs,
                                     header.parsed->bootId, lost, "the file was removed while the job ran");
  TempDir dir;
  dir.write("48213-gb300-r01-t05-4121.collectives.jsonl", testing::joinLines(lines));
  const ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, false, 2, 20});
  EXPECT_EQ(logs.problems.count, 0u) << (logs.problems.first.empty() ? "" : logs.problems.first[0]);
  EXPECT_EQ(logs.recordsDropped, 5u + 212u);
  ASSERT_FALSE(logs.losses.empty());
  EXPECT_EQ(logs.losses[0].rank, -1);
  EXPECT_EQ(logs.losses[0].recordsDropped, 5u + 212u);
}

// The profiler's files now carry the process's start time after the pid
// ("<job>-<host>-<pid>.<start>.collectives.jsonl"); earlier versions' names (the test above) are read
// alike, and the trace beside them is not a log.
TEST(ProfileReader, ReadsTaggedFileNames) {
  TempDir dir;
  dir.write("48213-gb300-r01-t05-4121.1a2b3c_9f0e.collectives.jsonl", testing::joinLines(goldenLines()));
  dir.write("48213-gb300-r01-t05-4121.1a2b3c_9f0e.trace.json", "[\n]\n");
  const ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, false, 2, 20});
  EXPECT_EQ(logs.problems.count, 0u) << (logs.problems.first.empty() ? "" : logs.problems.first[0]);
  EXPECT_EQ(logs.collectiveFiles, 1u);
  EXPECT_EQ(logs.samples.size(), 3u);
  EXPECT_EQ(logs.jobs, std::vector<std::string>{"48213"});
}

TEST(ProfileReader, ReportsEachBadLineWithFileLineAndColumnAndReadsTheRest) {
  syn::JobSpec spec;
  spec.ranks = 2, spec.collectives = 6;
  std::vector<std::string> lines = syn::rankLines(spec, 0);
  lines[1] = lines[1].substr(0, 40);                                        // truncated
  lines[2] = lines[2] + lines[3];                                           // interleaved
  lines[4].replace(lines[4].find("collectives.v1"), 14, "collectives.v2");  // unknown version
  TempDir dir;
  const std::string file = dir.write("sub/a.collectives.jsonl", testing::joinLines(lines) + "{\"schema\":");
  const ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, false, 1, 20});
  ASSERT_EQ(logs.problems.count, 4u);
  EXPECT_EQ(logs.samples.size(), 3u);  // lines 1, 4 and 6 survive
  EXPECT_TRUE(logs.problems.first[0].starts_with(file + ":2:")) << logs.problems.first[0];
  EXPECT_TRUE(logs.problems.first[1].starts_with(file + ":3:")) << logs.problems.first[1];
  EXPECT_NE(logs.problems.first[2].find(file + ":5:1: field 'schema': expected 'railtune.profile.collectives.v1'"),
            std::string::npos)
      << logs.problems.first[2];
  EXPECT_TRUE(logs.problems.first[3].starts_with(file + ":7:")) << logs.problems.first[3];
}

TEST(ProfileReader, KeepsTheFirstMessagesAndCountsTheRest) {
  TempDir dir;
  std::string junk;
  for (int i = 0; i < 30; ++i) junk += "{\"schema\":\"railtune.profile.collectives.v1\"}\n";
  dir.write("junk.collectives.jsonl", junk);
  const ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, false, 2, 20});
  EXPECT_EQ(logs.problems.count, 30u);
  EXPECT_EQ(logs.problems.first.size(), 20u);
  EXPECT_TRUE(logs.samples.empty());
}

TEST(ProfileReader, ClassifiesFilesBySchemaAndPassesOverOthers) {
  TempDir dir;
  dir.write("x.jsonl", "{\"schema\":\"railtune.bindings.v1\"}\n");
  dir.write("y.net.jsonl", testing::readText(std::string(RAILTUNE_FORMATS_DIR) + "/profile-net.example.jsonl"));
  dir.write("notes.txt", "not read\n");
  dir.write("paths/48213-gb300-r01-t05-4121.jsonl",
            testing::readText(std::string(RAILTUNE_FORMATS_DIR) + "/path-log.example.jsonl"));
  ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, false, 2, 20});
  EXPECT_EQ(logs.skippedFiles, 1u);
  EXPECT_EQ(logs.netFiles, 1u);
  EXPECT_EQ(logs.pathLogFiles, 1u);
  EXPECT_TRUE(logs.pathEnds.empty());  // path logs are read only when asked
  EXPECT_EQ(logs.problems.count, 0u);
  logs = readProfileLogs(ReadOptions{{dir.path()}, true, 2, 20});
  EXPECT_FALSE(logs.pathEnds.empty());
  EXPECT_EQ(logs.problems.count, 0u) << (logs.problems.first.empty() ? "" : logs.problems.first[0]);
}

TEST(ProfileReader, SeparatesJobsAndStreams) {
  syn::JobSpec a, b;
  a.job = "a", b.job = "b";
  a.ranks = b.ranks = 4, a.collectives = b.collectives = 3;
  TempDir dir;
  syn::writeJob(a, dir.path(), 2);
  syn::writeJob(b, dir.path(), 2);
  const ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, false, 2, 20});
  EXPECT_EQ(logs.jobs.size(), 2u);
  EXPECT_EQ(logs.streams.size(), 8u);
  EXPECT_EQ(logs.samples.size(), 24u);
  EXPECT_EQ(logs.strictLines, 0u);
}

TEST(ProfileReader, NamesAFolderThatCannotBeListed) {
  EXPECT_THROW(readProfileLogs(ReadOptions{{"/nonexistent/railtune"}, false, 1, 20}), std::runtime_error);
}

}  // namespace
}  // namespace railtune::analysis::profile

namespace railtune::analysis::profile {
namespace {

// A deterministic stand-in for fuzz_profile_logs that runs in every build: thousands of mutations of
// the golden lines (bytes changed, cut, doubled, spliced) must leave the two readers in agreement.
TEST(ProfileReader, FastAndStrictReadersAgreeOnMutatedLines) {
  const std::vector<std::string> lines = goldenLines();
  const std::string alphabet = "0123456789-.eE\"{}[],:\\ atrnuf";
  uint64_t state = 12345;
  auto next = [&state](uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  for (int i = 0; i < 20000; ++i) {
    std::string line = lines[next(lines.size())];
    for (uint64_t edits = 1 + next(3); edits > 0; --edits) {
      const size_t at = next(line.size());
      switch (next(4)) {
        case 0:
          line[at] = alphabet[next(alphabet.size())];
          break;
        case 1:
          line.erase(at, 1 + next(8));
          break;
        case 2:
          line.insert(at, 1, alphabet[next(alphabet.size())]);
          break;
        default:
          line.insert(at, lines[next(lines.size())].substr(0, next(40)));
          break;
      }
      if (line.empty()) line = "{";
    }
    const std::string problem = disagreement(line);
    ASSERT_EQ(problem, "") << line;
  }
}

}  // namespace
}  // namespace railtune::analysis::profile
