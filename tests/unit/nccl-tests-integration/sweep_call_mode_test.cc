// nccl-tests' -R/-D/-x through the sweep (dataset/call_mode.h, run/call_options.h): read from argv, checked against
// the binary's -h, recorded in the manifest and the dataset rows, and rows NCCL may have run without the tuner
// kept away from `sweep rules`/`sweep fit` (rules/read_datasets.h), counted.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "nccl-tests-integration/dataset/call_mode.h"
#include "nccl-tests-integration/dataset/dataset.h"
#include "nccl-tests-integration/dataset/from_output.h"
#include "nccl-tests-integration/parse/nccl_tests_json.h"
#include "nccl-tests-integration/rules/read_datasets.h"
#include "nccl-tests-integration/run/call_options.h"
#include "nccl-tests-integration/run/manifest.h"

namespace railtune::sweep {
namespace {

TEST(SweepCallMode, EverySpellingOfGetoptLong) {
  EXPECT_EQ(callModeFromArgs({"all_reduce_perf", "-b", "8", "-R", "2"}).registration, 2);
  EXPECT_EQ(callModeFromArgs({"all_reduce_perf", "-R2", "-D1"}), (CallMode{2, 1, -1}));
  EXPECT_EQ(callModeFromArgs({"x", "--local_register=1", "--cta_policy", "2"}), (CallMode{1, 0, 2}));
  EXPECT_EQ(callModeFromArgs({"x", "--device_implementation", "0x3", "-R", "2"}), (CallMode{2, 3, -1}));
  EXPECT_TRUE(callModeFromArgs({"x", "-b", "8", "-e", "16G", "-d", "float"}).isDefault());
  std::string problem;
  EXPECT_TRUE(callModeFromArgs({"x", "-R", "two"}, &problem).isDefault());
  EXPECT_EQ(problem, "-R 'two' is not a number");
  callModeFromArgs({"x", "-R"}, &problem);  // the value missing at the end
  EXPECT_EQ(problem, "-R '' is not a number");
}

TEST(SweepCallMode, LabelRoundTripsAndBadLabelsAreRefused) {
  const CallMode call{2, 1, 2};
  EXPECT_EQ(call.label(), "-R 2 -D 1 -x 2");
  EXPECT_EQ(callModeFromLabel(call.label()), call);
  EXPECT_EQ(callModeFromLabel("-x 0"), (CallMode{0, 0, 0}));
  EXPECT_THROW(callModeFromLabel("-R two"), std::invalid_argument);
  EXPECT_THROW(callModeFromLabel("-R  2"), std::invalid_argument);  // not as sweep parse writes it
  EXPECT_THROW(callModeFromLabel("-b 8"), std::invalid_argument);
}

TEST(SweepCallMode, WhichRowsMayBypassTheTuner) {
  const std::map<std::string, std::string> none;
  EXPECT_TRUE(mayBypassTuner(CallMode{2, 0, -1}, "allreduce", 1, none));
  EXPECT_TRUE(mayBypassTuner(CallMode{2, 0, -1}, "allgather", 0, none)) << "nodes unknown: left out";
  EXPECT_FALSE(mayBypassTuner(CallMode{2, 0, -1}, "allreduce", 2, none)) << "several nodes: no symmetric kernel";
  EXPECT_FALSE(mayBypassTuner(CallMode{2, 0, -1}, "allgather", 2, none));
  EXPECT_TRUE(mayBypassTuner(CallMode{2, 0, 2}, "allgather", 2, none)) << "hierarchical CE under CTA policy ZERO";
  EXPECT_FALSE(mayBypassTuner(CallMode{2, 0, -1}, "broadcast", 1, none)) << "no symmetric kernel";
  EXPECT_FALSE(mayBypassTuner(CallMode{1, 0, 2}, "allgather", 1, none)) << "local registration is no window";
  EXPECT_TRUE(mayBypassTuner(CallMode{2, 4, -1}, "alltoall", 2, none)) << "nccl-tests' own kernels";
  EXPECT_TRUE(mayBypassTuner(CallMode{}, "allreduce", 1, {{"NCCL_SYM_NOWIN_ENABLE", "1"}}));
  EXPECT_FALSE(mayBypassTuner(CallMode{}, "allreduce", 1, {{"NCCL_SYM_NOWIN_ENABLE", "0"}}));
  EXPECT_TRUE(mayBypassTuner(CallMode{}, "reducescatter", 1, {{"NCCL_SYM_KERNEL", "ReduceScatter_LD"}}));
}

TEST(SweepCallOptions, CheckedBeforeTheFirstRun) {
  EXPECT_EQ(readCallOptions({"-b", "8", "-R", "2", "-D", "1"}), (CallMode{2, 1, -1}));
  EXPECT_THROW(readCallOptions({"-D", "1"}), std::invalid_argument);  // nccl-tests needs -R 2 for -D
  EXPECT_THROW(readCallOptions({"-R", "3"}), std::invalid_argument);
  EXPECT_THROW(readCallOptions({"-x", "4"}), std::invalid_argument);
  EXPECT_THROW(readCallOptions({"-R", "x"}), std::invalid_argument);
}

TEST(SweepCallOptions, TheBinaryMustOfferTheFlag) {
  // nccl-tests 2.15 knew -R 1 only, 2.16 added -R 2, 2.17 added -D and -x (src/common.cu, each release's help).
  const std::string v215 = "[-R,--local_register <1/0> enable local buffer registration on send/recv buffers]";
  const std::string v216 = "[-R,--local_register <0/1/2> enable local (1) or symmetric (2) buffer registration]";
  const std::string v217 = v216 + " [-x,--cta_policy <0/1/2>] [-D,--device_implementation <implementation number>]";
  EXPECT_NE(unsupportedCallOptions(CallMode{2, 0, -1}, v215).find("2.16.0"), std::string::npos);
  EXPECT_EQ(unsupportedCallOptions(CallMode{2, 0, -1}, v216), "");
  EXPECT_NE(unsupportedCallOptions(CallMode{2, 1, -1}, v216).find("2.17.0"), std::string::npos);
  EXPECT_NE(unsupportedCallOptions(CallMode{0, 0, 2}, v216).find("-x"), std::string::npos);
  EXPECT_EQ(unsupportedCallOptions(CallMode{2, 1, 2}, v217), "");
  EXPECT_FALSE(callOptionNotes(CallMode{2, 0, -1}).empty());
  EXPECT_TRUE(callOptionNotes(CallMode{}).empty());
}

TEST(SweepCallMode, TheManifestRecordsIt) {
  ManifestEntry e;
  e.id = "allreduce.default.r0";
  e.test = "all_reduce_perf";
  e.output = "runs/allreduce.default.r0.txt";
  e.status = RunStatus::Ok;
  e.call = CallMode{2, 0, 2};
  const std::string line = manifestLine(e);
  EXPECT_NE(line.find("\"call\":\"-R 2 -x 2\""), std::string::npos) << line;
  const Manifest back = readManifestText(line);
  ASSERT_EQ(back.entries.size(), 1u) << (back.diagnostics.empty() ? "" : back.diagnostics[0].message);
  EXPECT_EQ(back.entries[0].call, e.call);
  std::string bad = line;
  bad.replace(bad.find("-R 2 -x 2"), 9, "-R 9 -q 1");
  EXPECT_EQ(readManifestText(bad).diagnostics.size(), 1u);
}

// A -J file of nccl-tests 2.19 run with -R 2: its args carry the flag into every row, which the dataset writes.
constexpr const char* kSymmetricJson =
    R"({"version":1,"args":["/opt/nccl-tests/build/all_gather_perf","-b","1M","-e","2M","-R","2"],"env":[],)"
    R"("nccl_version":23007,"config":{"devices":[{"rank":0,"group":0,"pid":7,"hostname":"gb-1","device":0,)"
    R"("device_hex":"0000:04:00","device_info":"NVIDIA GB300"}]},)"
    R"("results":[{"size":1048576,"count":262144,"type":"float","redop":"none","root":"-1",)"
    R"("out_of_place":{"time":30.0,"alg_bw":35.0,"bus_bw":0.0,"nwrong":0},)"
    R"("in_place":{"time":29.0,"alg_bw":36.0,"bus_bw":0.0,"nwrong":0}}]})";

TEST(SweepCallMode, RowsFromAJsonFileCarryTheCall) {
  const ParsedText parsed = parseNcclTestsJson(kSymmetricJson);
  ASSERT_EQ(parsed.runs.size(), 1u);
  std::vector<DatasetRow> rows;
  std::vector<DatasetDiagnostic> diagnostics;
  OutputContext context;
  context.source = "run.json";
  appendRowsFromOutput(parsed, context, rows, diagnostics);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].call, (CallMode{2, 0, -1}));
  std::string line;
  appendDatasetRow(rows[0], line);
  EXPECT_NE(line.find("\"call\":\"-R 2\""), std::string::npos) << line;
  context.call = CallMode{};  // a manifest that says otherwise wins
  rows.clear();
  appendRowsFromOutput(parsed, context, rows, diagnostics);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0].call.isDefault());
}

DatasetRow row(const std::string& collective, CallMode call) {
  DatasetRow r;
  r.source = "out.txt";
  r.line = 10;
  r.test = collective == "allreduce" ? "all_reduce_perf" : "all_gather_perf";
  r.collective = collective;
  r.size = 1 << 20;
  r.count = 1 << 18;
  r.type = "float";
  r.redop = "sum";
  r.shape.ranks = 8;
  r.shape.hosts = 2;
  r.shape.nodes = 1;
  r.shape.nvlDomains = 1;
  r.shape.ranksPerDomain = 8;
  r.outOfPlace.timeUs = r.inPlace.timeUs = 20.0;
  r.outOfPlace.busbwGBps = r.inPlace.busbwGBps = 90.0;
  r.call = call;
  return r;
}

std::string writeDataset(const std::vector<DatasetRow>& rows, const std::string& name) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::string text;
  for (const DatasetRow& r : rows) appendDatasetRow(r, text);
  std::ofstream(path) << text;
  return path;
}

TEST(SweepCallMode, RulesAndFitsReadTunedRowsOnlyAndSayWhatWasLeftOut) {
  const std::string path = writeDataset(
      {row("allreduce", {}), row("allreduce", {2, 0, -1}), row("allgather", {2, 1, -1}), row("allgather", {1, 0, -1})},
      "railtune-sweep-call-mode.jsonl");
  std::vector<std::string> warnings;
  std::vector<DatasetRow> read;
  readDatasetRows(
      {path}, 10, [&](std::string_view w) { warnings.emplace_back(w); },
      [&](const DatasetRow& r) { read.push_back(r); }, nullptr);
  ASSERT_EQ(read.size(), 2u);
  for (const DatasetRow& r : read) EXPECT_NE(r.call.registration, 2);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "2 rows NCCL may have run without the tuner left out (1 with symmetric windows, -R 2; 1 nccl-tests "
            "device-API kernels, -D; 0 under NCCL_SYM_KERNEL or NCCL_SYM_NOWIN_ENABLE): tuned rows only");
  std::filesystem::remove(path);
}

TEST(SweepCallMode, NothingButUntunedRowsIsAnError) {
  const std::string path = writeDataset({row("allreduce", {2, 0, -1})}, "railtune-sweep-call-mode-only.jsonl");
  try {
    readDatasetRows(
        {path}, 10, [](std::string_view) {}, [](const DatasetRow&) {}, nullptr);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("1 rows NCCL may have run without the tuner left out"), std::string::npos)
        << e.what();
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace railtune::sweep
