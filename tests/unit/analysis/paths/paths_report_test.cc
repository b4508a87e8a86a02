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

// The hand-written ib job (tests/data/paths/ib): the verbs facts of each end in the table and the JSON, and the
// note on rank 1's idle QP.
class PathsReportIb : public ::testing::Test {
 protected:
  void SetUp() override {
    previous_ = std::filesystem::current_path();
    std::filesystem::current_path(RAILTUNE_PATHS_TEST_DATA);
    loaded_ = loadPathLogs("paths/ib", {});
    ASSERT_EQ(loaded_.jobs.size(), 1u);
    jobs_.push_back(CheckedJob{&loaded_.jobs[0], checkPaths(loaded_.jobs[0], nullptr)});
  }
  void TearDown() override { std::filesystem::current_path(previous_); }

  std::filesystem::path previous_;
  LoadedPaths loaded_;
  std::vector<CheckedJob> jobs_;
};

TEST_F(PathsReportIb, TableGolden) {
  const std::string table = renderCheckTable(jobs_);
  expectGolden("ib.txt", table);
  EXPECT_NE(table.find("Verbs (ib) connections, as each end logged them:"), std::string::npos) << table;
  EXPECT_NE(table.find("mlx5_1:1"), std::string::npos) << table;
  EXPECT_NE(table.find("0x1c0->0x2d0 0x1c1->0x2d1 0x1c2->0x2d2 0x1c3->0x2d3"), std::string::npos) << table;
}

TEST_F(PathsReportIb, JsonGolden) {
  expectGolden("ib.json", renderCheckJson(jobs_, loaded_.diagnostics));
}

TEST_F(PathsReportIb, VerbsFactsAndTheIdleQp) {
  const CheckReport& r = jobs_[0].report;
  EXPECT_EQ(r.violations(), 0);
  ASSERT_EQ(r.verbs.size(), 4u);  // both ends of both connections
  const VerbsUse& v = r.verbs[1];
  EXPECT_EQ(v.host, "rack00-tray00");
  EXPECT_EQ(v.hca, "mlx5_1");
  EXPECT_EQ(v.port, 1);
  EXPECT_EQ(v.linkLayer, "InfiniBand");
  EXPECT_EQ(v.mtu, 4096);
  EXPECT_TRUE(v.adaptiveRouting);
  EXPECT_EQ(v.qps, (std::vector<uint32_t>{0x1c0, 0x1c1, 0x1c2, 0x1c3}));
  EXPECT_EQ(v.peerQps, (std::vector<uint32_t>{0x2d0, 0x2d1, 0x2d2, 0x2d3}));
  EXPECT_EQ(v.bytesPerQp, (std::vector<uint64_t>{33554432, 33554432, 33554432, 0}));
  std::vector<const Finding*> idle;
  for (const Finding& f : r.findings)
    if (f.kind == FindingKind::IdleQp) idle.push_back(&f);
  ASSERT_EQ(idle.size(), 1u);  // one per connection, not per end
  EXPECT_EQ(idle[0]->severity, Severity::Note);
  EXPECT_NE(idle[0]->message.find("QP 3 (qpn 0x1c3) of 4 carried no bytes"), std::string::npos) << idle[0]->message;
  EXPECT_EQ(idle[0]->connections.size(), 2u);
}

TEST_F(PathsReport, SocketJobsHaveNoVerbsSection) {
  EXPECT_TRUE(jobs_[0].report.verbs.empty());
  EXPECT_EQ(renderCheckTable(jobs_).find("Verbs"), std::string::npos);
  EXPECT_EQ(renderCheckJson(jobs_, loaded_.diagnostics).find("\"verbs\""), std::string::npos);
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
