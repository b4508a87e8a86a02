// nccl-tests runs (parse/) turned into dataset rows: the collective (the program's name, else what the
// caller says, else the file's name, else busbw/algbw), what forced the run (the manifest's environment,
// else NCCL's "NCCL_ALGO set by environment to" lines, else --env), and the communicator's shape from the
// device lines, NCCL's own INFO lines and what the caller knows of the NVLink domains (shape_of.h).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nccl-tests-integration/dataset/dataset.h"
#include "nccl-tests-integration/dataset/shape_of.h"
#include "nccl-tests-integration/parse/nccl_tests_text.h"

namespace railtune::sweep {

// What is known of a file before reading it; its NVLink domains, MNNVL, fabric and probe facts: DomainFacts
// (shape_of.h).
struct OutputContext : DomainFacts {
  std::string source;                      // the file, as the rows name it
  std::map<std::string, std::string> env;  // what forced every run of the file (manifest, --env); may be empty
  ForcedBy envFrom = ForcedBy::None;       // Manifest or Option when env came from there
  NetEnv netEnv;                           // the manifest's setting (net_env.h); else from env and NCCL's lines
  int repeat = 0;
  std::string test;              // the manifest's program ("all_reduce_perf"); "" = from the output
  std::string collective;        // --collective: for outputs that do not name their program
  std::optional<CallMode> call;  // the manifest's command's -R/-D/-x; nullopt: a -J file's args say, else none
};

// "all_reduce_perf", "all_reduce_perf_mpi", "./build/all_reduce_perf" -> "allreduce"; "" when unknown.
std::string collectiveOfTest(std::string_view program);
// nccl-tests' program stems ("all_reduce") with their collectives ("allreduce"), longest stem first.
std::span<const std::pair<std::string_view, std::string_view>> ncclTestsPrograms();
// The collectives the tuner is asked about (NCCL's ncclFunc_t 0..4), in the rules' spelling.
bool tunerCollective(std::string_view collective);

// Dataset rows built from one output as it is read (a TextSink of NcclTestsTextReader): a run's context (the
// collective, the shape, what forced it) is settled from its header lines and its first kSettleRows rows, then
// every row is handed to the row sink as it comes, so memory stays at that many rows however long the output.
// Diagnostics (the parser's and the builder's) name source:line; the first keepDiagnostics are kept, the rest
// counted. finish() after the last run.
class OutputRowBuilder : public TextSink {
 public:
  static constexpr size_t kSettleRows = 256;
  // The row, and its run's serialized parts (appendDatasetRow(row, parts, out) writes its line).
  using RowSink = std::function<void(const DatasetRow&, const DatasetLineParts&)>;
  OutputRowBuilder(const OutputContext& context, RowSink sink, size_t keepDiagnostics = SIZE_MAX);
  void row(const TestRun& run, Row&& row) override;
  void runEnd(TestRun&& run) override;
  void diagnostic(Diagnostic&& diagnostic) override;
  void finish();

  size_t runs = 0;             // runs read (with or without rows)
  size_t rows = 0;             // rows handed to the sink
  size_t flagged = 0;          // of those, rows with a non-zero #wrong
  size_t badRows = 0;          // rows dropped by the reader: impossible values, wrong column count, cut short
  size_t skippedRows = 0;      // rows of runs whose collective is unknown
  size_t moreDiagnostics = 0;  // diagnostics past keepDiagnostics, counted only
  std::vector<DatasetDiagnostic> diagnostics;  // after finish(): the parser's, then the runs' notes
  // The file's line for the dataset when rows were dropped or skipped (DatasetSource), else none.
  std::optional<DatasetSource> sourceLine() const;

 private:
  struct Note {
    int line = 0;
    size_t run = 0;
    std::string message;
  };
  void settle(const TestRun& run);
  void emit(const Row& row);
  void note(int line, std::string message);
  void keep(DatasetDiagnostic&& d);

  const OutputContext& context_;
  RowSink sink_;
  size_t keepDiagnostics_;
  std::vector<Note> notes_;
  std::vector<std::pair<size_t, std::string>> firstBad_;  // (line, reason) of the first bad rows
  std::vector<Row> waiting_;                              // a run's first rows, until its context is settled
  bool settled_ = false, skipRun_ = false, errorColumn_ = false;
  DatasetRow base_;         // the run's fields every row shares
  DatasetLineParts parts_;  // and their text
};

// Appends one row per table row of every run. Diagnostics name source:line.
void appendRowsFromOutput(const ParsedText& parsed, const OutputContext& context, std::vector<DatasetRow>& rows,
                          std::vector<DatasetDiagnostic>& diagnostics);

}  // namespace railtune::sweep
