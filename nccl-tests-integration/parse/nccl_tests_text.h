// nccl-tests' text output read into runs of rows, every format from nccl-tests v1.0 to v2.19 (the
// all_reduce_perf family): launcher prefixes (mpirun --tag-output, srun --label), the version line (2.17.4+),
// "Collective test starting" (2.16.7+), the nThread parameters, the per-rank device lines (bus ids [0x01] and
// [0000:04:00]), the table header of each era (per collective with an "error" column before 2.13; one layout
// with redop, root and #wrong after), N/A values, rows split by interleaved NCCL INFO lines, the footer, NCCL's
// "NCCL_ALGO set by environment to" lines, NCCL's INFO lines on nodes, MNNVL and the network (nccl_info.h) and
// "Test NCCL failure" lines; several runs in one text. Columns come
// from the header, so a table of any era is read by name. Part of issue 18 (`railtune sweep`): the dataset,
// rules and reports build on it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nccl-tests-integration/parse/nccl_info.h"

namespace railtune::sweep {

struct DeviceLine {
  int rank = -1, group = -1, pid = -1, device = -1;
  std::string host, busId, gpu;  // busId: "0x01" (bus only, not unique) or "0000:04:00"
};

// One half of a row (out-of-place, in-place): unset where nccl-tests printed N/A.
struct Measurement {
  std::optional<double> timeUs, algbwGBps, busbwGBps;
  std::optional<double> wrong;  // #wrong (E2+) or the max error (E1, "error")
};

struct Row {
  int line = 0;
  uint64_t size = 0, count = 0;
  std::string type, redop;
  std::optional<int> root;
  Measurement outOfPlace, inPlace;
};

struct TestRun {
  int firstLine = 0;
  std::string testsVersion;                       // "2.19.6" (E7+), "" before
  int ncclHeaders = 0, ncclLibrary = 0;           // NCCL_VERSION_CODE, runtime; 0 unknown
  std::string collective;                         // "all_reduce_perf" (E5+), "" unknown
  std::vector<std::string> args;                  // the -J file's argv (its "args"); empty for text output
  std::map<std::string, std::string> parameters;  // nThread line: "nThread" -> "1", "warmup iters" -> "5", ...
  std::vector<DeviceLine> devices;
  std::vector<std::string> columns;  // the table header's labels
  std::vector<Row> rows;
  std::optional<int> outOfBounds;
  std::optional<double> averageBusbw;
  std::map<std::string, std::string> forced;  // NCCL_ALGO, NCCL_PROTO... from NCCL's "set by environment" lines
  std::vector<std::string> ncclFailures;      // "Test NCCL failure ..." lines
  NcclFacts nccl;  // NCCL's INFO lines on the communicator and network (NCCL_DEBUG=INFO), of every rank
};

struct Diagnostic {
  int line = 0;
  std::string message;
  bool badRow = false;  // a result row dropped (impossible values, wrong column count, cut short)
};

struct ParsedText {
  std::vector<TestRun> runs;
  std::vector<Diagnostic> diagnostics;
  size_t badRows = 0;  // the diagnostics with badRow set
};

// Where a streamed reading goes, in the order of the text: each row of the current run as it is read (run holds
// what came before it: version, devices, columns, forced choices; run.rows stays empty), the run when it ends
// (its footer and failures; run.rows empty), and each diagnostic.
class TextSink {
 public:
  virtual ~TextSink() = default;
  virtual void row(const TestRun& run, Row&& row) = 0;
  virtual void runEnd(TestRun&& run) = 0;
  virtual void diagnostic(Diagnostic&& diagnostic) = 0;
};

// nccl-tests' text fed line by line (without the newline, numbered from 1): memory stays at one run's header
// however many rows the text holds.
class NcclTestsTextReader {
 public:
  explicit NcclTestsTextReader(TextSink& sink);
  ~NcclTestsTextReader();
  NcclTestsTextReader(const NcclTestsTextReader&) = delete;
  NcclTestsTextReader& operator=(const NcclTestsTextReader&) = delete;
  void line(std::string_view line, int number);
  void finish();  // the end of the text: the last run is handed over

 private:
  std::unique_ptr<class TextLineReader> reader_;
};

// The whole text at once, every row kept (tests, fuzzers, small files).
ParsedText parseNcclTestsText(std::string_view text);

}  // namespace railtune::sweep
