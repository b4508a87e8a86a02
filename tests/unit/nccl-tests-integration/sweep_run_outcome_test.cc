// railtune_sweep_run's classification of a finished run (nccl-tests-integration/run/outcome.h): ok, rejected by
// NCCL in the words of each NCCL era, failed. The outputs are shaped as nccl-tests and NCCL print them
// (docs: nccl-tests-formats notes §5; the recorded tables of tests/data/sweep).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "nccl-tests-integration/run/outcome.h"

namespace railtune::sweep {
namespace {

std::string outcomeFileText(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string recorded(const char* name) {
  return outcomeFileText(std::string(RAILTUNE_SWEEP_DATA) + "/recorded/" + name);
}

// The lines nccl-tests prints before the table (v2.19.6).
const std::string kHeader =
    "# nccl-tests version 2.19.6 nccl-headers=22807 nccl-library=22807\n"
    "# Collective test starting: all_reduce_perf\n"
    "# nThread 1 nGpus 4 minBytes 262144 maxBytes 268435456 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 "
    "validation: 1 graph: 0 unalign: 0\n"
    "#\n# Using devices\n"
    "#  Rank  0 Group  0 Pid  41230 on gb300-r01-t01 device  0 [0008:01:00] NVIDIA GB300\n";

ProcessEnd exited(int status) {
  ProcessEnd end;
  end.exitCode = status;
  return end;
}

TEST(SweepRunOutcome, ExitZeroWithATableIsOk) {
  const Outcome outcome = classifyRun(recorded("g8/ring-ll128.txt"), "", exited(0));
  EXPECT_EQ(outcome.status, RunStatus::Ok);
  EXPECT_EQ(outcome.rows, 11u);
  EXPECT_EQ(outcome.reason, "");
}

TEST(SweepRunOutcome, RejectedByNccl228) {
  const std::string output =
      kHeader +
      "\n[2026-07-09 10:00:00] gb300-r01-t01:41230:41230 [0] enqueue.cc:1859 NCCL WARN Error : no algorithm/protocol "
      "available for function AllReduce with datatype ncclFloat32. NCCL_ALGO was set to NVLS. NCCL_PROTO was set to "
      "LL.\n"
      "gb300-r01-t01: Test NCCL failure common.cu:619 'invalid usage (run with NCCL_DEBUG=WARN for details) / Error : "
      "no algorithm/protocol available for function AllReduce with datatype ncclFloat32. NCCL_ALGO was set to NVLS. "
      "NCCL_PROTO was set to LL.'\n"
      " .. gb300-r01-t01 pid 41230: Test failure common.cu:928\n";
  const Outcome outcome = classifyRun(output, "", exited(3));
  EXPECT_EQ(outcome.status, RunStatus::Rejected);
  EXPECT_EQ(outcome.reason,
            "NCCL WARN Error : no algorithm/protocol available for function AllReduce with datatype ncclFloat32. "
            "NCCL_ALGO was set to NVLS. NCCL_PROTO was set to LL.");
}

TEST(SweepRunOutcome, RejectedByNccl230) {
  const std::string output =
      kHeader +
      "\n[2026-07-09 10:00:00] [0] enqueue.cc:2063 (ncclGetAlgoInfo) NCCL WARN No algorithm/protocol available for "
      "function ReduceScatter with datatype ncclBfloat16. NCCL_ALGO was set to PAT.\n"
      "gb300-r01-t01: Test NCCL failure reduce_scatter.cu:49 'invalid usage (run with NCCL_DEBUG=WARN for details) / "
      "No algorithm/protocol available for function ReduceScatter with datatype ncclBfloat16. NCCL_ALGO was set to "
      "PAT.'\n";
  const Outcome outcome = classifyRun(output, "", exited(3));
  EXPECT_EQ(outcome.status, RunStatus::Rejected);
  EXPECT_EQ(outcome.reason.rfind("NCCL WARN No algorithm/protocol available for function ReduceScatter", 0), 0u);
}

TEST(SweepRunOutcome, RejectedByNccl218InternalError) {
  // NCCL 2.5-2.23: the bare WARN and ncclInternalError; nccl-tests 2.13+ repeats the last WARN after " / ".
  const std::string output =
      kHeader +
      "\nnode-a:1234:1240 [0] enqueue.cc:1184 NCCL WARN Error : no algorithm/protocol available\n"
      "node-a: Test NCCL failure common.cu:958 'internal error - please report this issue to the NCCL developers / "
      "Error : no algorithm/protocol available'\n";
  const Outcome outcome = classifyRun(output, "", exited(3));
  EXPECT_EQ(outcome.status, RunStatus::Rejected);
  EXPECT_EQ(outcome.reason, "NCCL WARN Error : no algorithm/protocol available");
}

TEST(SweepRunOutcome, RejectedWithoutAWarnLine) {
  // NCCL_DEBUG left unset by the user's launcher: only nccl-tests' line carries NCCL's last error.
  const std::string output =
      kHeader +
      "[1,0]<stdout>:node-a: Test NCCL failure all_reduce.cu:507 'invalid usage (run with NCCL_DEBUG=WARN for "
      "details) / Error : no algorithm/protocol available for function AllReduce with datatype ncclFloat32. NCCL_ALGO "
      "was set to CollnetDirect.'\n";
  const Outcome outcome = classifyRun(output, "", exited(3));
  EXPECT_EQ(outcome.status, RunStatus::Rejected);
  EXPECT_EQ(outcome.reason.rfind("Test NCCL failure all_reduce.cu:507 'invalid usage", 0), 0u);
}

TEST(SweepRunOutcome, RejectedTokenAtInit) {
  const std::string output =
      kHeader +
      "\n[2026-07-09 10:00:00] node-a:1:1 [0] tuning.cc:104 NCCL WARN Unrecognized element token \"ringg\" when "
      "parsing \"ringg\"\n"
      "node-a: Test NCCL failure common.cu:1648 'invalid usage (run with NCCL_DEBUG=WARN for details) / Unrecognized "
      "element token \"ringg\" when parsing \"ringg\"'\n";
  const Outcome outcome = classifyRun(output, "", exited(3));
  EXPECT_EQ(outcome.status, RunStatus::Rejected);
  EXPECT_EQ(outcome.reason, "NCCL WARN Unrecognized element token \"ringg\" when parsing \"ringg\"");
}

TEST(SweepRunOutcome, RejectionOutlivesTheTimeoutItCaused) {
  // One rank refused; the others waited until the sweep's timeout killed them.
  ProcessEnd end;
  end.timedOut = true;
  end.timeoutSeconds = 600;
  end.signal = 15;
  end.exitCode = 143;
  const Outcome outcome = classifyRun(kHeader +
                                          "node-a:1:2 [3] enqueue.cc:1966 NCCL WARN Error : no "
                                          "algorithm/protocol available for function AllGather with datatype "
                                          "ncclInt8. NCCL_ALGO was set to NVLS.\n",
                                      "", end);
  EXPECT_EQ(outcome.status, RunStatus::Rejected);
}

TEST(SweepRunOutcome, FailedWithTheLineThatSaysWhy) {
  const Outcome cuda = classifyRun(
      kHeader + "gb300-r01-t01: Test CUDA failure common.cu:1021 'unspecified launch failure'\n", "", exited(3));
  EXPECT_EQ(cuda.status, RunStatus::Failed);
  EXPECT_EQ(cuda.reason, "exit status 3: gb300-r01-t01: Test CUDA failure common.cu:1021 'unspecified launch failure'");

  const Outcome bare = classifyRun(kHeader, "", exited(3));
  EXPECT_EQ(bare.status, RunStatus::Failed);
  EXPECT_EQ(bare.reason, "exit status 3, no table");

  const Outcome launcher =
      classifyRun("srun: error: Unable to allocate resources: Invalid partition name specified\n", "", exited(1));
  EXPECT_EQ(launcher.reason,
            "exit status 1: srun: error: Unable to allocate resources: Invalid partition name specified");

  const Outcome noTable = classifyRun(kHeader, "", exited(0));
  EXPECT_EQ(noTable.status, RunStatus::Failed);
  EXPECT_EQ(noTable.reason, "no table in the output (exit status 0)");

  // A table with wrong values: nccl-tests exits non-zero (return testNumResults, v2.17.3+).
  std::string wrong = recorded("g4/default.txt");
  wrong.replace(wrong.find("0 OK"), 4, "3 FAILED");
  const Outcome bad = classifyRun(wrong, "", exited(1));
  EXPECT_EQ(bad.status, RunStatus::Failed);
  EXPECT_EQ(bad.reason, "exit status 1: # Out of bounds values : 3 FAILED");
  EXPECT_EQ(bad.rows, 11u);
}

TEST(SweepRunOutcome, FailedByTimeoutSignalInterruptOrStart) {
  ProcessEnd timeout;
  timeout.timedOut = true;
  timeout.timeoutSeconds = 2.5;
  timeout.signal = 15;
  timeout.exitCode = 143;
  EXPECT_EQ(classifyRun(kHeader, "", timeout).reason, "timed out after 2.5 s (--timeout): killed");

  ProcessEnd killed;
  killed.signal = 9;
  killed.exitCode = 137;
  const Outcome k = classifyRun(kHeader, "", killed);
  EXPECT_EQ(k.status, RunStatus::Failed);
  EXPECT_EQ(k.reason.rfind("killed by signal 9", 0), 0u);

  ProcessEnd interrupted;
  interrupted.interrupted = true;
  interrupted.signal = 2;
  interrupted.exitCode = 130;
  // Interrupted even when it had already printed a table: the run is not trusted.
  EXPECT_EQ(classifyRun(recorded("g8/default.txt"), "", interrupted).reason, "interrupted");
  EXPECT_EQ(classifyRun(recorded("g8/default.txt"), "", interrupted).status, RunStatus::Failed);

  ProcessEnd notStarted;
  notStarted.startError = "cannot run srun: not found in PATH";
  notStarted.exitCode = 127;
  EXPECT_EQ(classifyRun("", "", notStarted).reason, "cannot run srun: not found in PATH");
}

TEST(SweepRunOutcome, JsonRowsCountWhenTheTextHasNone) {
  const std::string json =
      "{\"version\":3,\"config\":{\"nthreads\":1,\"ngpus\":1,\"devices\":[]},\"results\":[{\"size\":1024,\"count\":256,"
      "\"type\":\"float\",\"redop\":\"sum\",\"root\":\"    -1\",\"out_of_place\":{\"time\":9.5,\"alg_bw\":0.1,"
      "\"bus_bw\":0.1,\"nwrong\":0.0},\"in_place\":{\"time\":9.4,\"alg_bw\":0.1,\"bus_bw\":0.1,\"nwrong\":0.0}}]}";
  EXPECT_EQ(tableRows("# nothing\n", json), 1u);
  EXPECT_EQ(classifyRun("# nothing\n", json, exited(0)).status, RunStatus::Ok);
  EXPECT_EQ(tableRows("# nothing\n", "{\"version\":3,\"res"), 0u);
}

TEST(SweepRunOutcome, RecordedTablesAreReadable) {
  for (const char* name : {"g4/default.txt", "g8/ring-ll128.txt", "g16/nvls-simple.txt"})
    EXPECT_EQ(tableRows(recorded(name), ""), 11u) << name;
}

}  // namespace
}  // namespace railtune::sweep
