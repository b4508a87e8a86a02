// `railtune sweep run --env NAME=V1,V2,...` (nccl-tests-integration/run/env_matrix.h, dataset/net_env.h): the
// options read and refused, the combinations and their cap, the plan interleaved per repeat and per setting with
// NCCL's own choice first, the run ids' short tags, the setting in the manifest, and a resume with another matrix
// refused naming the run.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "nccl-tests-integration/dataset/net_env.h"
#include "nccl-tests-integration/run/env_matrix.h"
#include "nccl-tests-integration/run/manifest.h"
#include "nccl-tests-integration/run/plan.h"
#include "nccl-tests-integration/run/runner.h"

namespace railtune::sweep {
namespace {

std::string refusalOf(const std::string& option) {
  try {
    parseEnvAxis(option);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

std::string combinationRefusal(const std::vector<std::string>& options) {
  std::vector<EnvAxis> axes;
  try {
    for (const std::string& o : options) axes.push_back(parseEnvAxis(o));
    envCombinations(axes);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

SweepSpec matrixSpec() {
  SweepSpec spec;
  spec.dir = "/sweeps/a";
  spec.binary = "all_reduce_perf";
  spec.test = "all_reduce_perf";
  spec.args = {"-b", "1G", "-e", "16G", "-g", "4"};
  spec.algorithms = {"ring", "nvls"};
  spec.protocols = {"ll", "simple"};
  spec.env = {parseEnvAxis("NCCL_IB_SPLIT_DATA_ON_QPS=0,1"), parseEnvAxis("NCCL_IB_ADAPTIVE_ROUTING=0, 1")};
  return spec;
}

std::vector<std::string> matrixRunIds(const Plan& plan) {
  std::vector<std::string> ids;
  for (const PlannedRun& run : plan.runs) ids.push_back(run.id);
  return ids;
}

TEST(SweepRunEnvMatrix, AnOptionIsOneVariableAndItsValues) {
  const EnvAxis axis = parseEnvAxis("NCCL_IB_QPS_PER_CONNECTION=1, 4,1,8");
  EXPECT_EQ(axis.name, "NCCL_IB_QPS_PER_CONNECTION");
  EXPECT_EQ(axis.values, (std::vector<std::string>{"1", "4", "8"}));  // a repeat dropped, blanks trimmed
  EXPECT_EQ(parseEnvAxis("NCCL_SOCKET_NTHREADS=4").values, std::vector<std::string>{"4"});
}

TEST(SweepRunEnvMatrix, WhatTheSweepForcesOrNoNcclVariableIsRefused) {
  EXPECT_EQ(refusalOf("NCCL_ALGO=Ring,Tree"),
            "--env NCCL_ALGO=Ring,Tree: NCCL_ALGO: the sweep forces it per run (--algos)");
  EXPECT_NE(refusalOf("NCCL_PROTO=LL").find("(--protos)"), std::string::npos);
  EXPECT_NE(refusalOf("NCCL_MIN_NCHANNELS=4").find("(--channels)"), std::string::npos);
  EXPECT_NE(refusalOf("NCCL_MAX_NCHANNELS=4").find("(--channels)"), std::string::npos);
  EXPECT_NE(refusalOf("NCCL_MAX_NRINGS=4").find("connect.cc:329"), std::string::npos);
  EXPECT_NE(refusalOf("NCCL_TUNER_PLUGIN=x.so").find("--chunk-sizes"), std::string::npos);
  EXPECT_NE(refusalOf("NCCL_DEBUG=INFO").find("the sweep sets it"), std::string::npos);
  EXPECT_NE(refusalOf("NCCL_DEBUG_FILE=/tmp/x").find("leave the output"), std::string::npos);
  const std::string notNccl = "not an NCCL variable (NCCL_ then capitals, digits and _)";
  EXPECT_EQ(refusalOf("RAILTUNE_SWEEP_RUN_ID=x"), "--env RAILTUNE_SWEEP_RUN_ID=x: RAILTUNE_SWEEP_RUN_ID: " + notNccl);
  EXPECT_NE(refusalOf("nccl_ib_qps_per_connection=4").find(notNccl), std::string::npos);
  EXPECT_NE(refusalOf("NCCL_=4").find(notNccl), std::string::npos);
  EXPECT_NE(refusalOf("CUDA_VISIBLE_DEVICES=0").find(notNccl), std::string::npos);
  EXPECT_EQ(refusalOf("NCCL_IB_QPS_PER_CONNECTION"),
            "--env NCCL_IB_QPS_PER_CONNECTION: expected NAME=VALUE[,VALUE...]");
  EXPECT_NE(refusalOf("NCCL_IB_QPS_PER_CONNECTION=1,,4").find("an empty value"), std::string::npos);
  EXPECT_NE(refusalOf("NCCL_IB_QPS_PER_CONNECTION=").find("an empty value"), std::string::npos);
}

TEST(SweepRunEnvMatrix, CombinationsInNameOrderCappedAndDistinct) {
  std::vector<EnvAxis> axes = {parseEnvAxis("NCCL_IB_SPLIT_DATA_ON_QPS=0,1"),
                               parseEnvAxis("NCCL_IB_ADAPTIVE_ROUTING=0,1")};
  const std::vector<NetEnv> combinations = envCombinations(axes);
  ASSERT_EQ(combinations.size(), 4u);
  std::vector<std::string> tags;
  for (const NetEnv& c : combinations) tags.push_back(netEnvTag(c));
  EXPECT_EQ(tags, (std::vector<std::string>{"ar0-split0", "ar0-split1", "ar1-split0", "ar1-split1"}));
  EXPECT_EQ(netEnvLabel(combinations.back()), "NCCL_IB_ADAPTIVE_ROUTING=1 NCCL_IB_SPLIT_DATA_ON_QPS=1");
  EXPECT_EQ(envCombinations({}), std::vector<NetEnv>{NetEnv{}});  // no matrix: one run of each choice, unset

  // 4 x 4 x 4 = 64 is the cap; one value more is refused, before anything is planned.
  const std::vector<std::string> at64 = {"NCCL_IB_QPS_PER_CONNECTION=1,2,4,8", "NCCL_IB_AR_THRESHOLD=0,1,2,3",
                                         "NCCL_NCHANNELS_PER_NET_PEER=1,2,4,8"};
  EXPECT_EQ(combinationRefusal(at64), "");
  std::vector<std::string> over = at64;
  over.push_back("NCCL_CROSS_NIC=0,1");
  EXPECT_EQ(combinationRefusal(over),
            "--env: the matrix has more than 64 combinations (each runs every choice again): measure fewer values, "
            "or the variables in separate sweeps");
  EXPECT_EQ(combinationRefusal({"NCCL_CROSS_NIC=0", "NCCL_CROSS_NIC=1"}),
            "--env NCCL_CROSS_NIC is given twice: give its values in one list");
  EXPECT_EQ(combinationRefusal({"NCCL_SOCKET_IFNAME=eth0,ETH0"}),
            "--env NCCL_SOCKET_IFNAME: the values 'eth0' and 'ETH0' give one run id part, 'socket_ifnameeth0'");
  EXPECT_EQ(combinationRefusal({"NCCL_IB_ADAPTIVE_ROUTING=1", "NCCL_AR=1"}),
            "--env NCCL_AR and --env NCCL_IB_ADAPTIVE_ROUTING share the run id part 'ar'");
}

TEST(SweepRunEnvMatrix, ShortTagsForTheKnownSettingsOthersLowercased) {
  EXPECT_EQ(netEnvTag({{"NCCL_IB_QPS_PER_CONNECTION", "4"}, {"NCCL_IB_SPLIT_DATA_ON_QPS", "1"}}), "qps4-split1");
  EXPECT_EQ(netEnvTagName("NCCL_IB_AR_THRESHOLD"), "arthr");
  EXPECT_EQ(netEnvTagName("NCCL_NCHANNELS_PER_NET_PEER"), "chpeer");
  EXPECT_EQ(netEnvTagName("NCCL_CROSS_NIC"), "xnic");
  EXPECT_EQ(netEnvTag({{"NCCL_SOCKET_NTHREADS", "4"}}), "socket_nthreads4");
  EXPECT_EQ(netEnvTag({{"NCCL_IB_ADAPTIVE_ROUTING", "-2"}}), "ar_2");  // no '-' or '.' inside a part
  EXPECT_EQ(netEnvTag({{"NCCL_IB_HCA", "=mlx5_0:1"}}), "ib_hca_mlx5_0_1");
  EXPECT_EQ(netEnvTag({}), "");
}

TEST(SweepRunEnvMatrix, PlanPerRepeatPerSettingDefaultFirst) {
  SweepSpec spec = matrixSpec();
  spec.repeats = 2;
  const Plan plan = makePlan(spec);
  std::vector<std::string> expected;
  for (const std::string r : {"r0", "r1"})
    for (const std::string s : {"ar0-split0", "ar0-split1", "ar1-split0", "ar1-split1"})
      for (const std::string c : {"default", "ring-ll", "ring-simple", "nvls-ll", "nvls-simple"}) {
        if (c == "nvls-ll" && (r != "r0" || s != "ar0-split0")) continue;  // never offered: planned once
        expected.push_back("allreduce." + c + "." + s + "." + r);
      }
  EXPECT_EQ(matrixRunIds(plan), expected);
  for (const PlannedRun& run : plan.runs) {
    ASSERT_EQ(run.netEnv.size(), 2u) << run.id;
    for (const auto& [name, value] : run.netEnv) EXPECT_EQ(run.env.at(name), value) << run.id;
    EXPECT_EQ(run.env.at("RAILTUNE_SWEEP_RUN_ID"), run.id);
    EXPECT_EQ(run.output, "runs/" + run.id + ".txt");
  }
  const PlannedRun& last = plan.runs.back();
  EXPECT_EQ(last.netEnv, (NetEnv{{"NCCL_IB_ADAPTIVE_ROUTING", "1"}, {"NCCL_IB_SPLIT_DATA_ON_QPS", "1"}}));
  EXPECT_EQ(last.env.at("NCCL_ALGO"), "NVLS");
  // Without a matrix the ids are what they always were.
  spec.env.clear();
  EXPECT_EQ(makePlan(spec).runs.front().id, "allreduce.default.r0");
  EXPECT_TRUE(makePlan(spec).runs.front().netEnv.empty());
}

TEST(SweepRunEnvMatrix, OpenMpiIsToldEveryVariableOfTheSetting) {
  SweepSpec spec = matrixSpec();
  spec.launcher = {"mpirun", "-np", "8"};
  const Plan plan = makePlan(spec);
  const std::vector<std::string>& c = plan.runs.front().command;
  for (const std::string name : {"NCCL_IB_ADAPTIVE_ROUTING", "NCCL_IB_SPLIT_DATA_ON_QPS"}) {
    bool exported = false;
    for (size_t i = 0; i + 1 < c.size(); ++i) exported |= c[i] == "-x" && c[i + 1] == name;
    EXPECT_TRUE(exported) << name;
  }
  spec.launcher = {"srun", "-N", "2"};  // srun passes its whole environment: nothing added
  EXPECT_EQ(makePlan(spec).runs.front().command.at(3), "all_reduce_perf");
}

ManifestEntry entryOfRun(const PlannedRun& run) {
  ManifestEntry e;
  e.id = run.id;
  e.test = "all_reduce_perf";
  e.choice = run.choice;
  e.command = run.command;
  e.env = run.env;
  e.netEnv = run.netEnv;
  e.output = run.output;
  e.status = RunStatus::Ok;
  e.start = e.end = "2026-07-10T09:15:02.123Z";
  return e;
}

TEST(SweepRunEnvMatrix, TheSettingRoundTripsThroughTheManifest) {
  const Plan plan = makePlan(matrixSpec());
  const ManifestEntry entry = entryOfRun(plan.runs.back());
  const std::string line = manifestLine(entry);
  EXPECT_NE(
      line.find(",\"net_env\":{\"NCCL_IB_ADAPTIVE_ROUTING\":\"1\",\"NCCL_IB_SPLIT_DATA_ON_QPS\":\"1\"},\"output\""),
      std::string::npos)
      << line;
  const Manifest read = readManifestText(line);
  ASSERT_EQ(read.entries.size(), 1u);
  EXPECT_EQ(read.entries[0].netEnv, entry.netEnv);
  EXPECT_EQ(read.entries[0].id, "allreduce.nvls-simple.ar1-split1.r0");
  // Absent without a matrix; a bad one is a diagnostic for its line.
  ManifestEntry plain = entry;
  plain.netEnv.clear();
  EXPECT_EQ(manifestLine(plain).find("net_env"), std::string::npos);
  std::string bad = line;
  bad.replace(bad.rfind("\"NCCL_IB_ADAPTIVE_ROUTING\":\"1\""), 30, "\"ib_ar\":\"1\"");
  const Manifest refused = readManifestText(bad);
  ASSERT_EQ(refused.diagnostics.size(), 1u);
  EXPECT_EQ(refused.diagnostics[0].message, "\"net_env\".ib_ar is not an NCCL variable");
}

std::string resumeRefusal(const Plan& before, const Plan& now) {
  std::string text;
  for (const PlannedRun& run : before.runs) text += manifestLine(entryOfRun(run));
  try {
    finishedRuns(readManifestText(text), now, "/sweeps/a/manifest.jsonl");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(SweepRunEnvMatrix, ResumingWithAnotherMatrixIsRefusedNamingTheRun) {
  const SweepSpec spec = matrixSpec();
  const Plan plan = makePlan(spec);
  EXPECT_EQ(resumeRefusal(plan, plan), "");
  SweepSpec more = spec;  // more values of the same variables: the new ones run, the old ones are kept
  more.env[0] = parseEnvAxis("NCCL_IB_SPLIT_DATA_ON_QPS=0,1,2");
  EXPECT_EQ(resumeRefusal(plan, makePlan(more)), "");

  SweepSpec other = spec;
  other.env = {parseEnvAxis("NCCL_IB_QPS_PER_CONNECTION=1,4")};
  EXPECT_EQ(resumeRefusal(plan, makePlan(other)),
            "/sweeps/a/manifest.jsonl has allreduce.default.ar0-split0.r0 run with NCCL_IB_ADAPTIVE_ROUTING=0 "
            "NCCL_IB_SPLIT_DATA_ON_QPS=0, this sweep's --env matrix sets NCCL_IB_QPS_PER_CONNECTION: pass --restart "
            "to start the sweep over, or choose another -o folder");
  SweepSpec none = spec;
  none.env.clear();
  EXPECT_NE(resumeRefusal(plan, makePlan(none)).find("this sweep's --env matrix sets no --env variable"),
            std::string::npos);
  EXPECT_NE(resumeRefusal(makePlan(none), plan).find("allreduce.default.r0 run with no --env setting"),
            std::string::npos);

  // The same id for another value (values that differ only where a run id cannot tell them apart).
  SweepSpec first = spec;
  first.env = {parseEnvAxis("NCCL_IB_HCA=mlx5_0")};
  SweepSpec second = spec;
  second.env = {parseEnvAxis("NCCL_IB_HCA=mlx5-0")};
  EXPECT_EQ(resumeRefusal(makePlan(first), makePlan(second)),
            "/sweeps/a/manifest.jsonl has allreduce.default.ib_hcamlx5_0.r0 run with NCCL_IB_HCA=mlx5_0, this sweep "
            "would run it with NCCL_IB_HCA=mlx5-0: pass --restart to start the sweep over, or choose another -o "
            "folder");
}

}  // namespace
}  // namespace railtune::sweep
