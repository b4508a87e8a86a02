// Profiler v7 in the analyses: the collective log's user_tag, kernel_variant, sym_coll, path and phases read
// strictly (and by the fast reader exactly as strictly), `profile stragglers` grouping by user tag and path
// and naming late arrival or slow compute from the kernel phases (never without them), `profile hangs`
// naming the stuck collective's tag, and --tag-names.
#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "analysis/profile/fast_collective.h"
#include "analysis/profile/hangs.h"
#include "analysis/profile/hangs_render.h"
#include "analysis/profile/stragglers.h"
#include "analysis/profile/stragglers_render.h"
#include "analysis/profile/tag_groups.h"
#include "formats/profile_logs.h"
#include "tests/support/fast_collective_check.h"
#include "tests/support/synthetic_profile_job.h"
#include "tests/unit/analysis/profile/profile_analysis_lines.h"
#include "tests/unit/analysis/profile/profile_analysis_test_support.h"

namespace railtune::analysis::profile::v7_test {
namespace {

namespace pl = formats::profile;
namespace syn = railtune::testing::synthetic_profile;
namespace testing = railtune::analysis::profile::testing;
using testing::TempDir;

constexpr uint64_t kMaxTag = std::numeric_limits<uint64_t>::max();

pl::OperationRecord v7Record(uint64_t tag) {
  pl::OperationRecord r = testing::gapRecord(pl::RecordKind::Collective, 2, "AllReduce", 7, 10.0);
  r.userTag = tag;
  r.symColl = false;
  r.kernelVariant.assign("AGxLL_R");
  r.phases.channels = 4;
  r.phases.longestNs = {12'345, 80'001, 7'000};
  r.phases.timed = {true, true, true};
  r.phases.unknown = 1;
  r.phases.incomplete = true;
  return r;
}

std::string render(const pl::OperationRecord& r) {
  return pl::renderCollectiveLine(testing::gapIdentity(r.rank), r);
}

std::optional<CollectiveFields> fastRead(const std::string& line) {
  FastCollectiveReader reader;
  std::string padded = line + std::string(FastCollectiveReader::paddingBytes(), ' ');
  return reader.read(std::string_view(padded.data(), line.size()));
}

TEST(V7Records, UserTagRoundTripsExactlyThroughBothReaders) {
  for (const uint64_t tag : {uint64_t{0}, uint64_t{1}, kMaxTag - 1, kMaxTag}) {
    const std::string line = render(v7Record(tag));
    const pl::CollectiveLineResult strict = pl::parseCollectiveLine(line, "f", 1);
    ASSERT_TRUE(strict.parsed) << strict.error;
    const pl::OperationRecord& r = strict.parsed->record;
    EXPECT_EQ(r.userTag, tag);
    EXPECT_EQ(r.kernelVariant.view(), "AGxLL_R");
    EXPECT_EQ(r.symColl, false);
    EXPECT_EQ(r.path, pl::OperationPath::Tuned);
    EXPECT_EQ(r.phases.longestNs, (std::array<uint64_t, 3>{12'345, 80'001, 7'000}));
    EXPECT_EQ(r.phases.unknown, 1u);
    EXPECT_TRUE(r.phases.incomplete);
    EXPECT_EQ(render(r), line);  // and renders back to the same bytes
    const std::optional<CollectiveFields> fast = fastRead(line);
    ASSERT_TRUE(fast) << line;
    EXPECT_EQ(fast->userTag, tag);
    EXPECT_EQ(fast->phases.longestNs, r.phases.longestNs);
    EXPECT_EQ(fast->phases.timed, r.phases.timed);
    EXPECT_EQ(fast->phases.channels, 4);
    EXPECT_TRUE(fast->phases.incomplete);
  }
  EXPECT_NE(render(v7Record(kMaxTag)).find("\"user_tag\":18446744073709551615"), std::string::npos);
}

TEST(V7Records, OlderLinesReadAsUntaggedAndTuned) {
  const std::string line = testing::collLine(1, "AllReduce", 0, 5.0);
  EXPECT_EQ(line.find("path"), std::string::npos);  // a v1..v6 record keeps its bytes
  const pl::CollectiveLineResult strict = pl::parseCollectiveLine(line, "f", 1);
  ASSERT_TRUE(strict.parsed) << strict.error;
  EXPECT_FALSE(strict.parsed->record.userTag);
  EXPECT_EQ(strict.parsed->record.path, pl::OperationPath::Tuned);
  EXPECT_FALSE(strict.parsed->record.phases.present());
}

// Each damage: what the strict reader says (the field it names), and the fast reader leaves it to it.
TEST(V7Records, BadFieldsAreErrorsNamingTheField) {
  const std::string good = render(v7Record(5));
  const std::vector<std::pair<std::pair<std::string, std::string>, std::string>> cases = {
      {{"\"user_tag\":5", "\"user_tag\":-5"}, "field 'user_tag'"},
      {{"\"user_tag\":5", "\"user_tag\":5.5"}, "field 'user_tag'"},
      {{"\"user_tag\":5", "\"user_tag\":18446744073709551616"}, "field 'user_tag'"},
      {{"\"user_tag\":5", "\"user_tag\":\"5\""}, "field 'user_tag'"},
      {{"\"op\":\"AllReduce\",", "\"op\":\"AllReduce\",\"path\":\"fast\","}, "field 'path'"},
      {{"\"incomplete\":true", "\"incomplete\":false"}, "field 'phases.incomplete'"},  // written only when true
      {{"\"sym_coll\":false", "\"sym_coll\":1"}, "field 'sym_coll'"},
      {{"\"kernel_variant\":\"AGxLL_R\"", "\"kernel_variant\":\"\""}, "field 'kernel_variant'"},
      {{"\"compute_us\":80.001", "\"compute_us\":80.0015"}, "field 'phases.compute_us'"},
      {{"\"compute_us\":80.001", "\"compute_us\":-1"}, "field 'phases.compute_us'"},
      {{"\"unknown\":1", "\"unknown\":1,\"phase3_us\":2"}, "field 'phases.phase3_us'"},
      {{"\"unknown\":1}", "\"unknownx\":1}"}, "field 'phases."},
      {{"\"channels\":4", "\"channels\":-4"}, "field 'phases.channels'"},
  };
  for (const auto& [edit, expected] : cases) {
    std::string line = good;
    const size_t at = line.find(edit.first);
    ASSERT_NE(at, std::string::npos) << edit.first << " in " << line;
    line.replace(at, edit.first.size(), edit.second);
    const pl::CollectiveLineResult strict = pl::parseCollectiveLine(line, "f.jsonl", 3);
    EXPECT_FALSE(strict.parsed) << line;
    EXPECT_NE(strict.error.find(expected), std::string::npos) << strict.error;
    EXPECT_EQ(strict.error.rfind("f.jsonl:3:", 0), 0u) << strict.error;
    EXPECT_FALSE(fastRead(line)) << line;
  }
}

TEST(V7Records, SymmetricAndCopyEnginePathsReadBack) {
  pl::OperationRecord sym = v7Record(3);
  sym.symColl = true, sym.path = pl::OperationPath::Symmetric;
  pl::OperationRecord ce = v7Record(3);
  ce.symColl.reset(), ce.path = pl::OperationPath::CopyEngine, ce.phases = {};
  for (const pl::OperationRecord& r : {sym, ce}) {
    const pl::CollectiveLineResult strict = pl::parseCollectiveLine(render(r), "f", 1);
    ASSERT_TRUE(strict.parsed) << strict.error;
    EXPECT_EQ(strict.parsed->record.path, r.path);
    const auto fast = fastRead(render(r));
    ASSERT_TRUE(fast);
    EXPECT_EQ(fast->path, r.path);
  }
}

// As ProfileReader.FastAndStrictReadersAgreeOnMutatedLines, on v7 lines: the fast reader accepts exactly
// what the strict one does, with the same tag, path and phases.
TEST(V7Records, FastAndStrictReadersAgreeOnMutatedV7Lines) {
  pl::OperationRecord sym = v7Record(kMaxTag);
  sym.symColl = true, sym.path = pl::OperationPath::Symmetric, sym.phases.incomplete = false;
  const std::vector<std::string> lines = {render(v7Record(0)), render(v7Record(kMaxTag)), render(sym)};
  const std::string alphabet = "0123456789-.eE\"{}[],:\\ atrnuf";
  uint64_t state = 777;
  auto next = [&state](uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  for (const std::string& line : lines) ASSERT_EQ(railtune::testing::disagreement(line), "") << line;
  for (int i = 0; i < 20000; ++i) {
    std::string line = lines[next(lines.size())];
    const size_t at = next(line.size());
    if (next(2) == 0)
      line[at] = alphabet[next(alphabet.size())];
    else
      line.erase(at, 1 + next(8));
    ASSERT_EQ(railtune::testing::disagreement(line), "") << line;
  }
}

TEST(TagNames, ParsesAndRejectsWithTheItem) {
  const TagNames names = parseTagNames("1=forward,2=backward,18446744073709551615=last");
  EXPECT_EQ(names.at(1), "forward");
  EXPECT_EQ(names.at(kMaxTag), "last");
  EXPECT_TRUE(parseTagNames("").empty());
  for (const char* bad : {"1", "=x", "x=forward", "1=", "-1=a", "18446744073709551616=a", "1=a,1=b"})
    EXPECT_THROW(parseTagNames(bad), std::invalid_argument) << bad;
}

struct Analysed {
  StragglerReport report;
  ProfileLogs logs;
};

Analysed analyse(const syn::JobSpec& spec, StragglerOptions options = {}) {
  TempDir dir;
  syn::writeJob(spec, dir.path(), 2);
  Analysed out;
  out.logs = readProfileLogs(ReadOptions{{dir.path()}, false, 2, 20});
  EXPECT_EQ(out.logs.problems.count, 0u) << (out.logs.problems.first.empty() ? "" : out.logs.problems.first[0]);
  out.report = analyseStragglers(out.logs, nullptr, options);
  return out;
}

syn::JobSpec lateRank(double slowComputeShare, bool v7) {
  syn::JobSpec spec;
  spec.ranks = 16;
  spec.collectives = 30;
  spec.injected = {{syn::Injected::Level::Rank, 5, 1500, 1.0}};
  spec.v7 = {v7, slowComputeShare, 0.0, 0.0};
  return spec;
}

const Offender& onlyOffender(const Analysed& a) {
  static const Offender none;
  if (a.report.jobs.size() != 1 || a.report.jobs[0].offenders.size() != 1) {
    ADD_FAILURE() << "expected one offender";
    return none;
  }
  return a.report.jobs[0].offenders[0];
}

TEST(V7Stragglers, ALateArrivalIsNamedSo) {
  const Analysed a = analyse(lateRank(0.0, true));
  const Offender& o = onlyOffender(a);
  EXPECT_EQ(o.rank, 5);
  EXPECT_EQ(o.cause, Cause::LateArrival);
  EXPECT_EQ(o.lateArrivals, 30u);
  EXPECT_EQ(a.report.jobs[0].late.at(0).cause, Cause::LateArrival);
}

// A slow GPU leaves every duration alike (its peers wait in the final sync): only the phases find it.
TEST(V7Stragglers, ASlowComputeRankIsFoundFromItsPhasesAlone) {
  const Analysed a = analyse(lateRank(1.0, true));
  const Offender& o = onlyOffender(a);
  EXPECT_EQ(o.rank, 5);
  EXPECT_EQ(o.cause, Cause::SlowCompute);
  EXPECT_EQ(o.slowComputes, 30u);
  EXPECT_NEAR(o.medianLatenessUs, 1500.0, 100.0);
  // The same job as a v1..v6 binding records it (no phases, so no slow-compute truth: the delay is an
  // arrival): found by its deficit, its cause unknown, never guessed, and no groups.
  syn::JobSpec spec = lateRank(1.0, true);
  spec.v7.enabled = false;
  const Analysed without = analyse(spec);
  ASSERT_EQ(without.report.jobs.size(), 1u);
  ASSERT_EQ(without.report.jobs[0].offenders.size(), 1u);
  EXPECT_EQ(without.report.jobs[0].offenders[0].cause, Cause::Unknown);
  EXPECT_TRUE(without.report.jobs[0].groups.empty());
}

TEST(V7Stragglers, GroupsByUserTagAndPathWithTheirNames) {
  syn::JobSpec spec = lateRank(0.0, true);
  spec.v7.tagOnlyShare = 1.0;  // rank 5 late only in one tag's collectives
  spec.v7.symmetricShare = 0.3;
  StragglerOptions options;
  options.tagNames = parseTagNames("1=forward,2=backward,3=optimizer");
  const Analysed a = analyse(spec, options);
  const JobStragglers& job = a.report.jobs.at(0);
  EXPECT_EQ(a.logs.strictLines, 0u);  // v7 lines as the profiler writes them take the fast path
  const std::unique_ptr<analysis::synth::SynthJob> truth = syn::makeJob(spec);
  const uint64_t tag = truth->offenders.onlyTag.at(0);
  ASSERT_NE(tag, 0u);
  uint64_t symmetric = 0, grouped = 0, symmetricGrouped = 0;
  for (const auto& c : truth->timeline.collectives()) symmetric += c.symmetric ? 1 : 0;
  for (const TagGroup& g : job.groups) {
    ASSERT_TRUE(g.tagged);
    grouped += g.collectives;
    if (g.path == pl::OperationPath::Symmetric) symmetricGrouped += g.collectives;
    const bool listed = !g.offenders.empty() && g.offenders[0].rank == 5;
    EXPECT_EQ(listed, g.userTag == tag) << "tag " << g.userTag;
    EXPECT_EQ(g.offenders.size(), listed ? 1u : 0u);
    if (listed) {
      EXPECT_EQ(g.offenders[0].cause, Cause::LateArrival);
    }
  }
  EXPECT_EQ(grouped, 30u);
  EXPECT_GT(symmetric, 0u);
  EXPECT_EQ(symmetricGrouped, symmetric);
  const std::string table = renderStragglersTable(a.report, options, 3);
  EXPECT_NE(table.find("by user tag and path"), std::string::npos) << table;
  EXPECT_NE(table.find(options.tagNames.at(tag) + " (" + std::to_string(tag) + "), tuned"), std::string::npos) << table;
  const std::string json = renderStragglersJson(a.report);
  EXPECT_NE(json.find("\"tag_name\":\"" + options.tagNames.at(tag) + "\""), std::string::npos);
  EXPECT_NE(json.find("\"path\":\"symmetric\""), std::string::npos);
}

// The hang record names the stuck collective's tag; the report says it, by name when given.
TEST(V7Hangs, TheStuckCollectivesTagIsNamed) {
  TempDir dir;
  for (int rank = 0; rank < testing::kGapRanks; ++rank) {
    std::vector<std::string> lines{testing::collLine(rank, "AllReduce", 0, 1000.0)};
    pl::OperationRecord r =
        testing::gapRecord(rank == 3 ? pl::RecordKind::Hang : pl::RecordKind::Collective, rank, "AllReduce", 1, 2000.0);
    r.userTag = kMaxTag, r.symColl = false;
    if (rank == 3) r.stuckForNs = 5'000'000'000;
    if (rank != 3) lines.push_back(render(r));
    if (rank == 3) lines.push_back(pl::renderCollectiveLine(testing::gapIdentity(rank), r));
    dir.write("gap-job-" + std::to_string(rank) + ".collectives.jsonl", testing::joinLines(lines));
  }
  const ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, true, 2, 20});
  ASSERT_EQ(logs.problems.count, 0u) << logs.problems.first.at(0);
  const HangReport report = analyseHangs(logs, nullptr, std::nullopt);
  ASSERT_EQ(report.jobs.size(), 1u);
  ASSERT_FALSE(report.jobs[0].hung.empty());
  EXPECT_TRUE(report.jobs[0].hung[0].trait.tagged);
  EXPECT_EQ(report.jobs[0].hung[0].trait.userTag, kMaxTag);
  const TagNames names = parseTagNames("18446744073709551615=optimizer");
  EXPECT_NE(renderHangsTable(report, names).find("step phase: optimizer (18446744073709551615)"), std::string::npos)
      << renderHangsTable(report, names);
  EXPECT_NE(renderHangsJson(report, names).find("\"user_tag\":18446744073709551615"), std::string::npos);
  EXPECT_NE(renderHangsJson(report).find("\"tag_name\":null"), std::string::npos);
}

}  // namespace
}  // namespace railtune::analysis::profile::v7_test
