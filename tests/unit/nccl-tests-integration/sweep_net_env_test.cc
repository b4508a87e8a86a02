// The network setting of a run on the dataset's rows (nccl-tests-integration/dataset/net_env.h): from a sweep
// folder's manifest, from `sweep parse --env`, from NCCL's own "NAME set by environment to V." lines (the known
// network settings only); written and read back as net_env; a group of the rules per setting, and the rules made
// from one setting's rows (rules/net_env_rows.h).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "nccl-tests-integration/dataset/dataset.h"
#include "nccl-tests-integration/dataset/from_output.h"
#include "nccl-tests-integration/dataset/parse_jobs.h"
#include "nccl-tests-integration/parse/nccl_tests_text.h"
#include "nccl-tests-integration/rules/aggregate.h"
#include "nccl-tests-integration/rules/net_env_rows.h"
#include "nccl-tests-integration/run/manifest.h"

namespace railtune::sweep {
namespace {

namespace fs = std::filesystem;

const NetEnv kArSplit = {{"NCCL_IB_ADAPTIVE_ROUTING", "1"}, {"NCCL_IB_SPLIT_DATA_ON_QPS", "1"}};

// Two trays, NCCL_DEBUG=INFO: NCCL_PARAM's lines for two IB settings (one given as 0x4), one line of the
// cluster's own configuration, the choice forced, and SPLIT_DATA_ON_QPS read at the first send, after the header.
constexpr const char* kInfoOutput = R"(# nccl-tests version 2.19.6 nccl-headers=22807 nccl-library=22807
# Collective test starting: all_reduce_perf
#
# Using devices
#  Rank  0 Group  0 Pid   4121 on gb300-r01-t01 device  0 [0000:04:00] NVIDIA GB300
#  Rank  1 Group  0 Pid   5121 on gb300-r01-t02 device  0 [0000:04:00] NVIDIA GB300
gb300-r01-t01:4121:4121 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0
gb300-r01-t01:4121:4121 [0] NCCL INFO NCCL_IB_ADAPTIVE_ROUTING set by environment to 1.
gb300-r01-t01:4121:4121 [0] NCCL INFO NCCL_IB_QPS_PER_CONNECTION set by environment to 4.
gb300-r01-t01:4121:4121 [0] NCCL INFO NCCL_ALGO set by environment to Ring
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)
gb300-r01-t01:4121:4130 [0] NCCL INFO NCCL_IB_SPLIT_DATA_ON_QPS set by environment to 1.
     4194304       1048576     float     sum      -1    26.60  157.69  157.69       0    26.50  158.28  158.28       0
)";

std::vector<DatasetRow> netEnvRows(const OutputContext& context) {
  std::vector<DatasetRow> rows;
  std::vector<DatasetDiagnostic> diagnostics;
  appendRowsFromOutput(parseNcclTestsText(kInfoOutput), context, rows, diagnostics);
  return rows;
}

TEST(SweepNetEnv, FromNcclsOwnLinesTheKnownSettingsOnly) {
  OutputContext context;
  context.source = "info.txt";
  const std::vector<DatasetRow> rows = netEnvRows(context);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].netEnv, (NetEnv{{"NCCL_IB_ADAPTIVE_ROUTING", "1"},
                                    {"NCCL_IB_QPS_PER_CONNECTION", "4"},
                                    {"NCCL_IB_SPLIT_DATA_ON_QPS", "1"}}));
  EXPECT_EQ(rows[0].choice.algorithm, "ring");
  EXPECT_EQ(rows[0].env.count("NCCL_SOCKET_IFNAME"), 1u);  // kept among the variables, never a setting
}

TEST(SweepNetEnv, FromParseEnvBelowNcclsWordAndFromTheManifestAlone) {
  OutputContext option;
  option.source = "info.txt";
  option.env = {{"NCCL_IB_ADAPTIVE_ROUTING", "0"}, {"NCCL_CROSS_NIC", "1"}, {"NCCL_PROTO", "Simple"}};
  option.envFrom = ForcedBy::Option;
  const std::vector<DatasetRow> fromOption = netEnvRows(option);
  ASSERT_EQ(fromOption.size(), 1u);
  EXPECT_EQ(fromOption[0].netEnv, (NetEnv{{"NCCL_CROSS_NIC", "1"},
                                          {"NCCL_IB_ADAPTIVE_ROUTING", "1"},  // NCCL says 1: its word is kept
                                          {"NCCL_IB_QPS_PER_CONNECTION", "4"},
                                          {"NCCL_IB_SPLIT_DATA_ON_QPS", "1"}}));

  OutputContext manifest = option;  // a sweep folder: the manifest's setting and nothing else
  manifest.envFrom = ForcedBy::Manifest;
  manifest.netEnv = {{"NCCL_IB_QPS_PER_CONNECTION", "8"}};
  EXPECT_EQ(netEnvRows(manifest)[0].netEnv, manifest.netEnv);
  manifest.netEnv.clear();  // a sweep without a matrix: none, whatever NCCL printed
  EXPECT_TRUE(netEnvRows(manifest)[0].netEnv.empty());
}

TEST(SweepNetEnv, OneSettingSpelledTwoWaysIsOneMeasurement) {
  // NCCL reads its integer settings with strtoll base 0 and prints the number it read (param.cc:94-100@v2.30.7).
  EXPECT_EQ(netEnvValue("NCCL_IB_QPS_PER_CONNECTION", "0x4"), "4");
  EXPECT_EQ(netEnvValue("NCCL_IB_QPS_PER_CONNECTION", "04"), "4");  // octal, as NCCL reads it
  EXPECT_EQ(netEnvValue("NCCL_IB_AR_THRESHOLD", " 8192"), "8192");
  EXPECT_EQ(netEnvValue("NCCL_IB_ADAPTIVE_ROUTING", "99999999999999999999"), "99999999999999999999");  // ERANGE
  EXPECT_EQ(netEnvValue("NCCL_SOCKET_NTHREADS", "0x4"), "0x4");  // not a setting railtune knows: as given
  OutputContext manifest;
  manifest.source = "info.txt";
  manifest.envFrom = ForcedBy::Manifest;
  manifest.netEnv = {{"NCCL_IB_QPS_PER_CONNECTION", "0x8"}};
  EXPECT_EQ(netEnvRows(manifest)[0].netEnv, (NetEnv{{"NCCL_IB_QPS_PER_CONNECTION", "8"}}));
  OutputContext option;
  option.source = "info.txt";
  option.env = {{"NCCL_IB_QPS_PER_CONNECTION", "010"}};
  option.envFrom = ForcedBy::Option;
  EXPECT_EQ(netEnvRows(option)[0].netEnv.at("NCCL_IB_QPS_PER_CONNECTION"), "4");  // NCCL's line over --env
  option.env = {{"NCCL_CROSS_NIC", "0x1"}};
  EXPECT_EQ(netEnvRows(option)[0].netEnv.at("NCCL_CROSS_NIC"), "1");
}

TEST(SweepNetEnv, WrittenBetweenEnvAndShapeAndReadBack) {
  DatasetRow row;
  row.source = "runs/allreduce.default.ar1-split1.r0.txt";
  row.collective = "allreduce";
  row.size = 1048576;
  row.env = kArSplit;
  row.netEnv = kArSplit;
  row.shape.ranks = 144;
  std::string text;
  appendDatasetRow(row, text);
  EXPECT_NE(text.find("},\"net_env\":{\"NCCL_IB_ADAPTIVE_ROUTING\":\"1\",\"NCCL_IB_SPLIT_DATA_ON_QPS\":\"1\"},"
                      "\"shape\":{"),
            std::string::npos)
      << text;
  DatasetRow plain = row;
  plain.netEnv.clear();
  std::string plainLine;
  appendDatasetRow(plain, plainLine);
  EXPECT_EQ(plainLine.find("net_env"), std::string::npos);
  text += plainLine;
  std::string bad;
  appendDatasetRow(row, bad);
  bad.replace(bad.rfind("\"NCCL_IB_ADAPTIVE_ROUTING\":\"1\",\"NCCL_IB_SPLIT"), 26, "\"ib_ar\"");
  text += bad;

  std::vector<DatasetRow> read;
  std::vector<DatasetDiagnostic> diagnostics;
  const std::string padded = text + std::string(64, '\0');  // simdjson reads past the end
  readDatasetText(
      std::string_view(padded).substr(0, text.size()), "d.jsonl", [&](const DatasetRow& r) { read.push_back(r); },
      diagnostics);
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0].netEnv, kArSplit);
  EXPECT_TRUE(read[1].netEnv.empty());
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].line, 3u);
  EXPECT_EQ(diagnostics[0].message, "\"net_env\" key \"ib_ar\" is not an NCCL variable");
}

TEST(SweepNetEnv, ASweepFoldersRunsTakeTheManifestsSetting) {
  const fs::path dir = fs::temp_directory_path() / ("railtune-net-env-" + std::to_string(::getpid()));
  fs::create_directories(dir / "runs");
  ManifestEntry e;
  e.id = "allreduce.default.ar1-split1.r0";
  e.test = "all_reduce_perf";
  e.env = kArSplit;
  e.netEnv = kArSplit;
  e.output = "runs/" + e.id + ".txt";
  e.status = RunStatus::Ok;
  e.start = e.end = "2026-07-10T09:15:02.123Z";
  std::ofstream(dir / "manifest.jsonl") << manifestLine(e);
  std::ofstream(dir / e.output) << "x\n";
  const ParsePlan plan = planParseJobs({{dir.string(), {}}}, OutputContext{});
  fs::remove_all(dir);
  ASSERT_EQ(plan.jobs.size(), 1u);
  EXPECT_EQ(plan.jobs[0].context.netEnv, kArSplit);
  EXPECT_EQ(plan.jobs[0].context.envFrom, ForcedBy::Manifest);
}

DatasetRow sample(const NetEnv& setting, double busbw) {
  DatasetRow row;
  row.source = "runs/" + netEnvTag(setting) + ".txt";
  row.collective = "allreduce";
  row.size = 1 << 30;
  row.count = row.size / 4;
  row.netEnv = setting;
  row.shape.ranks = 144;
  row.shape.nodes = 2;
  row.outOfPlace.busbwGBps = busbw;
  return row;
}

TEST(SweepNetEnv, SettingsNeverPoolAndRulesUseOneSettingsRows) {
  Aggregate aggregate;
  aggregate.add(sample({}, 300));
  aggregate.add(sample(kArSplit, 510));
  aggregate.add(sample(kArSplit, 505));
  ASSERT_EQ(aggregate.groups.size(), 2u);  // one shape, two settings
  Aggregate byDefault = aggregate;
  EXPECT_EQ(keepNetEnvRows(byDefault, {}), 2u);
  ASSERT_EQ(byDefault.groups.size(), 1u);
  EXPECT_TRUE(byDefault.groups.begin()->first.netEnv.empty());
  EXPECT_EQ(byDefault.rowsUsed, 1u);
  Aggregate chosen = aggregate;
  EXPECT_EQ(keepNetEnvRows(chosen, parseNetEnvRows("NCCL_IB_SPLIT_DATA_ON_QPS=1,NCCL_IB_ADAPTIVE_ROUTING=1")), 1u);
  ASSERT_EQ(chosen.groups.size(), 1u);
  EXPECT_EQ(chosen.groups.begin()->first.netEnv, kArSplit);
  EXPECT_EQ(chosen.groups.begin()->second.begin()->second.begin()->second.busbw.size(), 2u);

  Aggregate none = aggregate;
  try {
    keepNetEnvRows(none, {{"NCCL_IB_QPS_PER_CONNECTION", "4"}});
    ADD_FAILURE() << "a setting without rows kept";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "no row for the algorithm rules was measured under NCCL_IB_QPS_PER_CONNECTION=4; the datasets hold "
              "rows measured under no --env setting (1 rows); NCCL_IB_ADAPTIVE_ROUTING=1 NCCL_IB_SPLIT_DATA_ON_QPS=1 "
              "(2 rows): pick one setting with --net-env-rows NAME=VALUE,...");
  }
}

TEST(SweepNetEnv, NetEnvRowsOptionRefusesWhatIsNoSetting) {
  EXPECT_TRUE(parseNetEnvRows("").empty());
  const auto refusal = [](const std::string& text) {
    try {
      parseNetEnvRows(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(refusal("NCCL_IB_ADAPTIVE_ROUTING"), "--net-env-rows: 'NCCL_IB_ADAPTIVE_ROUTING' is not NAME=VALUE");
  EXPECT_EQ(refusal("NCCL_CROSS_NIC=1,NCCL_CROSS_NIC=0"), "--net-env-rows: NCCL_CROSS_NIC is given twice");
  EXPECT_EQ(refusal("NCCL_ALGO=Ring"), "--net-env-rows: NCCL_ALGO: the sweep forces it per run (--algos)");
}

}  // namespace
}  // namespace railtune::sweep
