// The check's table and JSON (analysis/paths/path_report.h) against goldens made from a real emulated job:
// tests/data/paths/misbound (tests/data/paths/README.md). RAILTUNE_UPDATE_GOLDEN=1 rewrites the goldens.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/paths/path_report.h"

namespace railtune::analysis::paths {
namespace {

std::string readText(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void expectGolden(const std::string& name, const std::string& actual) {
  const std::filesystem::path golden = std::filesystem::path(RAILTUNE_PATHS_GOLDEN) / name;
  const char* update = std::getenv("RAILTUNE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::filesystem::create_directories(golden.parent_path());
    std::ofstream(golden, std::ios::binary) << actual;
  }
  EXPECT_EQ(actual, readText(golden)) << "regenerate with RAILTUNE_UPDATE_GOLDEN=1 if the change is intended";
}

// Loads the committed job from tests/data with a relative folder, so that FILE:LINE in the outputs does
// not depend on where the source tree is.
class PathsReport : public ::testing::Test {
 protected:
  void SetUp() override {
    previous_ = std::filesystem::current_path();
    std::filesystem::current_path(RAILTUNE_PATHS_TEST_DATA);
    loaded_ = loadPathLogs("paths/misbound", {});
    ASSERT_EQ(loaded_.jobs.size(), 1u);
    jobs_.push_back(CheckedJob{&loaded_.jobs[0], checkPaths(loaded_.jobs[0], nullptr)});
  }
  void TearDown() override { std::filesystem::current_path(previous_); }

  std::filesystem::path previous_;
  LoadedPaths loaded_;
  std::vector<CheckedJob> jobs_;
};

TEST_F(PathsReport, TableGolden) {
  expectGolden("misbound.txt", renderCheckTable(jobs_));
}

TEST_F(PathsReport, JsonGolden) {
  const std::string json = renderCheckJson(jobs_, loaded_.diagnostics);
  expectGolden("misbound.json", json);
  // The format's documented example is this golden (JsonGoldenIsTheFormatsExample): updated with it.
  const char* update = std::getenv("RAILTUNE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1")
    std::ofstream(std::filesystem::path(RAILTUNE_PATHS_TEST_DATA) / "../../docs/formats/paths-check.example.json",
                  std::ios::binary)
        << json;
}

TEST_F(PathsReport, JsonGoldenIsTheFormatsExample) {
  EXPECT_EQ(readText(std::filesystem::path(RAILTUNE_PATHS_GOLDEN) / "misbound.json"),
            readText(std::filesystem::path(RAILTUNE_PATHS_TEST_DATA) / "../../docs/formats/paths-check.example.json"));
}

TEST_F(PathsReport, LargeJobsShowTheBusiestHostsAndCapFindings) {
  const std::string table = renderCheckTable(jobs_, TableLimits{1, 2, 1});
  EXPECT_NE(table.find("NIC use per host (4 hosts: the 2 busiest, all NICs of a host together):"), std::string::npos)
      << table;
  EXPECT_NE(table.find("  ... and 2 more hosts\n"), std::string::npos) << table;
  EXPECT_NE(table.find("  ... and 2 more cross_rail (--json lists all)\n"), std::string::npos) << table;
}

TEST_F(PathsReport, DiagnosticsAreCappedForTheTerminal) {
  std::vector<InputDiagnostic> many;
  for (int i = 1; i <= 23; ++i) many.push_back({"f.jsonl:" + std::to_string(i) + ":1", "not JSON"});
  const std::string text = renderDiagnostics(jobs_, many);
  EXPECT_EQ(text.find("warning: f.jsonl:1:1: not JSON\n"), 0u) << text;
  EXPECT_EQ(text.find("f.jsonl:21:1"), std::string::npos);
  EXPECT_NE(text.find("warning: ... and 3 more input problems (--json lists all)\n"), std::string::npos) << text;
  EXPECT_EQ(renderDiagnostics(jobs_, {}), "");
}

}  // namespace
}  // namespace railtune::analysis::paths
