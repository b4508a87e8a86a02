// nccl-tests runs as dataset rows (from_output.h).
#include "nccl-tests-integration/dataset/from_output.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>
#include <utility>

namespace railtune::sweep {
namespace {

// nccl-tests' program stems (src/*.cu, one binary per collective) and the rules' names, longest first so that a
// suffix or substring match finds "reduce_scatter" before "scatter" and "all_reduce" before "reduce".
constexpr std::array<std::pair<std::string_view, std::string_view>, 11> kPrograms{{
    {"reduce_scatter", "reducescatter"},
    {"all_reduce", "allreduce"},
    {"all_gather", "allgather"},
    {"alltoallv", "alltoallv"},
    {"broadcast", "broadcast"},
    {"hypercube", "hypercube"},
    {"alltoall", "alltoall"},
    {"sendrecv", "sendrecv"},
    {"scatter", "scatter"},
    {"gather", "gather"},
    {"reduce", "reduce"},
}};

// NCCL_VERSION_CODE: 22807 -> "2.28.7"; before 2.9, 2708 -> "2.7.8".
std::string ncclVersionText(int code) {
  if (code <= 0) return "";
  const int major = code >= 10000 ? code / 10000 : code / 1000;
  const int minor = code >= 10000 ? (code % 10000) / 100 : (code % 1000) / 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

// From a file name: "gb200-72gpu-allreduce.txt", "all_gather_perf.out".
std::string collectiveOfFileName(std::string_view source) {
  const size_t slash = source.rfind('/');
  std::string name = lowerAscii(slash == std::string_view::npos ? source : source.substr(slash + 1));
  std::erase(name, '_');
  std::erase(name, '-');
  for (const auto& [program, collective] : kPrograms) {
    std::string p(program);
    std::erase(p, '_');
    if (name.find(p) != std::string::npos) return std::string(collective);
  }
  return "";
}

// busbw / algbw of the rows (nccl-tests' factor, *GetBw in src/*.cu), the median over the rows that have both.
std::optional<double> busbwFactor(const TestRun& run) {
  std::vector<double> ratios;
  for (const Row& r : run.rows)
    for (const Measurement* m : {&r.outOfPlace, &r.inPlace})
      if (m->algbwGBps && m->busbwGBps && *m->algbwGBps >= 0.5) ratios.push_back(*m->busbwGBps / *m->algbwGBps);
  if (ratios.empty()) return std::nullopt;
  std::nth_element(ratios.begin(), ratios.begin() + static_cast<std::ptrdiff_t>(ratios.size() / 2), ratios.end());
  return ratios[ratios.size() / 2];
}

// The ranks an all-reduce's factor 2(n-1)/n says, or 0 (another factor, or too few digits to tell).
int ranksOfAllReduceFactor(double factor) {
  if (factor <= 1.0 || factor >= 2.0) return 0;
  const double n = 2.0 / (2.0 - factor);
  return n < 1e5 ? static_cast<int>(std::lround(n)) : 0;
}

// A value that is not a finite number ("inf" where a time was 0) is no measurement: left out, as N/A is.
Measurement finite(Measurement m) {
  for (std::optional<double>* v : {&m.timeUs, &m.algbwGBps, &m.busbwGBps, &m.wrong})
    if (*v && !std::isfinite(**v)) v->reset();
  return m;
}

bool wrongOf(const Measurement& m, bool errorColumn) {
  if (!m.wrong) return false;
  // Before nccl-tests 2.13 the column was the largest error (2e-07 for a float sum is right); from 2.13 a count.
  return errorColumn ? std::fabs(*m.wrong) > 1e-2 : *m.wrong > 0;
}

// What forced a run (its variables, where they came from) and the network setting it ran under: the manifest's
// alone; else --env, with NCCL's own "set by environment" lines over it, and a disagreement told.
void forcingOf(const OutputContext& context, const TestRun& run, DatasetRow& base,
               const std::function<void(std::string)>& note) {
  base.env = context.env;
  base.forcedBy = context.env.empty() ? ForcedBy::None : context.envFrom;
  base.netEnv =
      context.envFrom == ForcedBy::Manifest ? netEnvAsNcclReadsIt(context.netEnv) : netEnvOfOption(context.env);
  if (context.envFrom == ForcedBy::Manifest || run.forced.empty()) return;
  for (const auto& [key, value] : run.forced) {
    const auto given = context.env.find(key);
    if (given != context.env.end() && lowerAscii(given->second) != lowerAscii(value))
      note("--env " + key + "=" + given->second + " but NCCL says it was set to " + value + "; NCCL's word is kept");
    base.env[key] = value;
  }
  for (auto& [name, value] : netEnvOfNcclLog(run.forced)) base.netEnv[name] = value;
  base.forcedBy = ForcedBy::NcclLog;
}

}  // namespace

std::string collectiveOfTest(std::string_view program) {
  std::string name(program);
  if (const size_t slash = name.rfind('/'); slash != std::string::npos) name.erase(0, slash + 1);
  if (name.ends_with("_mpi")) name.resize(name.size() - 4);
  if (!name.ends_with("_perf")) return "";
  name.resize(name.size() - 5);
  for (const auto& [p, collective] : kPrograms)
    if (name == p) return std::string(collective);
  return "";
}

std::span<const std::pair<std::string_view, std::string_view>> ncclTestsPrograms() {
  return kPrograms;
}

bool tunerCollective(std::string_view c) {
  return c == "allreduce" || c == "allgather" || c == "reducescatter" || c == "broadcast" || c == "reduce";
}

OutputRowBuilder::OutputRowBuilder(const OutputContext& context, RowSink sink, size_t keepDiagnostics)
    : context_(context), sink_(std::move(sink)), keepDiagnostics_(keepDiagnostics) {}

void OutputRowBuilder::keep(DatasetDiagnostic&& d) {
  if (diagnostics.size() < keepDiagnostics_)
    diagnostics.push_back(std::move(d));
  else
    ++moreDiagnostics;
}

void OutputRowBuilder::diagnostic(Diagnostic&& d) {
  badRows += d.badRow ? 1 : 0;
  if (d.badRow && firstBad_.size() < kDatasetSourceReasons) firstBad_.emplace_back(d.line, d.message);
  keep({context_.source, static_cast<size_t>(d.line), std::move(d.message)});
}

void OutputRowBuilder::note(int line, std::string message) {
  if (notes_.size() + diagnostics.size() < keepDiagnostics_)
    notes_.push_back({line, runs, std::move(message)});
  else
    ++moreDiagnostics;
}

void OutputRowBuilder::row(const TestRun& run, Row&& row) {
  if (settled_) return emit(row);
  waiting_.push_back(std::move(row));
  if (waiting_.size() < kSettleRows) return;
  TestRun first = run;  // the header lines, with the first rows for busbw/algbw
  first.rows = std::move(waiting_);
  settle(first);
  for (const Row& r : first.rows) emit(r);
  waiting_.clear();
}

void OutputRowBuilder::runEnd(TestRun&& run) {
  if (!settled_ && !waiting_.empty()) {
    run.rows = std::move(waiting_);
    settle(run);
    for (const Row& r : run.rows) emit(r);
  }
  waiting_.clear();
  settled_ = false;
  skipRun_ = false;
  ++runs;
}

// The run's collective, shape and forcing, from its header lines and the rows read so far.
void OutputRowBuilder::settle(const TestRun& run) {
  settled_ = true;
  std::string test = !context_.test.empty() ? context_.test : run.collective;
  std::string collective = collectiveOfTest(test);
  const std::optional<double> factor = busbwFactor(run);
  if (collective.empty()) collective = context_.collective;
  if (collective.empty()) collective = collectiveOfFileName(context_.source);
  if (collective.empty() && factor && ranksOfAllReduceFactor(*factor) > 0) collective = "allreduce";
  if (collective.empty()) {
    skipRun_ = true;
    return note(run.firstLine,
                "the output does not say which collective it measured (no \"Collective test starting\" line): "
                "its rows are skipped; name it with --collective");
  }
  const HostLayout layout = layoutOf(run);
  if (layout.ranks <= 0) note(run.firstLine, "no \"Rank N ... on HOST\" device lines: ranks and hosts unknown");
  if (!layout.complete && layout.ranks > 0)
    note(run.firstLine, "device lines for only " + std::to_string(run.devices.size()) + " of " +
                            std::to_string(layout.ranks) + " ranks (a fragment): " + std::to_string(layout.hosts) +
                            " hosts assumed from the highest device index");
  std::vector<std::string> shapeNotes;
  const Shape shape = shapeOf(layout, context_, run, shapeNotes);
  for (std::string& message : shapeNotes) note(0, std::move(message));
  if (collective == "allreduce" && factor && layout.ranks > 0) {
    const int implied = ranksOfAllReduceFactor(*factor);
    if (implied > 0 && implied != layout.ranks && std::fabs(2.0 * (layout.ranks - 1) / layout.ranks - *factor) > 2e-4) {
      char text[64];
      std::snprintf(text, sizeof text, "%.5f", *factor);
      note(run.firstLine, std::string("busbw/algbw = ") + text + " is all-reduce's 2(n-1)/n for " +
                              std::to_string(implied) + " ranks, but the device lines say " +
                              std::to_string(layout.ranks));
    }
  }
  // What forced it.
  base_ = DatasetRow{};
  forcingOf(context_, run, base_, [&](std::string message) { note(run.firstLine, std::move(message)); });
  base_.source = context_.source;
  base_.run = static_cast<int>(runs);
  base_.test = test;
  base_.collective = collective;
  base_.choice = choiceFromEnvironment(base_.env);
  base_.shape = shape;
  base_.repeat = context_.repeat;
  base_.call = context_.call ? *context_.call : callModeFromArgs(run.args);
  base_.ncclVersion = ncclVersionText(run.ncclLibrary ? run.ncclLibrary : run.ncclHeaders);
  base_.testsVersion = run.testsVersion;
  base_.gpu = shape.gpu;
  errorColumn_ = std::find(run.columns.begin(), run.columns.end(), "error") != run.columns.end();
  parts_ = datasetLineParts(base_);
}

void OutputRowBuilder::emit(const Row& tableRow) {
  if (skipRun_) {
    ++skippedRows;
    return;
  }
  DatasetRow& row = base_;
  row.line = tableRow.line;
  row.size = tableRow.size;
  row.count = tableRow.count;
  row.type = tableRow.type;
  row.redop = tableRow.redop;
  row.root = tableRow.root && *tableRow.root >= 0 ? *tableRow.root : -1;  // nccl-tests prints -1 for "no root"
  row.outOfPlace = finite(tableRow.outOfPlace);
  row.inPlace = finite(tableRow.inPlace);
  row.valid = !wrongOf(row.outOfPlace, errorColumn_) && !wrongOf(row.inPlace, errorColumn_);
  if (!row.valid) {
    ++flagged;
    note(tableRow.line, "a non-zero #wrong: the row is kept, flagged, and never used for rules");
  }
  ++rows;
  sink_(row, parts_);
}

void OutputRowBuilder::finish() {
  // A run named in a note only when the output holds several.
  for (Note& n : notes_) {
    const std::string where = runs > 1 ? "run " + std::to_string(n.run + 1) + ": " : "";
    keep({context_.source, static_cast<size_t>(n.line), where + std::move(n.message)});
  }
  notes_.clear();
}

std::optional<DatasetSource> OutputRowBuilder::sourceLine() const {
  if (badRows == 0 && skippedRows == 0) return std::nullopt;
  return DatasetSource{context_.source, runs, rows, flagged, badRows, skippedRows, firstBad_};
}

void appendRowsFromOutput(const ParsedText& parsed, const OutputContext& context, std::vector<DatasetRow>& rows,
                          std::vector<DatasetDiagnostic>& diagnostics) {
  OutputRowBuilder builder(context, [&](const DatasetRow& row, const DatasetLineParts&) { rows.push_back(row); });
  for (TestRun run : parsed.runs) {
    std::vector<Row> table = std::move(run.rows);
    run.rows.clear();
    for (Row& row : table) builder.row(run, std::move(row));
    builder.runEnd(std::move(run));
  }
  builder.finish();
  for (DatasetDiagnostic& d : builder.diagnostics) diagnostics.push_back(std::move(d));
}

}  // namespace railtune::sweep
