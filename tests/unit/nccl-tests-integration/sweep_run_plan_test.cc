// railtune_sweep_run's plan (nccl-tests-integration/run/plan.h): the matrix expanded into runs, NCCL's own
// choice first, ids, the environment of each run, chunk sizes through a tuner rules file, launchers.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/tuner_rules/rules_file.h"
#include "nccl-tests-integration/dataset/choice.h"
#include "nccl-tests-integration/run/plan.h"

namespace railtune::sweep {
namespace {

SweepSpec allReduceSpec() {
  SweepSpec spec;
  spec.dir = "/sweeps/a";
  spec.binary = "/opt/nccl-tests/build/all_reduce_perf";
  spec.test = "all_reduce_perf";
  spec.args = {"-b", "8", "-e", "16G", "-f", "2", "-g", "8"};
  return spec;
}

std::vector<std::string> idsOf(const Plan& plan) {
  std::vector<std::string> ids;
  for (const PlannedRun& run : plan.runs) ids.push_back(run.id);
  return ids;
}

const PlannedRun& runWithId(const Plan& plan, const std::string& id) {
  for (const PlannedRun& run : plan.runs)
    if (run.id == id) return run;
  throw std::runtime_error("no run " + id);
}

TEST(SweepRunPlan, DefaultFirstInEveryRepeatThenTheMatrix) {
  SweepSpec spec = allReduceSpec();
  spec.algorithms = {"ring", "nvls", "pat"};
  spec.protocols = {"ll128", "simple"};
  spec.repeats = 2;
  const Plan plan = makePlan(spec);
  EXPECT_EQ(plan.collective, "allreduce");
  EXPECT_EQ(idsOf(plan),
            (std::vector<std::string>{"allreduce.default.r0", "allreduce.ring-ll128.r0", "allreduce.ring-simple.r0",
                                      "allreduce.nvls-ll128.r0", "allreduce.nvls-simple.r0", "allreduce.pat-ll128.r0",
                                      "allreduce.pat-simple.r0", "allreduce.default.r1", "allreduce.ring-ll128.r1",
                                      "allreduce.ring-simple.r1", "allreduce.nvls-simple.r1"}));
  // What NCCL's source never offers is planned once, not run, with the reason.
  EXPECT_NE(runWithId(plan, "allreduce.nvls-ll128.r0").notRun.find("Simple protocol only"), std::string::npos);
  EXPECT_NE(runWithId(plan, "allreduce.pat-simple.r0").notRun.find("never runs AllReduce with PAT"), std::string::npos);
  EXPECT_TRUE(runWithId(plan, "allreduce.ring-ll128.r1").notRun.empty());
}

TEST(SweepRunPlan, EachRunSetsItsChoiceInNcclSpelling) {
  SweepSpec spec = allReduceSpec();
  spec.algorithms = {"ring", "nvls_tree"};
  spec.protocols = {"ll128", "simple"};
  const Plan plan = makePlan(spec);
  const PlannedRun& ring = runWithId(plan, "allreduce.ring-ll128.r0");
  EXPECT_EQ(ring.env.at("NCCL_ALGO"), "Ring");
  EXPECT_EQ(ring.env.at("NCCL_PROTO"), "LL128");
  EXPECT_EQ(ring.env.at("RAILTUNE_SWEEP_RUN_ID"), "allreduce.ring-ll128.r0");
  EXPECT_EQ(ring.env.at("NCCL_DEBUG"), "WARN");
  EXPECT_EQ(runWithId(plan, "allreduce.nvls_tree-simple.r0").env.at("NCCL_ALGO"), "NVLSTree");
  const PlannedRun& def = plan.runs.front();
  EXPECT_EQ(def.id, "allreduce.default.r0");
  EXPECT_TRUE(def.choice.isDefault());
  EXPECT_EQ(def.env.count("NCCL_ALGO"), 0u);
  EXPECT_EQ(def.env.count("NCCL_PROTO"), 0u);
  EXPECT_EQ(def.output, "runs/allreduce.default.r0.txt");
  EXPECT_EQ(def.json, "");
  EXPECT_EQ(def.command, (std::vector<std::string>{"/opt/nccl-tests/build/all_reduce_perf", "-b", "8", "-e", "16G",
                                                   "-f", "2", "-g", "8"}));
  // `sweep parse` reads the choice back from the environment the manifest records.
  for (const PlannedRun& run : plan.runs) EXPECT_EQ(choiceFromEnvironment(run.env), run.choice) << run.id;
}

TEST(SweepRunPlan, UserNcclDebugIsKept) {
  SweepSpec spec = allReduceSpec();
  spec.setNcclDebug = false;
  for (const PlannedRun& run : makePlan(spec).runs) EXPECT_EQ(run.env.count("NCCL_DEBUG"), 0u) << run.id;
}

// The probe: the first default run only asks NCCL for its INIT and ENV lines (nNodes, MNNVL, the network), so that
// `sweep parse` learns them; every other run stays at WARN, and a user's NCCL_DEBUG or NCCL_DEBUG_SUBSYS is kept.
TEST(SweepRunPlan, TheFirstDefaultRunIsTheProbe) {
  SweepSpec spec = allReduceSpec();
  spec.algorithms = {"ring"};
  spec.protocols = {"simple"};
  spec.repeats = 2;
  Plan plan = makePlan(spec);
  const PlannedRun& probe = runWithId(plan, "allreduce.default.r0");
  EXPECT_EQ(probe.env.at("NCCL_DEBUG"), "INFO");
  EXPECT_EQ(probe.env.at("NCCL_DEBUG_SUBSYS"), "INIT,ENV");
  for (const char* id : {"allreduce.default.r1", "allreduce.ring-simple.r0", "allreduce.ring-simple.r1"}) {
    EXPECT_EQ(runWithId(plan, id).env.at("NCCL_DEBUG"), "WARN") << id;
    EXPECT_EQ(runWithId(plan, id).env.count("NCCL_DEBUG_SUBSYS"), 0u) << id;
  }
  spec.probe = false;  // the user set NCCL_DEBUG_SUBSYS
  plan = makePlan(spec);
  EXPECT_EQ(runWithId(plan, "allreduce.default.r0").env.at("NCCL_DEBUG"), "WARN");
  EXPECT_EQ(runWithId(plan, "allreduce.default.r0").env.count("NCCL_DEBUG_SUBSYS"), 0u);
  EXPECT_TRUE(isProbeRun(Choice{}, 0));
  EXPECT_FALSE(isProbeRun(Choice{}, 1));
}

TEST(SweepRunPlan, ChannelsForceMinAndMaxAlike) {
  SweepSpec spec = allReduceSpec();
  spec.algorithms = {"ring"};
  spec.protocols = {"simple"};
  spec.channels = {0, 16};
  spec.repeats = 2;
  const Plan plan = makePlan(spec);
  EXPECT_EQ(idsOf(plan), (std::vector<std::string>{"allreduce.default.r0", "allreduce.ring-simple.r0",
                                                   "allreduce.ring-simple-ch16.r0", "allreduce.default.r1",
                                                   "allreduce.ring-simple.r1", "allreduce.ring-simple-ch16.r1"}));
  const PlannedRun& ch16 = runWithId(plan, "allreduce.ring-simple-ch16.r1");
  EXPECT_EQ(ch16.env.at("NCCL_MIN_NCHANNELS"), "16");
  EXPECT_EQ(ch16.env.at("NCCL_MAX_NCHANNELS"), "16");
  EXPECT_EQ(ch16.choice.channels, 16);
  EXPECT_EQ(ch16.repeat, 1);
  EXPECT_EQ(runWithId(plan, "allreduce.ring-simple.r0").env.count("NCCL_MIN_NCHANNELS"), 0u);
}

TEST(SweepRunPlan, ChunkSizeGoesThroughATunerRulesFile) {
  SweepSpec spec = allReduceSpec();
  spec.algorithms = {"ring"};
  spec.protocols = {"simple"};
  spec.chunkSizes = {512 << 10};
  spec.channels = {16};
  spec.tunerPlugin = "/opt/railtune/lib/libnccl-tuner-railtune.so";
  const Plan plan = makePlan(spec);
  const PlannedRun& run = runWithId(plan, "allreduce.ring-simple-ch16-chunk512K.r0");
  EXPECT_EQ(run.rulesFile, "/sweeps/a/tuner-rules/allreduce.ring-simple-ch16-chunk512K.json");
  EXPECT_EQ(run.env.at("NCCL_TUNER_PLUGIN"), "/opt/railtune/lib/libnccl-tuner-railtune.so");
  EXPECT_EQ(run.env.at("RAILTUNE_TUNER_CONFIG"), run.rulesFile);
  EXPECT_EQ(run.env.at("RAILTUNE_SWEEP_CHUNK_SIZE"), "524288");
  EXPECT_EQ(choiceFromEnvironment(run.env), run.choice);
  // The tuner's own reader takes the file: one rule forcing exactly this choice.
  const formats::tuner_rules::RulesResult rules = formats::tuner_rules::readRules(run.rulesText, run.rulesFile);
  ASSERT_TRUE(rules.ok()) << rules.describeErrors();
  EXPECT_NE(run.rulesText.find("\"chunkSize\":524288"), std::string::npos);
  EXPECT_NE(run.rulesText.find("\"collective\":\"allreduce\""), std::string::npos);
  EXPECT_NE(run.rulesText.find("\"channels\":16"), std::string::npos);
  EXPECT_TRUE(plan.runs.front().rulesFile.empty());
}

TEST(SweepRunPlan, ChunkSizeNeedsAnAlgorithmAndAProtocol) {
  SweepSpec spec = allReduceSpec();
  spec.algorithms = {"ring"};
  spec.protocols = {""};
  spec.chunkSizes = {128 << 10};
  EXPECT_THROW(makePlan(spec), std::invalid_argument);
}

TEST(SweepRunPlan, AnyLeavesThatPartToNccl) {
  SweepSpec spec = allReduceSpec();
  spec.algorithms = {""};
  spec.protocols = {"ll", ""};
  spec.channels = {8};
  const Plan plan = makePlan(spec);
  EXPECT_EQ(idsOf(plan), (std::vector<std::string>{"allreduce.default.r0", "allreduce.ll-ch8.r0", "allreduce.ch8.r0"}));
  EXPECT_EQ(runWithId(plan, "allreduce.ll-ch8.r0").env.count("NCCL_ALGO"), 0u);
  EXPECT_EQ(runWithId(plan, "allreduce.ll-ch8.r0").env.at("NCCL_PROTO"), "LL");
}

TEST(SweepRunPlan, DefaultMatrixFitsTheCollective) {
  SweepSpec spec = allReduceSpec();
  Plan plan = makePlan(spec);
  EXPECT_EQ(plan.runs.size(), 1u + 4u * 3u);  // ring, tree, nvls, nvls_tree x ll, ll128, simple
  size_t notRun = 0;
  for (const PlannedRun& run : plan.runs) notRun += run.notRun.empty() ? 0 : 1;
  EXPECT_EQ(notRun, 4u);  // nvls and nvls_tree with ll and ll128

  spec.test = "all_gather_perf";
  plan = makePlan(spec);
  EXPECT_EQ(plan.runs.front().id, "allgather.default.r0");
  EXPECT_EQ(runWithId(plan, "allgather.pat-simple.r0").notRun, "");
  EXPECT_NE(runWithId(plan, "allgather.pat-ll.r0").notRun, "");

  spec.test = "broadcast_perf";
  spec.algorithms = {"ring", "tree"};
  plan = makePlan(spec);
  EXPECT_NE(runWithId(plan, "broadcast.tree-simple.r0").notRun.find("Broadcast with Ring only"), std::string::npos);
  EXPECT_EQ(runWithId(plan, "broadcast.ring-ll.r0").notRun, "");
}

TEST(SweepRunPlan, PointToPointTestsRunTheDefaultOnly) {
  SweepSpec spec = allReduceSpec();
  spec.test = "alltoall_perf";
  spec.algorithms = {"ring"};
  spec.repeats = 2;
  const Plan plan = makePlan(spec);
  EXPECT_EQ(idsOf(plan), (std::vector<std::string>{"alltoall.default.r0", "alltoall.default.r1"}));
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("point-to-point"), std::string::npos);
}

TEST(SweepRunPlan, NeverOfferedFollowsNcclTuning) {
  const auto choice = [](const char* a, const char* p) {
    Choice c;
    c.algorithm = a;
    c.protocol = p;
    return c;
  };
  EXPECT_EQ(neverOffered("allreduce", choice("ring", "ll")), "");
  EXPECT_EQ(neverOffered("allreduce", choice("nvls", "simple")), "");
  EXPECT_EQ(neverOffered("allreduce", choice("collnet_direct", "simple")), "");  // NCCL decides at run time
  EXPECT_NE(neverOffered("allreduce", choice("pat", "simple")), "");
  EXPECT_NE(neverOffered("allreduce", choice("nvls_tree", "ll128")), "");
  EXPECT_NE(neverOffered("reducescatter", choice("tree", "simple")), "");
  EXPECT_NE(neverOffered("allgather", choice("collnet_chain", "simple")), "");
  EXPECT_EQ(neverOffered("allgather", choice("collnet_direct", "simple")), "");
  EXPECT_NE(neverOffered("reduce", choice("nvls", "simple")), "");
}

TEST(SweepRunPlan, UnknownNamesAreRejected) {
  SweepSpec spec = allReduceSpec();
  spec.algorithms = {"Ring"};  // the CLI turns NCCL's spelling into the rules' one first
  EXPECT_THROW(makePlan(spec), std::invalid_argument);
  spec = allReduceSpec();
  spec.channels = {65};
  EXPECT_THROW(makePlan(spec), std::invalid_argument);
  spec = allReduceSpec();
  spec.test = "frobnicate_perf";
  EXPECT_THROW(makePlan(spec), std::invalid_argument);
}

TEST(SweepRunPlan, OpenMpiGetsEachVariableWithX) {
  SweepSpec spec = allReduceSpec();
  spec.launcher = {"/usr/bin/mpirun", "-np", "16", "--bind-to", "none"};
  spec.algorithms = {"ring"};
  spec.protocols = {"ll"};
  spec.json = true;
  const Plan plan = makePlan(spec);
  const PlannedRun& run = runWithId(plan, "allreduce.ring-ll.r0");
  EXPECT_EQ(run.command, (std::vector<std::string>{"/usr/bin/mpirun",
                                                   "-np",
                                                   "16",
                                                   "--bind-to",
                                                   "none",
                                                   "-x",
                                                   "NCCL_ALGO",
                                                   "-x",
                                                   "NCCL_DEBUG",
                                                   "-x",
                                                   "NCCL_PROTO",
                                                   "-x",
                                                   "RAILTUNE_SWEEP_RUN_ID",
                                                   "/opt/nccl-tests/build/all_reduce_perf",
                                                   "-b",
                                                   "8",
                                                   "-e",
                                                   "16G",
                                                   "-f",
                                                   "2",
                                                   "-g",
                                                   "8",
                                                   "-J",
                                                   "/sweeps/a/runs/allreduce.ring-ll.r0.json"}));
  EXPECT_EQ(run.json, "runs/allreduce.ring-ll.r0.json");

  spec.launcher = {"srun", "-N", "2"};
  const Plan srunPlan = makePlan(spec);
  const PlannedRun& srun = runWithId(srunPlan, "allreduce.ring-ll.r0");
  EXPECT_EQ(srun.command[0], "srun");
  EXPECT_EQ(srun.command[3], "/opt/nccl-tests/build/all_reduce_perf");
  EXPECT_TRUE(launcherNeedsExport({"mpiexec"}));
  EXPECT_FALSE(launcherNeedsExport({"mpiexec.hydra"}));
  EXPECT_FALSE(launcherNeedsExport({}));
}

TEST(SweepRunPlan, TestNameFromTheBinary) {
  EXPECT_EQ(testFromBinaryName("all_reduce_perf"), "all_reduce_perf");
  EXPECT_EQ(testFromBinaryName("/opt/nccl-tests/build/all_gather_perf_mpi"), "all_gather_perf");
  EXPECT_EQ(testFromBinaryName("reduce_scatter_perf"), "reduce_scatter_perf");
  EXPECT_EQ(testFromBinaryName("./reduce_perf"), "reduce_perf");
  EXPECT_EQ(testFromBinaryName("tests/data/sweep/fake_all_reduce_perf"), "all_reduce_perf");
  EXPECT_EQ(testFromBinaryName("sendrecv_perf"), "sendrecv_perf");
  EXPECT_EQ(testFromBinaryName("all_reduce"), std::nullopt);
  EXPECT_EQ(testFromBinaryName("myreduce_perf"), std::nullopt);
  EXPECT_EQ(collectiveOfTest("reduce_scatter_perf"), "reducescatter");
  EXPECT_EQ(collectiveOfTest("broadcast_perf"), "broadcast");
  EXPECT_EQ(collectiveOfTest("nope_perf"), "");
}

TEST(SweepRunPlan, LauncherWordsSplitLikeAShell) {
  EXPECT_EQ(splitCommandLine("srun -N 2  --ntasks-per-node=4"),
            (std::vector<std::string>{"srun", "-N", "2", "--ntasks-per-node=4"}));
  EXPECT_EQ(splitCommandLine("mpirun -H 'a:8,b:8' --mca btl \"^openib tcp\" a\\ b ''"),
            (std::vector<std::string>{"mpirun", "-H", "a:8,b:8", "--mca", "btl", "^openib tcp", "a b", ""}));
  EXPECT_EQ(splitCommandLine("\"say \\\"hi\\\"\""), (std::vector<std::string>{"say \"hi\""}));
  EXPECT_TRUE(splitCommandLine("   ").empty());
  EXPECT_THROW(splitCommandLine("srun 'oops"), std::invalid_argument);
  EXPECT_THROW(splitCommandLine("srun \"oops"), std::invalid_argument);
}

TEST(SweepRunPlan, DefaultLabel) {
  EXPECT_EQ(idLabel(Choice{}), "default");
}

}  // namespace
}  // namespace railtune::sweep
