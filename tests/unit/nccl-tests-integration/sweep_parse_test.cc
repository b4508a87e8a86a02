// The reader of nccl-tests' text output (nccl-tests-integration/parse/nccl_tests_text.h): one snippet per format
// era, written from nccl-tests' own printf strings (common.cu / util.cu of the tag named beside each), and the
// published samples of the shared data folder (skipped with a message where it is absent).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "nccl-tests-integration/parse/nccl_tests_json.h"
#include "nccl-tests-integration/parse/nccl_tests_text.h"

namespace railtune::sweep {
namespace {

// v2.17.4+: version line, "Collective test starting", one header with redop/root/#wrong (two spaces before it).
constexpr const char* kCurrent = R"(# nccl-tests version 2.19.6 nccl-headers=23007 nccl-library=23007
# Collective test starting: all_reduce_perf
# nThread 1 nGpus 1 minBytes 8 maxBytes 128 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0
#
# Using devices
#  Rank  0 Group  0 Pid   4121 on gb300-r01-t05 device  0 [0000:04:00] NVIDIA GB300
#  Rank  1 Group  0 Pid   4122 on gb300-r01-t05 device  1 [0000:05:00] NVIDIA GB300
#
#                                                              out-of-place                       in-place          
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong 
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         
           8             2     float     sum      -1    12.34    0.00    0.00       0    12.10    0.00    0.00       0
         128            32     float     sum      -1    13.00    0.01    0.01       2    12.90    0.01    0.01       0
# Out of bounds values : 2 FAILED
# Avg bus bandwidth    : 0.005 
#
# Collective test concluded: all_reduce_perf
)";

TEST(SweepParse, CurrentFormatWithVersionDevicesAndWrongValues) {
  const ParsedText parsed = parseNcclTestsText(kCurrent);
  ASSERT_EQ(parsed.runs.size(), 1u);
  EXPECT_TRUE(parsed.diagnostics.empty());
  const TestRun& run = parsed.runs[0];
  EXPECT_EQ(run.testsVersion, "2.19.6");
  EXPECT_EQ(run.ncclLibrary, 23007);
  EXPECT_EQ(run.collective, "all_reduce_perf");
  EXPECT_EQ(run.parameters.at("warmup iters"), "1");
  EXPECT_EQ(run.parameters.at("nGpus"), "1");
  ASSERT_EQ(run.devices.size(), 2u);
  EXPECT_EQ(run.devices[1].pid, 4122);
  EXPECT_EQ(run.devices[1].busId, "0000:05:00");
  EXPECT_EQ(run.devices[1].gpu, "NVIDIA GB300");
  ASSERT_EQ(run.rows.size(), 2u);
  EXPECT_EQ(run.rows[1].size, 128u);
  EXPECT_EQ(run.rows[1].count, 32u);
  EXPECT_EQ(run.rows[1].redop, "sum");
  EXPECT_EQ(run.rows[1].root.value_or(0), -1);
  EXPECT_DOUBLE_EQ(run.rows[1].outOfPlace.timeUs.value_or(0), 13.0);
  EXPECT_DOUBLE_EQ(run.rows[1].outOfPlace.wrong.value_or(0), 2) << "#wrong kept, for the dataset to flag";
  EXPECT_EQ(run.outOfBounds.value_or(0), 2);
  EXPECT_DOUBLE_EQ(run.averageBusbw.value_or(0), 0.005);
}

TEST(SweepParse, TwoNineEraPerCollectiveHeaderWithErrorColumnBehindMpiPrefixes) {
  // v2.0-v2.9: "#   Rank %2d Pid %6d on %10s device %2d [0x%02x] %s"; all_reduce's header without root.
  const ParsedText parsed = parseNcclTestsText(
      "[1,0]<stdout>:# nThread 1 nGpus 1 minBytes 8 maxBytes 64 step: 2(factor) warmup iters: 5 iters: 20 validation: "
      "1 \n"
      "[1,0]<stdout>:#   Rank  0 Pid     25 on     node-0 device  0 [0x10] A100-SXM4-40GB\n"
      "[1,0]<stdout>:#       size         count    type   redop     time   algbw   busbw  error     time   algbw   "
      "busbw  error\n"
      "[1,0]<stdout>:node-0:25:25 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n"
      "[1,0]<stdout>:           8             2   float     sum    34.94    0.00    0.00  2e-07    34.14    0.00    "
      "0.00  2e-07\n"
      "[1,0]<stdout>:# Avg bus bandwidth    : 0.01 \n");
  ASSERT_EQ(parsed.runs.size(), 1u);
  const TestRun& run = parsed.runs[0];
  EXPECT_EQ(run.devices.at(0).busId, "0x10");
  EXPECT_EQ(run.devices.at(0).group, -1);
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_FALSE(run.rows[0].root) << "no root column before 2.13";
  EXPECT_DOUBLE_EQ(run.rows[0].inPlace.timeUs.value_or(0), 34.14);
  EXPECT_DOUBLE_EQ(run.rows[0].outOfPlace.wrong.value_or(0), 2e-07);
  EXPECT_EQ(run.forced.at("NCCL_ALGO"), "Ring");
}

TEST(SweepParse, NotApplicableValuesHypercubeAndSplitRows) {
  const ParsedText parsed = parseNcclTestsText(
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
      "#wrong\n"
      // alltoall: in-place N/A (v2.13.1+)
      "        1024            32     float    none      -1    20.10    0.05    0.05      0      N/A     N/A     N/A   "
      " "
      "N/A\n"
      // hypercube prints an empty redop: one token fewer
      "        2048            64     float              -1    21.00    0.10    0.09      0    20.90    0.10    0.09   "
      "   0\n"
      // the row's preamble, then an NCCL INFO line, then its numbers (NVIDIA/nccl #1453)
      "        4096           128     float     sum      -1\n"
      "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
      "    22.00    0.19    0.18      0    21.50    0.19    0.18      0\n"
      "        8192\n");
  ASSERT_EQ(parsed.runs.size(), 1u);
  const TestRun& run = parsed.runs[0];
  ASSERT_EQ(run.rows.size(), 3u);
  EXPECT_FALSE(run.rows[0].inPlace.busbwGBps);
  EXPECT_DOUBLE_EQ(run.rows[0].outOfPlace.busbwGBps.value_or(0), 0.05);
  EXPECT_EQ(run.rows[1].redop, "");
  EXPECT_EQ(run.rows[1].root.value_or(0), -1);
  EXPECT_EQ(run.rows[2].size, 4096u);
  EXPECT_DOUBLE_EQ(run.rows[2].inPlace.timeUs.value_or(0), 21.5);
  ASSERT_EQ(parsed.diagnostics.size(), 1u);
  EXPECT_EQ(parsed.diagnostics[0].line, 7) << "the row cut after its size";
}

TEST(SweepParse, APreambleWithoutItsNumbersIsSaidAndTheNextRowStillRead) {
  const ParsedText parsed = parseNcclTestsText(
      "        4096           128     float     sum      -1\n"
      "        8192           256     float     sum      -1    23.00    0.36    0.36      0    22.50    0.36    0.36   "
      "   0\n");
  ASSERT_EQ(parsed.runs.size(), 1u);
  ASSERT_EQ(parsed.runs[0].rows.size(), 1u);
  EXPECT_EQ(parsed.runs[0].rows[0].size, 8192u);
  ASSERT_EQ(parsed.diagnostics.size(), 1u);
  EXPECT_EQ(parsed.diagnostics[0].line, 1);
}

TEST(SweepParse, SeveralRunsFailuresAndOtherProgramsLines) {
  const ParsedText parsed = parseNcclTestsText(
      "$ mpirun -np 2 ./all_reduce_perf\n"
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 "
      "graph: 0\n"
      "           8             2     float     sum      -1    10.00    0.00    0.00      0    10.00    0.00    0.00   "
      "   0\n"
      "# Avg bus bandwidth    : 0 \n"
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 "
      "graph: 0\n"
      "node-0:  Test NCCL failure all_reduce.cu:44 'invalid usage (run with NCCL_DEBUG=WARN for details) / '\n"
      "3: # nThread 1 nGpus 1 minBytes 16 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
      "validation: 1 graph: 0\n"
      "3:           16             4     float     sum      -1    11.00    0.00    0.00      0    11.00    0.00    "
      "0.00      0\n");
  ASSERT_EQ(parsed.runs.size(), 3u);
  EXPECT_EQ(parsed.runs[0].rows.size(), 1u);
  EXPECT_TRUE(parsed.runs[1].rows.empty());
  ASSERT_EQ(parsed.runs[1].ncclFailures.size(), 1u);
  EXPECT_NE(parsed.runs[1].ncclFailures[0].find("invalid usage"), std::string::npos);
  EXPECT_EQ(parsed.runs[2].rows.at(0).size, 16u) << "srun --label's '3: ' prefix";
  EXPECT_TRUE(parsed.diagnostics.empty());
}

// Issue 28: a row that no measurement can be is a bad row, counted and named by its line, never a row; a row glued
// to an INFO line that lost its newline is read from inside the line.
TEST(SweepParse, ImpossibleValuesAreCountedBadRowsNamingTheirLineAndReason) {
  const std::string header =
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw "
      "#wrong\n";
  const std::string rest = "    20.90    0.10    0.09      0\n";
  const ParsedText parsed = parseNcclTestsText(
      header +                                                                                         // line 1
      "        2048            64     float     sum      -1    21.00    0.10    0.09      0" + rest +  // 2: good
      "        2048            64     float     sum      -1    21.00    0.10    0.09      0    20.90    0.10    0.09 "
      "     0  oops not numbers\n" +  // 3
      "    -2097152            64     float     sum      -1    21.00    0.10    0.09      0" +
      rest +                                                                                               // 4
      "18446744073709551616    64     float     sum      -1    21.00    0.10    0.09      0" + rest +      // 5
      "        2048            64     float     sum      -1    21.00    0.10     nan      0" + rest +      // 6
      "        2048            64     float     sum      -1    21.00     inf    0.09      0" + rest +      // 7
      "        2048            64     float     sum      -1    21.00    0.10  -94.94      0" + rest +      // 8
      "        2048            64     float     sum      -1    21.00    0.10   1e308      0" + rest +      // 9
      "        2048            64     float     sum      -1     0.00    0.10    0.09      0" + rest +      // 10
      "        2048            64     float     sum      -1    21.00    0.10    0.09     -1" + rest +      // 11
      "        2048            64     float     sum      -1    21.00    0.10    0.09    0.5" + rest +      // 12
      "        2048            64     float     sum      -1    21.00    0.10    0.09      0    20.90\n" +  // 13
      "        2048           abc     float     sum      -1    21.00    0.10    0.09      0" + rest +      // 14
      "        2048            64     float     sum      -1    21.00    0.10    fast      0" + rest +      // 15
      // 16: a ring's ranks at the end of an INFO line are no row
      "h:1:2 [0] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7   8   9  10  11  12  13  14  15\n"
      // 17, 18: an INFO line without its newline, the row after it glued on (after a space, then after a word)
      "h:1:2 [0] NCCL INFO comm 0x1 rank 0 nRanks 4 - Init COMPLETE        4096           128     float     sum      "
      "-1    22.00    0.19    0.18      0    21.50    0.19    0.18      0\n"
      "h:1:2 [0] NCCL INFO Connected all rings8192 256 float sum -1 23.00 0.36 0.36 0 22.50 0.36 0.36 0\n"
      // 19: the other way round: a row without its newline, then an INFO line
      "       16384           512     float     sum      -1    24.00    0.68    0.68      0    23.50    0.70    0.70  "
      "    0h:1:2 [0] NCCL INFO Connected all trees\n");
  ASSERT_EQ(parsed.runs.size(), 1u);
  const std::vector<Row>& rows = parsed.runs[0].rows;
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].line, 2);
  EXPECT_EQ(rows[1].line, 17);
  EXPECT_EQ(rows[1].size, 4096u);
  EXPECT_DOUBLE_EQ(rows[1].inPlace.timeUs.value_or(0), 21.5);
  EXPECT_EQ(rows[2].line, 18);
  EXPECT_EQ(rows[2].size, 8192u);
  const std::vector<std::pair<int, std::string>> expected = {
      {3, "16 columns where the header has 13"},
      {4, "size -2097152 is negative"},
      {5, "size '18446744073709551616' is over 2^48 bytes"},
      {6, "out-of-place busbw nan is not a number"},
      {7, "out-of-place algbw inf is not finite"},
      {8, "out-of-place busbw -94.94 is negative"},
      {9, "out-of-place busbw 1e+308 is over 100000 GB/s (100 TB/s)"},
      {10, "out-of-place time 0 is zero"},
      {11, "out-of-place #wrong -1 is negative"},
      {12, "out-of-place #wrong 0.5 is not a whole count"},
      {13, "a result row cut short (10 of 13 columns)"},
      {14, "count 'abc' is not a whole number within 2^64"},
      {15, "busbw 'fast' is not a number"},
      {19, "a result row runs into an NCCL INFO line (its newline lost): its last value is unreadable"},
  };
  ASSERT_EQ(parsed.diagnostics.size(), expected.size());
  EXPECT_EQ(parsed.badRows, expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(parsed.diagnostics[i].line, expected[i].first);
    EXPECT_EQ(parsed.diagnostics[i].message, expected[i].second);
    EXPECT_TRUE(parsed.diagnostics[i].badRow);
  }
}

// The rows of a run reach the sink as they are read, before the run ends: a long output is never held.
TEST(SweepParse, TheStreamedReaderHandsRowsOverAsTheyAreRead) {
  struct Counting : TextSink {
    size_t rows = 0, runs = 0, rowsAtFirstRunEnd = 0;
    void row(const TestRun& run, Row&& row) override {
      EXPECT_TRUE(run.rows.empty());
      EXPECT_EQ(run.collective, "all_reduce_perf");
      EXPECT_EQ(row.size, 8u);
      ++rows;
    }
    void runEnd(TestRun&&) override { ++runs; }
    void diagnostic(Diagnostic&&) override { ADD_FAILURE(); }
  } sink;
  NcclTestsTextReader reader(sink);
  int number = 0;
  reader.line("# Collective test starting: all_reduce_perf", ++number);
  for (int i = 0; i < 10000; ++i)
    reader.line(
        "           8             2     float     sum      -1    12.34    0.00    0.00       0    12.10    "
        "0.00    0.00       0",
        ++number);
  EXPECT_EQ(sink.rows, 10000u);
  EXPECT_EQ(sink.runs, 0u);
  reader.finish();
  EXPECT_EQ(sink.runs, 1u);
}

// -J's file as nccl-tests 2.17.5 writes it (util.cu): one line, booleans as strings, root as "%6i", the misspelt
// average of 2.17.3-2.17.8, "nan" for a number, a null #wrong.
constexpr const char* kJson2175 =
    R"({"version":1,"start_time":"2025-11-02 10:00:00","args":["/opt/nccl-tests/build/all_reduce_perf","-b","8"],)"
    R"("env":["NCCL_ALGO=Ring","NCCL_PROTO=LL128","PATH=/usr/bin"],"nccl_version":22703,)"
    R"("config":{"nthreads":1,"ngpus":1,"minimum_bytes":8,"maximum_bytes":16,"step_factor":2,"warmup_iters":1,)"
    R"("iterations":20,"aggregated_iterations":1,"validation":1,"graph":0,"blocking_collectives":"false",)"
    R"("parallel_init":"false","devices":[{"rank":0,"group":0,"pid":77,"hostname":"gb-1","device":0,)"
    R"("device_hex":"0000:04:00","device_info":"NVIDIA GB300"}]},)"
    R"("results":[{"size":8,"count":2,"type":"float","redop":"sum","root":"    -1",)"
    R"("out_of_place":{"time":12.5,"alg_bw":0.0,"bus_bw":0.0,"nwrong":0.0},)"
    R"("in_place":{"time":"nan","alg_bw":0.0,"bus_bw":0.0,"nwrong":null},"actual_iterations":20,"experiment_name":""},)"
    R"({"size":16,"count":4,"type":"float","redop":"sum","root":"    -1",)"
    R"("out_of_place":{"cpu_time":13.0,"alg_bw":0.001,"bus_bw":0.002,"nwrong":0.0},)"
    R"("in_place":{"cpu_time":12.9,"alg_bw":0.001,"bus_bw":0.002,"nwrong":0.0},"actual_iterations":20,"experiment_name":""}],)"
    R"("out_of_bounds":{"count":0,"okay":"true"},"average_bus_bandwidith":{"bandwidith":0.001,"okay":"unchecked"},)"
    R"("errors":[""],"end_time":"2025-11-02 10:00:01"})";

TEST(SweepParseJson, AFileOfTwoSeventeenWithItsQuirks) {
  const ParsedText parsed = parseNcclTestsJson(kJson2175);
  EXPECT_TRUE(parsed.diagnostics.empty());
  ASSERT_EQ(parsed.runs.size(), 1u);
  const TestRun& run = parsed.runs[0];
  EXPECT_EQ(run.collective, "all_reduce_perf");
  EXPECT_EQ(run.ncclLibrary, 22703);
  EXPECT_EQ(run.forced.at("NCCL_ALGO"), "Ring");
  EXPECT_EQ(run.forced.at("NCCL_PROTO"), "LL128");
  EXPECT_FALSE(run.forced.contains("PATH"));
  EXPECT_EQ(run.parameters.at("blocking_collectives"), "false");
  ASSERT_EQ(run.devices.size(), 1u);
  EXPECT_EQ(run.devices[0].busId, "0000:04:00");
  ASSERT_EQ(run.rows.size(), 2u);
  EXPECT_EQ(run.rows[0].root.value_or(0), -1);
  EXPECT_FALSE(run.rows[0].inPlace.timeUs) << "\"nan\"";
  EXPECT_FALSE(run.rows[0].inPlace.wrong) << "null";
  EXPECT_DOUBLE_EQ(run.rows[1].outOfPlace.timeUs.value_or(0), 13.0) << "cpu_time with -C";
  EXPECT_DOUBLE_EQ(run.averageBusbw.value_or(0), 0.001);
  EXPECT_EQ(run.outOfBounds.value_or(-1), 0);
  EXPECT_TRUE(run.ncclFailures.empty());
}

TEST(SweepParseJson, ACutFileIsOneDiagnostic) {
  const std::string json = kJson2175;
  const ParsedText parsed = parseNcclTestsJson(json.substr(0, json.size() / 2));
  EXPECT_TRUE(parsed.runs.empty());
  ASSERT_EQ(parsed.diagnostics.size(), 1u);
  EXPECT_NE(parsed.diagnostics[0].message.find("cut short"), std::string::npos);
  EXPECT_TRUE(parseNcclTestsJson("[1,2]").runs.empty());
  EXPECT_EQ(parseNcclTestsJson(R"({"results":[1,{"size":8}]})").diagnostics.size(), 1u);
}

TEST(SweepParseJson, ImpossibleValuesAreCountedBadRows) {
  const ParsedText parsed = parseNcclTestsJson(
      R"({"results":[{"size":-8,"count":2,"out_of_place":{"time":1.0,"alg_bw":0.1,"bus_bw":0.1,"nwrong":0}},)"
      R"({"size":8,"count":2,"out_of_place":{"time":1.0,"alg_bw":0.1,"bus_bw":1e308,"nwrong":0}},)"
      R"({"size":8,"count":2,"out_of_place":{"time":1.0,"alg_bw":0.1,"bus_bw":-94.94,"nwrong":0}},)"
      R"({"size":8,"count":2,"out_of_place":{"time":1.0,"alg_bw":0.1,"bus_bw":0.1,"nwrong":0}}]})");
  ASSERT_EQ(parsed.runs.size(), 1u);
  EXPECT_EQ(parsed.runs[0].rows.size(), 1u);
  EXPECT_EQ(parsed.badRows, 3u);
  ASSERT_EQ(parsed.diagnostics.size(), 3u);
  EXPECT_EQ(parsed.diagnostics[0].message, "results[0]: size is negative or not an integer");
  EXPECT_EQ(parsed.diagnostics[1].message, "results[1]: out-of-place busbw 1e+308 is over 100000 GB/s (100 TB/s)");
  EXPECT_EQ(parsed.diagnostics[2].message, "results[2]: out-of-place busbw -94.94 is negative");
}

std::string sample(const char* name) {
  return std::string(RAILTUNE_SHARED_DATA) + "/" + name;
}

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

#define REQUIRE_SAMPLE(path) \
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent (no shared data folder beside the checkout)";

TEST(SweepParseSamples, PublishedOutputsOfEachEra) {
  struct Expected {
    const char* file;
    size_t runs;
    size_t rowsOfLast;
    size_t devicesOfFirst;
  };
  // nccl-tests/: E3 fragments (GB200), E4 (H100 a3mega), two E3 runs (H200); nccl-logs/: E1 behind mpirun's
  // prefixes with NCCL INFO lines (2.9), E1b (2.11).
  const Expected samples[] = {
      {"nccl-tests/gb200-nvl72-1rack-72gpu-allreduce-coreweave.txt", 1, 5, 1},
      // The second fragment's "Rank 1439" line follows the first fragment's footer: it is the second run's.
      {"nccl-tests/gb200-nvl72-multirack-144-and-1440gpu-allreduce-coreweave.txt", 2, 6, 1},
      {"nccl-tests/h100-a3mega-2node-16gpu-allreduce-full.txt", 1, 31, 16},
      {"nccl-tests/h200-2node-16gpu-cx7-ib-baremetal-vs-vm-allreduce.txt", 2, 6, 16},
      {"nccl-logs/01-aws-efa-eks-ofi-2.9.9.log", 1, 30, 16},
      {"nccl-logs/02-aws-hpc-tutorials-socket-2.11.4.log", 1, 25, 2},
  };
  REQUIRE_SAMPLE(sample(samples[0].file));
  for (const Expected& e : samples) {
    const ParsedText parsed = parseNcclTestsText(readAll(sample(e.file)));
    EXPECT_TRUE(parsed.diagnostics.empty()) << e.file;
    ASSERT_EQ(parsed.runs.size(), e.runs) << e.file;
    EXPECT_EQ(parsed.runs.back().rows.size(), e.rowsOfLast) << e.file;
    EXPECT_EQ(parsed.runs.front().devices.size(), e.devicesOfFirst) << e.file;
    for (const TestRun& run : parsed.runs) {
      EXPECT_TRUE(run.averageBusbw) << e.file;
      for (const Row& row : run.rows) {
        EXPECT_TRUE(row.outOfPlace.busbwGBps) << e.file << ":" << row.line;
        EXPECT_EQ(row.type, "float") << e.file << ":" << row.line;
      }
    }
  }
}

}  // namespace
}  // namespace railtune::sweep
