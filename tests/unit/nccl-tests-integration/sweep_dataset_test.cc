// The sweep dataset (nccl-tests-integration/dataset/): NCCL_ALGO/NCCL_PROTO read as NCCL reads them, rows built
// from nccl-tests runs (collective, forcing, communicator shape), and the JSONL written and read back, with
// every bad line reported by file:line.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "nccl-tests-integration/dataset/dataset.h"
#include "nccl-tests-integration/dataset/from_output.h"
#include "nccl-tests-integration/parse/nccl_tests_text.h"

namespace railtune::sweep {
namespace {

constexpr const char* kEightOnTwoTrays = R"(# nccl-tests version 2.19.6 nccl-headers=22807 nccl-library=22807
# Collective test starting: all_reduce_perf
# nThread 1 nGpus 8 minBytes 4194304 maxBytes 8388608 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0
#
# Using devices
#  Rank  0 Group  0 Pid   4121 on gb300-r01-t01 device  0 [0000:04:00] NVIDIA GB300
#  Rank  1 Group  0 Pid   4121 on gb300-r01-t01 device  1 [0000:05:00] NVIDIA GB300
#  Rank  2 Group  0 Pid   4121 on gb300-r01-t01 device  2 [0000:06:00] NVIDIA GB300
#  Rank  3 Group  0 Pid   4121 on gb300-r01-t01 device  3 [0000:07:00] NVIDIA GB300
#  Rank  4 Group  0 Pid   5121 on gb300-r01-t02 device  0 [0000:04:00] NVIDIA GB300
#  Rank  5 Group  0 Pid   5121 on gb300-r01-t02 device  1 [0000:05:00] NVIDIA GB300
#  Rank  6 Group  0 Pid   5121 on gb300-r01-t02 device  2 [0000:06:00] NVIDIA GB300
#  Rank  7 Group  0 Pid   5121 on gb300-r01-t02 device  3 [0000:07:00] NVIDIA GB300
gb300-r01-t01:4121:4121 [0] NCCL INFO NCCL_ALGO set by environment to Ring
gb300-r01-t01:4121:4121 [0] NCCL INFO NCCL_PROTO set by environment to LL128
#
#                                                              out-of-place                       in-place          
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong 
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         
     4194304       1048576     float     sum      -1    26.60  157.69  275.95       0    26.50  158.28  276.99       0
     8388608       2097152     float     sum      -1    39.80  210.77  368.85       0      N/A     N/A     N/A       3
# Out of bounds values : 3 FAILED
# Avg bus bandwidth    : 307.26 
#
# Collective test concluded: all_reduce_perf
)";

std::vector<DatasetRow> rowsOf(const std::string& text, const OutputContext& context,
                               std::vector<DatasetDiagnostic>* diagnostics = nullptr) {
  std::vector<DatasetRow> rows;
  std::vector<DatasetDiagnostic> local;
  appendRowsFromOutput(parseNcclTestsText(text), context, rows, diagnostics ? *diagnostics : local);
  return rows;
}

// A shape's numbers (ranks, hosts, nodes, NVLink domains, ranks per domain), without its GPU and fabric.
using Counts = std::array<int, 5>;
Counts counts(const Shape& s) {
  return {s.ranks, s.hosts, s.nodes, s.nvlDomains, s.ranksPerDomain};
}

std::string padded(std::string text) {
  return text + std::string(64, '\0');
}

TEST(SweepDataset, NcclNamesReadAsNcclReadsThem) {
  EXPECT_EQ(algorithmFromNccl("NVLSTree"), "nvls_tree");
  EXPECT_EQ(algorithmFromNccl("ring"), "ring");
  EXPECT_EQ(algorithmFromNccl("Collnet"), "collnet_direct");  // CollNet Direct's name before NCCL 2.14
  EXPECT_EQ(algorithmFromNccl("CollNetChain"), "collnet_chain");
  EXPECT_FALSE(algorithmFromNccl("Ring,Tree"));
  EXPECT_EQ(protocolFromNccl("LL128"), "ll128");
  EXPECT_EQ(ncclAlgorithmName("nvls_tree"), "NVLSTree");
  EXPECT_EQ(ncclProtocolName("simple"), "Simple");

  Choice c = choiceFromEnvironment({{"NCCL_ALGO", "RING"},
                                    {"NCCL_PROTO", "Simple"},
                                    {"NCCL_MIN_NCHANNELS", "16"},
                                    {"NCCL_MAX_NCHANNELS", "16"},
                                    {"RAILTUNE_SWEEP_CHUNK_SIZE", "524288"}});
  EXPECT_EQ(c.label(), "ring/simple ch=16 chunk=512K");
  EXPECT_TRUE(choiceFromEnvironment({{"NCCL_DEBUG", "INFO"}}).isDefault());
  EXPECT_EQ(choiceFromEnvironment({{"NCCL_ALGO", "Ring"}}).label(), "ring/*");
  // What forces no single choice is kept as text, never a rule.
  EXPECT_NE(choiceFromEnvironment({{"NCCL_ALGO", "Ring,Tree"}}).unusable, "");
  EXPECT_NE(choiceFromEnvironment({{"NCCL_ALGO", "allreduce:tree;broadcast:ring"}}).unusable, "");
  EXPECT_NE(choiceFromEnvironment({{"NCCL_PROTO", "^LL128"}}).unusable, "");
  EXPECT_NE(choiceFromEnvironment({{"NCCL_ALGO", "Rung"}}).unusable, "");
  EXPECT_NE(choiceFromEnvironment({{"NCCL_MAX_NCHANNELS", "8"}}).unusable, "");
}

TEST(SweepDataset, RowsCarryTheForcingNcclLoggedAndTheShape) {
  OutputContext context;
  context.source = "ring-ll128.txt";
  std::vector<DatasetDiagnostic> diagnostics;
  std::vector<DatasetRow> rows = rowsOf(kEightOnTwoTrays, context, &diagnostics);
  ASSERT_EQ(rows.size(), 2u);
  const DatasetRow& r = rows[0];
  EXPECT_EQ(r.collective, "allreduce");
  EXPECT_EQ(r.test, "all_reduce_perf");
  EXPECT_EQ(r.choice.label(), "ring/ll128");
  EXPECT_EQ(r.forcedBy, ForcedBy::NcclLog);
  EXPECT_EQ(r.ncclVersion, "2.28.7");
  EXPECT_EQ(r.gpu, "NVIDIA GB300");
  // No rail map: every host its own NVLink domain, NCCL counts hosts.
  EXPECT_EQ(counts(r.shape), (Counts{8, 2, 2, 2, 4}));
  EXPECT_TRUE(r.valid);
  EXPECT_FALSE(rows[1].valid);  // #wrong 3 in the in-place half
  EXPECT_FALSE(rows[1].inPlace.busbwGBps.has_value());
  ASSERT_FALSE(diagnostics.empty());
  EXPECT_EQ(diagnostics.back().line, 21u);

  // Both trays in one NVL72 (one NVLink domain): with MNNVL NCCL counts one node.
  context.domainOfHost = {{"gb300-r01-t01", "r01"}, {"gb300-r01-t02", "r01"}};
  EXPECT_EQ(counts(rowsOf(kEightOnTwoTrays, context)[0].shape), (Counts{8, 2, 1, 1, 8}));
  context.mnnvl = "off";
  EXPECT_EQ(counts(rowsOf(kEightOnTwoTrays, context)[0].shape), (Counts{8, 2, 2, 1, 8}));
  context.domainOfHost.clear();
  context.mnnvl.clear();
  context.nvlDomains = 1;
  EXPECT_EQ(counts(rowsOf(kEightOnTwoTrays, context)[0].shape), (Counts{8, 2, 1, 1, 8}));
}

// A rail map of another cluster names none of the run's hosts: one note says so, not one per host.
TEST(SweepDataset, HostsTheRailMapDoesNotNameAreOneNote) {
  OutputContext context;
  context.source = "x.txt";
  const auto notesOf = [&context] {
    std::vector<DatasetDiagnostic> diagnostics;
    rowsOf(kEightOnTwoTrays, context, &diagnostics);
    std::vector<std::string> out;
    for (const DatasetDiagnostic& d : diagnostics)
      if (d.message.find("not in the rail map or fabric") != std::string::npos) out.push_back(d.message);
    return out;
  };
  context.domainOfHost = {{"rack00-tray00", "rack00"}};
  std::vector<std::string> notes = notesOf();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("2 of the run's 2 hosts are not in the rail map or fabric (gb300-r01-t01, gb300-r01-t02); "
                          "each counts as its own NVLink domain"),
            std::string::npos)
      << notes[0];
  context.domainOfHost = {{"gb300-r01-t01", "r01"}};
  notes = notesOf();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("host gb300-r01-t02 is not in the rail map or fabric; it counts as its own NVLink domain"),
            std::string::npos)
      << notes[0];
}

TEST(SweepDataset, TheManifestsEnvironmentOutranksNcclsLogAndOptionsAreCheckedAgainstIt) {
  OutputContext context;
  context.source = "x.txt";
  context.env = {{"NCCL_ALGO", "Tree"}};
  context.envFrom = ForcedBy::Manifest;
  EXPECT_EQ(rowsOf(kEightOnTwoTrays, context)[0].choice.label(), "tree/*");
  context.envFrom = ForcedBy::Option;
  std::vector<DatasetDiagnostic> diagnostics;
  const std::vector<DatasetRow> rows = rowsOf(kEightOnTwoTrays, context, &diagnostics);
  EXPECT_EQ(rows[0].choice.label(), "ring/ll128");  // what NCCL said it was set to
  bool said = false;
  for (const DatasetDiagnostic& d : diagnostics)
    said |= d.message.find("NCCL says it was set to Ring") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(SweepDataset, TheCollectiveComesFromTheProgramTheCallerTheFileNameOrTheFactor) {
  EXPECT_EQ(collectiveOfTest("all_gather_perf"), "allgather");
  EXPECT_EQ(collectiveOfTest("/opt/nccl-tests/build/reduce_scatter_perf_mpi"), "reducescatter");
  EXPECT_EQ(collectiveOfTest("alltoall_perf"), "alltoall");
  EXPECT_EQ(collectiveOfTest("python3"), "");
  // A fragment without its "Collective test starting" line.
  const std::string fragment = R"(#  Rank 15 Group  0 Pid  77 on h2 device  7 [0x18] NVIDIA H200
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
  1073741824     268435456     float     sum      -1   4361.1  246.21  461.64      0   4344.5  247.15  463.40      0
)";
  OutputContext context;
  context.source = "results/run7.txt";
  std::vector<DatasetDiagnostic> diagnostics;
  std::vector<DatasetRow> rows = rowsOf(fragment, context, &diagnostics);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].collective, "allreduce");  // 461.64 / 246.21 = 2(n-1)/n for n = 16
  EXPECT_EQ(rows[0].shape.ranks, 16);
  EXPECT_EQ(rows[0].shape.hosts, 2);  // 16 ranks, devices 0..7 on each host
  context.collective = "reducescatter";
  EXPECT_EQ(rowsOf(fragment, context)[0].collective, "reducescatter");
  context.collective.clear();
  context.source = "h200-allgather.txt";
  EXPECT_EQ(rowsOf(fragment, context)[0].collective, "allgather");
}

TEST(SweepDataset, RowsWrittenAreReadBackTheSame) {
  OutputContext context;
  context.source = "a \"quoted\" name.txt";
  context.env = {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "LL128"}};
  context.envFrom = ForcedBy::Manifest;
  context.repeat = 2;
  const std::vector<DatasetRow> rows = rowsOf(kEightOnTwoTrays, context);
  std::string text;
  for (const DatasetRow& r : rows) appendDatasetRow(r, text);
  std::vector<DatasetRow> back;
  std::vector<DatasetDiagnostic> diagnostics;
  const std::string p = padded(text);
  readDatasetText(
      std::string_view(p.data(), text.size()), "d.jsonl", [&](const DatasetRow& r) { back.push_back(r); }, diagnostics);
  EXPECT_TRUE(diagnostics.empty()) << diagnostics.front().message;
  ASSERT_EQ(back.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    std::string again;
    appendDatasetRow(back[i], again);
    std::string original;
    appendDatasetRow(rows[i], original);
    EXPECT_EQ(again, original);
  }
  EXPECT_EQ(back[0].source, context.source);
  EXPECT_EQ(back[0].repeat, 2);
  EXPECT_EQ(back[0].forcedBy, ForcedBy::Manifest);
  EXPECT_EQ(back[1].outOfPlace.busbwGBps, 368.85);
  EXPECT_FALSE(back[1].inPlace.busbwGBps.has_value());
}

TEST(SweepDataset, ANegativeRootIsNoRootAndReadsBack) {
  // A root below -1 (a garbled table) is written as nccl-tests' "no root", which the reader accepts (found by
  // fuzz_sweep_dataset).
  std::string text = kEightOnTwoTrays;
  const size_t at = text.find("   -1    26.60");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 5, "   -5");
  OutputContext context;
  context.source = "x.txt";
  const std::vector<DatasetRow> rows = rowsOf(text, context);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0].root, -1);
  std::string line;
  appendDatasetRow(rows[0], line);
  size_t read = 0;
  std::vector<DatasetDiagnostic> diagnostics;
  const std::string p = padded(line);
  readDatasetText(
      std::string_view(p.data(), line.size()), "d.jsonl", [&](const DatasetRow&) { ++read; }, diagnostics);
  EXPECT_EQ(read, 1u);
  EXPECT_TRUE(diagnostics.empty());
}

TEST(SweepDataset, EveryBadLineIsNamedAndSkipped) {
  OutputContext context;
  context.source = "x.txt";
  std::string good;
  appendDatasetRow(rowsOf(kEightOnTwoTrays, context)[0], good);
  good.pop_back();
  const std::string text = good + "\n\n" +                           // 1, 2 (blank: fine)
                           good.substr(0, good.size() / 2) + "\n" +  // 3: cut short
                           R"({"schema":"railtune.path-log/1","size":1})"
                           "\n" +  // 4: another schema
                           good +
                           " {}\n" +    // 5: text after the object
                           "[1,2]\n" +  // 6: not an object
                           R"({"schema":"railtune.sweep-dataset/1","collective":"allreduce"})"
                           "\n" +  // 7: no size
                           good.substr(0, good.size() - 1) +
                           R"(,"colour":"red"})"
                           "\n" +  // 8: unknown key
                           good +
                           "\n";  // 9
  std::vector<size_t> lines;
  size_t rows = 0;
  std::vector<DatasetDiagnostic> diagnostics;
  const std::string p = padded(text);
  readDatasetText(
      std::string_view(p.data(), text.size()), "d.jsonl", [&](const DatasetRow&) { ++rows; }, diagnostics);
  for (const DatasetDiagnostic& d : diagnostics) lines.push_back(d.line);
  EXPECT_EQ(rows, 2u);
  EXPECT_EQ(lines, (std::vector<size_t>{3, 4, 5, 6, 7, 8}));
}

// Issue 28: a dataset edited past the bounds of a measurement, or with a key given twice, is refused line by line.
TEST(SweepDataset, ImpossibleValuesAndDuplicateKeysAreRefusedByLine) {
  std::string good;
  OutputContext context;
  context.source = "eight.txt";
  appendDatasetRow(rowsOf(kEightOnTwoTrays, context).at(0), good);
  good.pop_back();
  const auto edited = [&](const std::string& from, const std::string& to) {
    std::string line = good;
    const size_t at = line.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return line.replace(at, from.size(), to) + "\n";
  };
  const std::string text = good + "\n" + edited("\"busbw\":275.95", "\"busbw\":1e308") +
                           edited("\"size\":4194304", "\"size\":9223372036854775807") +
                           edited("\"time_us\":26.6", "\"time_us\":0") +
                           edited("\"busbw\":275.95", "\"busbw\":275.95,\"busbw\":1e300") +
                           edited("\"ranks\":8", "\"ranks\":8,\"ranks\":16") +
                           edited("\"NCCL_ALGO\":\"Ring\"", "\"NCCL_ALGO\":\"Ring\",\"NCCL_ALGO\":\"Tree\"");
  std::vector<DatasetDiagnostic> diagnostics;
  size_t rows = 0;
  const std::string p = padded(text);
  readDatasetText(
      std::string_view(p.data(), text.size()), "edited.jsonl", [&](const DatasetRow&) { ++rows; }, diagnostics);
  EXPECT_EQ(rows, 1u);
  ASSERT_EQ(diagnostics.size(), 6u);
  EXPECT_EQ(diagnostics[0].line, 2u);
  EXPECT_EQ(diagnostics[0].message, "impossible value: out-of-place busbw 1e+308 is over 100000 GB/s (100 TB/s)");
  EXPECT_EQ(diagnostics[1].message, "impossible value: size 9223372036854775807 is over 2^48 bytes");
  EXPECT_EQ(diagnostics[2].message, "impossible value: out-of-place time 0 is zero");
  EXPECT_EQ(diagnostics[3].message, "duplicate key \"busbw\"");
  EXPECT_EQ(diagnostics[4].message, "duplicate key \"ranks\"");
  EXPECT_EQ(diagnostics[5].message, "duplicate key \"NCCL_ALGO\"");
  EXPECT_EQ(diagnostics[5].line, 7u);
}

// What sweep parse dropped of an output is a line of its own schema, read back to the same bytes; a row that names
// that schema in a string is still a row.
TEST(SweepDataset, SourceLinesAreReadBackAndARowNamingTheirSchemaIsStillARow) {
  DatasetSource dropped{"out.txt", 1, 2, 0, 9, 0, {{18, "size -2097152 is negative"}}};
  std::string text;
  appendDatasetSource(dropped, text);
  OutputContext context;
  context.source = "railtune.sweep-dataset-source/1.txt";
  appendDatasetRow(rowsOf(kEightOnTwoTrays, context).at(0), text);
  std::vector<DatasetDiagnostic> diagnostics;
  std::vector<DatasetSource> sources;
  size_t rows = 0;
  const std::string p = padded(text);
  readDatasetText(
      std::string_view(p.data(), text.size()), "d.jsonl", [&](const DatasetRow&) { ++rows; }, diagnostics,
      [&](const DatasetSource& source) { sources.push_back(source); });
  EXPECT_TRUE(diagnostics.empty()) << diagnostics.at(0).message;
  EXPECT_EQ(rows, 1u);
  ASSERT_EQ(sources.size(), 1u);
  std::string again;
  appendDatasetSource(sources[0], again);
  EXPECT_EQ(again, text.substr(0, text.find('\n') + 1));
  EXPECT_EQ(sources[0].badRows, 9u);
  EXPECT_EQ(sources[0].bad.at(0).first, 18u);
}

// A variable's name is the user's (--env): written escaped, read back the same.
TEST(SweepDataset, AnEnvironmentNameWithQuotesIsWrittenEscaped) {
  OutputContext context;
  context.source = "eight.txt";
  context.env = {{"NCCL_\"ALGO", "Ring\\"}};
  context.envFrom = ForcedBy::Option;
  std::string text;
  appendDatasetRow(rowsOf(kEightOnTwoTrays, context).at(0), text);
  std::vector<DatasetDiagnostic> diagnostics;
  std::map<std::string, std::string> env;
  const std::string p = padded(text);
  readDatasetText(
      std::string_view(p.data(), text.size()), "d.jsonl", [&](const DatasetRow& row) { env = row.env; }, diagnostics);
  EXPECT_TRUE(diagnostics.empty()) << diagnostics.at(0).message;
  EXPECT_EQ(env.at("NCCL_\"ALGO"), "Ring\\");
}

// A run's rows are built and handed over while it is read, once its first rows settle what it measured.
TEST(SweepDataset, TheBuilderStreamsALongRunsRows) {
  OutputContext context;
  context.source = "long.txt";
  size_t handed = 0;
  OutputRowBuilder builder(context, [&](const DatasetRow& row, const DatasetLineParts& parts) {
    std::string whole, inParts;
    appendDatasetRow(row, whole);
    appendDatasetRow(row, parts, inParts);
    EXPECT_EQ(inParts, whole);
    EXPECT_EQ(row.collective, "allreduce");
    EXPECT_EQ(row.choice.label(), "ring/ll128");
    ++handed;
  });
  NcclTestsTextReader reader(builder);
  std::istringstream lines(kEightOnTwoTrays);
  std::string line, table;
  int number = 0;
  while (std::getline(lines, line)) {
    if (line.starts_with("     4194304")) table = line;
    if (line.starts_with("# Out of bounds")) break;
    reader.line(line, ++number);
  }
  for (size_t i = 0; i < 3 * OutputRowBuilder::kSettleRows; ++i) reader.line(table, ++number);
  EXPECT_GE(handed, 2 * OutputRowBuilder::kSettleRows) << "rows held until the run ends";
  reader.finish();
  builder.finish();
  EXPECT_EQ(handed, 3 * OutputRowBuilder::kSettleRows + 2);
  EXPECT_EQ(builder.rows, handed);
  EXPECT_EQ(builder.flagged, 1u);
}

TEST(SweepDataset, AFileThatIsNotOneIsRefusedByName) {
  std::vector<DatasetDiagnostic> diagnostics;
  const auto sink = [](const DatasetRow&) {};
  EXPECT_THROW(readDatasetFile("/nonexistent/d.jsonl", sink, diagnostics), std::runtime_error);
  try {
    readDatasetFile(std::filesystem::temp_directory_path().string(), sink, diagnostics);
    FAIL() << "a directory was read as a dataset";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(std::filesystem::temp_directory_path().string()), std::string::npos);
  }
}

std::string readShared(const std::string& name) {
  const std::filesystem::path path = std::filesystem::path(RAILTUNE_SHARED_DATA) / "nccl-tests" / name;
  if (!std::filesystem::exists(path)) return "";
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(SweepDataset, PublishedSamplesBecomeRowsWithTheirShape) {
  const std::string h100 = readShared("h100-a3mega-2node-16gpu-allreduce-full.txt");
  if (h100.empty()) GTEST_SKIP() << "the shared data folder is absent beside the checkout";
  OutputContext context;
  context.source = "h100.txt";
  std::vector<DatasetRow> rows = rowsOf(h100, context);
  ASSERT_EQ(rows.size(), 31u);
  EXPECT_EQ(counts(rows[0].shape), (Counts{16, 2, 2, 2, 8}));
  EXPECT_EQ(rows[0].collective, "allreduce");  // from the file name
  EXPECT_TRUE(rows[0].choice.isDefault());

  // The "144-rank" fragment: its busbw/algbw is all-reduce's factor for 128 ranks; the reader says so.
  const std::string multi = readShared("gb200-nvl72-multirack-144-and-1440gpu-allreduce-coreweave.txt");
  context.source = "multirack.txt";
  context.nvlDomains = 2;
  std::vector<DatasetDiagnostic> diagnostics;
  rows = rowsOf(multi, context, &diagnostics);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.front().shape.ranks, 144);
  EXPECT_EQ(rows.front().shape.hosts, 36);  // a fragment: 4 GPUs per host from the highest device index
  EXPECT_EQ(rows.front().shape.nodes, 2);   // MNNVL: a rack is one node
  bool said = false;
  for (const DatasetDiagnostic& d : diagnostics) said |= d.message.find("for 128 ranks") != std::string::npos;
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace railtune::sweep
