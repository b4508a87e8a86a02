// The outputs of `profile stragglers` and `profile hangs` compared byte for byte with golden files
// (tests/data/golden/profile_analysis/, and the --json examples in docs/formats/), and the stalled-ring logs the CLI
// tests read (tests/data/profile_analysis/ring-hang/). RAILTUNE_UPDATE_GOLDEN=1 rewrites all of them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "analysis/profile/hangs.h"
#include "analysis/profile/hangs_render.h"
#include "analysis/profile/stragglers.h"
#include "analysis/profile/stragglers_render.h"
#include "tests/support/synthetic_profile_job.h"
#include "tests/unit/analysis/profile/profile_analysis_lines.h"
#include "tests/unit/analysis/profile/profile_analysis_ring.h"
#include "tests/unit/analysis/profile/profile_analysis_test_support.h"

namespace railtune::analysis::profile {
namespace {

namespace syn = railtune::testing::synthetic_profile;
using testing::TempDir;

bool updating() {
  const char* update = std::getenv("RAILTUNE_UPDATE_GOLDEN");
  return update != nullptr && std::string(update) == "1";
}

void expectGolden(const std::string& path, const std::string& actual) {
  if (updating()) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << actual;
  }
  EXPECT_EQ(testing::readText(path), actual) << path << " differs; RAILTUNE_UPDATE_GOLDEN=1 rewrites it";
}

const std::string kGolden = RAILTUNE_PROFILE_ANALYSIS_GOLDEN;
const std::string kData = RAILTUNE_PROFILE_ANALYSIS_DATA;
const std::string kFormats = RAILTUNE_FORMATS_DIR;  // the --json examples are golden files too

TEST(ProfileGolden, Stragglers) {
  syn::JobSpec spec;
  spec.job = "golden";
  spec.ranks = 48, spec.ranksPerTray = 4, spec.traysPerRack = 4, spec.collectives = 24;  // 3 racks
  spec.clockSpreadUs = 3000;
  spec.injected = {{syn::Injected::Level::Rank, 1, 1500, 1.0 / 3},
                   {syn::Injected::Level::Tray, 5, 1200, 0.25},
                   {syn::Injected::Level::Rack, 2, 900, 0.5}};
  TempDir dir;
  syn::writeJob(spec, dir.path(), 2);
  const ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, false, 2, 20});
  const formats::RailMap railMap = formats::parseRailMap(syn::railMapJson(spec), "rail map");
  const StragglerOptions options;
  const StragglerReport report = analyseStragglers(logs, &railMap, options);
  expectGolden(kGolden + "/stragglers.txt", renderStragglersTable(report, options, 5));
  expectGolden(kFormats + "/profile-stragglers.example.json", renderStragglersJson(report));
  expectGolden(kGolden + "/stragglers-no-rail-map.txt",
               renderStragglersTable(analyseStragglers(logs, nullptr, options), options, 3));
}

// Every column of the two tables whose name does not explain itself (times, counts out of a total, the
// latest rank, the groups) is explained under its table, before the next table starts.
TEST(ProfileStragglersTable, EveryTableHasALegendOfItsColumns) {
  syn::JobSpec spec;
  spec.job = "legend";
  spec.ranks = 16, spec.ranksPerTray = 4, spec.traysPerRack = 2, spec.collectives = 12;
  spec.injected = {{syn::Injected::Level::Rank, 1, 1500, 1.0}};
  TempDir dir;
  syn::writeJob(spec, dir.path(), 2);
  const ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, false, 2, 20});
  const StragglerOptions options;
  const std::string table = renderStragglersTable(analyseStragglers(logs, nullptr, options), options, 5);
  const size_t offenders = table.find("\n  level  ");
  const size_t collectives = table.find("\n  comm  ");
  ASSERT_NE(offenders, std::string::npos) << table;
  ASSERT_NE(collectives, std::string::npos) << table;
  const std::string offenderPart = table.substr(offenders, collectives - offenders);
  const std::string collectivePart = table.substr(collectives);
  for (const char* column : {"late:", "median_us,", "p90_us:", "arrival_us:", "microseconds"})
    EXPECT_NE(offenderPart.find(std::string(" ") + column), std::string::npos) << column << "\n" << table;
  for (const char* column :
       {"median_us:", "late:", "latest:", "lateness_us,", "arrival_us:", "groups:", "microseconds"})
    EXPECT_NE(collectivePart.find(std::string(" ") + column), std::string::npos) << column << "\n" << table;
}

// The stalled ring as files: the CLI tests run `railtune profile hangs` on them.
TEST(ProfileGolden, RingHangFixtureAndReport) {
  const std::string fixture = kData + "/ring-hang";
  for (int rank = 0; rank < testing::kRanks; ++rank) {
    const std::string name =
        "ring-job-" + testing::hostOf(rank) + "-" + std::to_string(100 + rank) + ".collectives.jsonl";
    expectGolden(fixture + "/" + name, testing::joinLines(testing::ringLines(rank, 10, 9)));
  }
  expectGolden(fixture + "/paths/ring-job-r000-t01-105.jsonl", testing::pathLogLine(5, 6) + "\n");
  const ProfileLogs logs = readProfileLogs(ReadOptions{{fixture}, true, 2, 20});
  ASSERT_EQ(logs.problems.count, 0u);
  const HangReport report = analyseHangs(logs, nullptr, std::nullopt);
  expectGolden(kGolden + "/hangs.txt", renderHangsTable(report));
  expectGolden(kFormats + "/profile-hangs.example.json", renderHangsJson(report));
}

// The case as files for the CLI tests: AllReduce #0 completed everywhere, AllGather #0 everywhere
// but on rank 3 (stuck there), in the format of earlier versions (no closed_by); rank 6's writer lost
// records later, which the report lists as a loss.
TEST(ProfileGolden, AllGatherHangFixture) {
  const std::string fixture = kData + "/allgather-hang";
  for (int rank = 0; rank < testing::kGapRanks; ++rank) {
    std::string text = testing::oldFormat(testing::collLine(rank, "AllReduce", 0, 1000)) + "\n";
    if (rank != 3) text += testing::oldFormat(testing::collLine(rank, "AllGather", 0, 2000)) + "\n";
    if (rank == 6) text += testing::droppedLine(6, 2500, 3) + "\n";
    expectGolden(fixture + "/gap-job-" + std::to_string(rank) + ".collectives.jsonl", text);
  }
  const ProfileLogs logs = readProfileLogs(ReadOptions{{fixture}, true, 2, 20});
  ASSERT_EQ(logs.problems.count, 0u);
  expectGolden(kGolden + "/hangs-allgather.txt", renderHangsTable(analyseHangs(logs, nullptr, std::nullopt)));
}

}  // namespace
}  // namespace railtune::analysis::profile
