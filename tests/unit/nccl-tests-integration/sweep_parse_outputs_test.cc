// `railtune sweep parse`'s work without the CLI (nccl-tests-integration/dataset/parse_jobs.h, parse_outputs.h,
// ordered_output.h): the jobs a sweep folder's manifest and a plain folder give, what is refused, the ordered
// output of jobs that finish out of order, and a dataset written only when rows were read.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "nccl-tests-integration/dataset/ordered_output.h"
#include "nccl-tests-integration/dataset/parse_outputs.h"
#include "nccl-tests-integration/run/manifest.h"

namespace railtune::sweep {
namespace {

namespace fs = std::filesystem;

const std::string kRecorded = std::string(RAILTUNE_SWEEP_DATA) + "/recorded/g8";

class SweepParseOutputs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("railtune_sweep_parse_outputs_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
  }
  static ManifestEntry entry(const std::string& id, RunStatus status, const std::string& output) {
    ManifestEntry e;
    e.id = id;
    e.test = "all_reduce_perf";
    e.status = status;
    e.output = output;
    e.exitCode = status == RunStatus::Ok ? 0 : 3;
    e.reason = status == RunStatus::Ok ? "" : "Test failure";
    e.env = {{"NCCL_ALGO", "Ring"}};
    e.nvlDomains = 1;
    e.mnnvl = "on";
    return e;
  }
  fs::path dir_;
};

TEST_F(SweepParseOutputs, ASweepFoldersManifestGivesOneJobPerCompletedRunAndListsTheOthers) {
  ManifestEntry ok = entry("allreduce.ring.r0", RunStatus::Ok, "runs/allreduce.ring.r0.txt");
  ok.outputBytes = 123;
  const ManifestEntry failed = entry("allreduce.tree.r0", RunStatus::Failed, "runs/allreduce.tree.r0.txt");
  write(dir_ / "sweep" / "manifest.jsonl", manifestLine(ok) + manifestLine(failed));
  write(dir_ / "sweep" / "runs" / "allreduce.ring.r0.txt", "x\n");

  OutputContext base;
  base.collective = "allreduce";
  const ParsePlan plan = planParseJobs({{(dir_ / "sweep").string(), {{"NCCL_PROTO", "LL"}}}}, base);
  ASSERT_EQ(plan.jobs.size(), 1u);
  const ParseJob& job = plan.jobs[0];
  EXPECT_EQ(job.path, (dir_ / "sweep" / "runs" / "allreduce.ring.r0.txt").string());
  EXPECT_EQ(job.byteLimit, std::optional<uint64_t>(123));
  EXPECT_EQ(job.context.env, (std::map<std::string, std::string>{{"NCCL_ALGO", "Ring"}}));  // the manifest's
  EXPECT_EQ(job.context.envFrom, ForcedBy::Manifest);
  EXPECT_EQ(job.context.test, "all_reduce_perf");
  EXPECT_EQ(job.context.collective, "allreduce");
  EXPECT_EQ(job.context.nvlDomains, 1);
  EXPECT_EQ(job.context.mnnvl, "on");
  EXPECT_EQ(plan.failed, 1u);
  EXPECT_EQ(plan.rejected, 0u);
  ASSERT_EQ(plan.notes.size(), 2u);
  EXPECT_EQ(plan.notes[0].message, "--env ignored: the manifest says what forced each run");
  EXPECT_EQ(plan.notes[1].message, runWithoutRows(failed));
  EXPECT_EQ(runWithoutRows(failed),
            "allreduce.tree.r0 (default): failed, exit 3: Test failure; no rows (runs/allreduce.tree.r0.txt)");
}

// The probe run's NCCL lines (NCCL_DEBUG=INFO) reach every run of the sweep, and the rail map `sweep run` recorded
// is read again for the hosts' domains (through the caller's reader), or its summary kept when it cannot be read.
TEST_F(SweepParseOutputs, TheProbesNcclLinesAndTheRecordedRailMapReachEveryRun) {
  ManifestEntry probe = entry("allreduce.default.r0", RunStatus::Ok, "runs/allreduce.default.r0.txt");
  probe.env = {{"NCCL_DEBUG", "INFO"}, {"NCCL_DEBUG_SUBSYS", "INIT,ENV"}};
  probe.nvlDomains = 0;
  probe.mnnvl = "";
  probe.fabric =
      ManifestFabric{ShapeSource::RailMap, (dir_ / "map.json").string(), FabricId{"", "RoCE", 400, 1, "oci"}};
  ManifestEntry ring = probe;
  ring.id = "allreduce.ring.r0";
  ring.output = "runs/allreduce.ring.r0.txt";
  ring.env = {{"NCCL_ALGO", "Ring"}, {"NCCL_DEBUG", "WARN"}};
  write(dir_ / "sweep" / "manifest.jsonl", manifestLine(probe) + manifestLine(ring));
  // NCCL's lines as src/init.cc:1422 and :486@v2.30.7-1 print them, behind NCCL's prefix.
  write(dir_ / "sweep" / "runs" / "allreduce.default.r0.txt",
        "h0:1:1 [0] NCCL INFO Using network IB\n"
        "h0:1:1 [0] NCCL INFO comm 0x5581a86a1830 rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0 MNNVL 1\n");
  write(dir_ / "sweep" / "runs" / "allreduce.ring.r0.txt", "x\n");

  const auto reader = [&](const std::string& path, bool fromFabric) {
    EXPECT_EQ(path, (dir_ / "map.json").string());
    EXPECT_FALSE(fromFabric);
    DomainFacts facts;
    facts.domainOfHost = {{"h0", "rack1"}, {"h1", "rack1"}};
    facts.fabric = FabricId{"", "RoCE", 400, 1, "oci"};
    facts.from = ShapeSource::RailMap;
    return facts;
  };
  ParsePlan plan = planParseJobs({{(dir_ / "sweep").string(), {}}}, OutputContext{}, reader);
  ASSERT_EQ(plan.jobs.size(), 2u);
  for (const ParseJob& job : plan.jobs) {
    EXPECT_EQ(job.context.probe.nNodes, 1) << job.path;
    EXPECT_EQ(job.context.probe.mnnvl, 1) << job.path;
    EXPECT_EQ(job.context.probe.network, "IB") << job.path;
    EXPECT_EQ(job.context.domainOfHost.size(), 2u) << job.path;
    EXPECT_EQ(job.context.from, ShapeSource::RailMap) << job.path;
    EXPECT_EQ(job.context.fabric.nicGbps, 400) << job.path;
  }
  // The map is gone: its summary is kept and the loss said.
  const auto gone = [](const std::string& path, bool) -> DomainFacts {
    throw std::runtime_error(path + ": cannot open");
  };
  plan = planParseJobs({{(dir_ / "sweep").string(), {}}}, OutputContext{}, gone);
  ASSERT_EQ(plan.jobs.size(), 2u);
  EXPECT_TRUE(plan.jobs[1].context.domainOfHost.empty());
  EXPECT_EQ(plan.jobs[1].context.fabric.linkLayer, "RoCE");
  ASSERT_FALSE(plan.notes.empty());
  EXPECT_NE(plan.notes[0].message.find("the rail-map the sweep recorded cannot be read"), std::string::npos);
}

TEST_F(SweepParseOutputs, APlainFolderGivesEveryFileButHiddenOnesAndDatasets) {
  write(dir_ / "a.txt", "x\n");
  write(dir_ / "sub" / "b.log", "x\n");
  write(dir_ / ".hidden", "x\n");
  write(dir_ / "old.jsonl", "{}\n");
  const ParsePlan plan = planParseJobs({{dir_.string(), {{"NCCL_ALGO", "Tree"}}}}, OutputContext{});
  std::vector<std::string> paths;
  for (const ParseJob& job : plan.jobs) {
    paths.push_back(fs::relative(job.path, dir_).string());
    EXPECT_EQ(job.context.source, job.path);
    EXPECT_EQ(job.context.envFrom, ForcedBy::Option);
  }
  std::sort(paths.begin(), paths.end());
  EXPECT_EQ(paths, (std::vector<std::string>{"a.txt", "sub/b.log"}));
}

TEST_F(SweepParseOutputs, NoOutputAndNoRunIsRefused) {
  fs::create_directories(dir_ / "empty");
  try {
    planParseJobs({{(dir_ / "empty").string(), {}}}, OutputContext{});
    ADD_FAILURE() << "an empty folder planned";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "no nccl-tests output files among the inputs");
  }
}

TEST_F(SweepParseOutputs, RowsOfEveryFileInInputOrderAndNothingWrittenWithoutRows) {
  ParseRequest request;
  request.inputs = {{kRecorded + "/ring-ll.txt", {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "LL"}}},
                    {kRecorded + "/default.txt", {}}};
  request.output = (dir_ / "dataset.jsonl").string();
  const ParseSummary summary = parseOutputs(request);
  EXPECT_EQ(summary.jobs, 2u);
  EXPECT_EQ(summary.filesWithRows, 2u);
  EXPECT_GT(summary.rows, 0u);
  std::ifstream in(request.output);
  std::string line, sources;
  size_t lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    const bool ring = line.find("ring-ll.txt") != std::string::npos;
    if (sources.empty() || sources.back() != (ring ? 'r' : 'd')) sources += ring ? 'r' : 'd';
  }
  EXPECT_EQ(lines, summary.rows);
  EXPECT_EQ(sources, "rd");  // the first input's rows, then the second's

  write(dir_ / "not-a-table.txt", "hello\n");
  request.inputs = {{(dir_ / "not-a-table.txt").string(), {}}};
  request.output = (dir_ / "none.jsonl").string();
  const ParseSummary none = parseOutputs(request);
  EXPECT_EQ(none.rows, 0u);
  EXPECT_FALSE(fs::exists(request.output));
  ASSERT_FALSE(none.diagnostics.empty());
  EXPECT_EQ(none.diagnostics.back().message, "no nccl-tests result rows");
}

TEST(SweepOrderedOutput, JobsThatFinishOutOfOrderAreWrittenInOrder) {
  std::string written;
  OrderedOutput output(3, 1 << 20, [&](std::string_view bytes) { written += bytes; });
  std::string text = "b1 ";
  output.write(1, text);
  EXPECT_TRUE(text.empty());
  text = "c1 ";
  output.write(2, text);
  output.done(2);
  text = "a1 ";
  output.write(0, text);  // the head writes straight through
  EXPECT_EQ(written, "a1 ");
  output.done(0);
  EXPECT_EQ(written, "a1 b1 ");
  text = "b2 ";
  output.write(1, text);
  output.done(1);
  EXPECT_EQ(written, "a1 b1 b2 c1 ");
  EXPECT_TRUE(output.error().empty());
}

TEST(SweepOrderedOutput, TheFirstWriteErrorIsKeptAndLaterBytesDropped) {
  std::string written;
  OrderedOutput output(2, 1 << 20, [&](std::string_view bytes) {
    if (bytes == "bad") throw std::runtime_error("disk full");
    written += bytes;
  });
  std::string text = "bad";
  output.write(0, text);
  text = "good";
  output.write(0, text);
  output.done(0);
  output.done(1);
  EXPECT_EQ(written, "");
  EXPECT_EQ(output.error(), "disk full");
}

}  // namespace
}  // namespace railtune::sweep
