// `railtune sweep parse [--env KEY=VALUE]... INPUT... -o DATASET.jsonl`: nccl-tests outputs of any version (text
// or -J JSON) into the sweep dataset (docs/formats.md#sweep-dataset). An input is a file, or a folder: a sweep
// folder of `railtune sweep run` (its manifest says what forced each output), else every file below it. Each
// --env applies to the files after it on the command line (to all files when none follows). Files are read in
// parallel and streamed: each is read line by line and its rows written as they come, in input order, so memory
// stays bounded whatever the size of the outputs (docs/performance.md). A row with impossible values is a counted
// bad row naming FILE:LINE and why; runs of a sweep folder that gave no output are listed, never ignored.
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/ingest/folder_walk.h"
#include "analysis/ingest/line_reader.h"
#include "cli/sweep/ordered_output.h"
#include "cli/sweep/row_text.h"
#include "cli/sweep/shape_options.h"
#include "cli/sweep/sweep.h"
#include "common/atomic_file.h"
#include "common/regular_file.h"
#include "common/work_pool.h"
#include "nccl-tests-integration/dataset/from_output.h"
#include "nccl-tests-integration/parse/nccl_tests_json.h"
#include "nccl-tests-integration/run/manifest.h"

namespace railtune::cli {
namespace {

namespace fs = std::filesystem;
using sweep::DatasetDiagnostic;
using sweep::DatasetRow;

struct ParseOptions {
  std::vector<std::string> inputs;
  std::vector<std::string> env;  // KEY=VALUE
  std::string collective;
  std::string output;
  ShapeOptions shape;
  size_t maxWarnings = 20;
};

// One file to read and what is known of it before reading.
struct Job {
  std::string path;
  sweep::OutputContext context;
  std::optional<uint64_t> byteLimit;  // the manifest's output_bytes: what the run wrote until it ended
};

struct JobResult {
  size_t rows = 0;
  std::vector<DatasetDiagnostic> diagnostics;  // the first --max-warnings of the file
  size_t moreDiagnostics = 0;                  // the rest, counted
  size_t runs = 0;
  size_t flagged = 0;  // rows with a non-zero #wrong (kept, never used for rules)
  size_t badRows = 0;  // rows dropped: impossible values, wrong column count, cut short
};

// A -J file is one JSON document, read whole: nccl-tests writes a few hundred bytes per size.
constexpr size_t kMaxJsonBytes = size_t{64} << 20;
// A job's rows are handed to the output in pieces of about this size.
constexpr size_t kPieceBytes = size_t{1} << 20;
// What the jobs behind the head may hold before they wait for it.
constexpr size_t kMaxBufferedBytes = size_t{64} << 20;

std::pair<std::string, std::string> keyValue(const std::string& item) {
  const size_t eq = item.find('=');
  if (eq == std::string::npos || eq == 0) throw std::invalid_argument("--env " + item + ": expected KEY=VALUE");
  return {item.substr(0, eq), item.substr(eq + 1)};
}

// The rows of a text output, streamed through the reader into the builder. Returns false when the file starts
// with '{' (nccl-tests' -J JSON: read whole by the caller) before any line was read as text.
bool readTextJob(const Job& job, sweep::OutputRowBuilder& builder, JobResult& result) {
  sweep::NcclTestsTextReader reader(builder);
  bool json = false, started = false;
  // The manifest's output_bytes: what the run wrote until it ended. Bytes after it (a process that escaped the
  // run's group wrote on) are not read: the line that crosses it is cut there, as the run left it.
  const uint64_t limit = job.byteLimit.value_or(UINT64_MAX);
  uint64_t offset = 0;
  analysis::ingest::LineHandlers handlers;
  handlers.line = [&](std::string_view line, int number, size_t) {
    if (offset >= limit) return false;
    if (line.size() > limit - offset) line = line.substr(0, static_cast<size_t>(limit - offset));
    offset += line.size() + 1;
    if (!started) {
      const size_t first = line.find_first_not_of(" \t\r");
      if (first == std::string_view::npos) return true;
      started = true;
      if (line[first] == '{') return !(json = true);
    }
    reader.line(line, number);
    return true;
  };
  handlers.tooLong = [&](int number, size_t bytes) {
    offset += bytes + 1;
    if (offset <= limit) builder.diagnostic({number, analysis::ingest::tooLongMessage(bytes), false});
  };
  const analysis::ingest::ReadOutcome outcome = analysis::ingest::forEachLine(job.path, 0, handlers);
  if (json) return false;
  std::error_code ec;
  const uint64_t size = fs::file_size(job.path, ec);
  if (!ec && size > limit)
    result.diagnostics.push_back(
        {job.path, 0, std::to_string(size - limit) + " bytes written after the run ended, ignored"});
  if (!outcome.error.empty()) {
    std::string error = outcome.reason.empty() ? outcome.error : outcome.reason;
    if (!error.ends_with("; skipped")) error += outcome.opened ? "; the rest of the file is not read" : "; skipped";
    result.diagnostics.push_back({job.path, 0, error});
  }
  reader.finish();
  return true;
}

void readJsonJob(const Job& job, sweep::OutputRowBuilder& builder, JobResult& result) {
  const RegularFile file = readRegularFile(job.path, kMaxJsonBytes);
  if (!file.ok()) {
    result.diagnostics.push_back({job.path, 0, file.reason + " (a -J JSON file); skipped"});
    return;
  }
  std::string_view bytes = file.bytes;
  if (job.byteLimit && bytes.size() > *job.byteLimit) {  // a process that escaped the run's group wrote on
    result.diagnostics.push_back(
        {job.path, 0, std::to_string(bytes.size() - *job.byteLimit) + " bytes written after the run ended, ignored"});
    bytes = bytes.substr(0, *job.byteLimit);
  }
  sweep::ParsedText parsed = sweep::parseNcclTestsJson(bytes);
  for (sweep::Diagnostic& d : parsed.diagnostics) builder.diagnostic(std::move(d));
  for (sweep::TestRun& run : parsed.runs) {
    std::vector<sweep::Row> rows = std::move(run.rows);
    run.rows.clear();
    for (sweep::Row& row : rows) builder.row(run, std::move(row));
    builder.runEnd(std::move(run));
  }
}

void readJob(const Job& job, size_t index, size_t keepDiagnostics, OrderedOutput& output, JobResult& result) {
  RowText rows(kPieceBytes, [&](std::string& piece) { output.write(index, piece); });
  sweep::OutputRowBuilder builder(
      job.context, [&](const DatasetRow& row, const sweep::DatasetLineParts& parts) { rows.add(row, parts); },
      keepDiagnostics);
  if (!readTextJob(job, builder, result)) readJsonJob(job, builder, result);
  builder.finish();
  rows.finish();
  std::string text;
  if (const std::optional<sweep::DatasetSource> source = builder.sourceLine())
    sweep::appendDatasetSource(*source, text);  // what was dropped stays on record beside the rows
  output.write(index, text);
  output.done(index);
  for (DatasetDiagnostic& d : builder.diagnostics) result.diagnostics.push_back(std::move(d));
  result.moreDiagnostics = builder.moreDiagnostics;
  result.runs = builder.runs;
  result.rows = builder.rows;
  result.flagged = builder.flagged;
  result.badRows = builder.badRows;
  if (result.rows == 0) result.diagnostics.push_back({job.path, 0, "no nccl-tests result rows"});
}

// What a sweep folder's manifest says of runs that gave no output to read.
struct FolderRuns {
  size_t rejected = 0, failed = 0;
};

// "allreduce.ring-ll128.r0 (ring/ll128): failed, exit 3: <reason>; no rows (runs/allreduce.ring-ll128.r0.txt)"
std::string runWithoutRows(const sweep::ManifestEntry& e) {
  std::string out = e.id + " (" + e.choice.label() + "): " +
                    (e.status == sweep::RunStatus::Rejected ? std::string("rejected by NCCL")
                                                            : std::string(sweep::runStatusName(e.status))) +
                    ", exit " + std::to_string(e.exitCode);
  if (!e.reason.empty()) out += ": " + e.reason;
  return out + "; no rows (" + (e.output.empty() ? std::string("no output file") : e.output) + ")";
}

// The jobs of a sweep folder: one per run its manifest says completed; the others are listed.
void manifestJobs(const std::string& dir, const Job& base, std::vector<Job>& jobs,
                  std::vector<DatasetDiagnostic>& notes, FolderRuns& runs) {
  const std::string path = (fs::path(dir) / sweep::kManifestFileName).string();
  const RegularFile file = readRegularFile(path, kMaxInputFileBytes);
  if (!file.ok()) throw std::runtime_error(file.describe());
  const sweep::Manifest manifest = sweep::readManifestText(file.bytes);
  for (const sweep::ManifestDiagnostic& d : manifest.diagnostics) notes.push_back({path, d.line, d.message});
  for (const sweep::ManifestEntry& e : manifest.entries) {
    if (e.status != sweep::RunStatus::Ok) {
      ++(e.status == sweep::RunStatus::Rejected ? runs.rejected : runs.failed);
      notes.push_back({path, 0, runWithoutRows(e)});
      continue;
    }
    Job job = base;
    const std::string json = e.json.empty() ? "" : (fs::path(dir) / e.json).string();
    job.path = !json.empty() && fs::is_regular_file(json) && fs::file_size(json) > 0
                   ? json
                   : (fs::path(dir) / e.output).string();
    job.context.source = job.path;
    if (job.path == (fs::path(dir) / e.output).string()) job.byteLimit = e.outputBytes;
    job.context.env = e.env;
    job.context.envFrom = sweep::ForcedBy::Manifest;
    job.context.repeat = e.repeat;
    job.context.test = e.test;
    if (job.context.nvlDomains == 0 && job.context.domainOfHost.empty()) job.context.nvlDomains = e.nvlDomains;
    if (job.context.mnnvl.empty()) job.context.mnnvl = e.mnnvl;
    jobs.push_back(std::move(job));
  }
}

void printWarnings(const std::vector<DatasetDiagnostic>& notes, size_t more, size_t maxWarnings) {
  size_t shown = 0;
  for (const DatasetDiagnostic& d : notes) {
    if (shown++ == maxWarnings) break;
    std::cerr << "railtune: warning: " << d.source << (d.line > 0 ? ":" + std::to_string(d.line) : "") << ": "
              << d.message << "\n";
  }
  const size_t hidden = notes.size() > maxWarnings ? notes.size() - maxWarnings + more : more;
  if (hidden > 0) std::cerr << "railtune: warning: ... and " << hidden << " more (--max-warnings N shows more)\n";
}

int runParse(const ParseOptions& opts, const CLI::App& app) {
  if (opts.output.empty()) throw std::invalid_argument("-o DATASET.jsonl is required");
  Job base;
  base.context.collective = opts.collective;
  base.context.domainOfHost = opts.shape.domainOfHost();
  base.context.nvlDomains = opts.shape.nvlDomains;
  base.context.mnnvl = opts.shape.mnnvl;
  // --env applies to the inputs after it: walk the options in the order they were given.
  std::vector<std::pair<std::string, std::map<std::string, std::string>>> inputs;
  std::map<std::string, std::string> env;
  size_t envSeen = 0, inputSeen = 0;
  for (const CLI::Option* option : app.parse_order()) {
    if (option->get_name() == "--env") {
      const auto [key, value] = keyValue(opts.env.at(envSeen++));
      env[key] = value;
    } else if (option->get_name() == "INPUT") {
      inputs.emplace_back(opts.inputs.at(inputSeen++), env);
    }
  }
  if (envSeen > 0 && inputs.back().second.empty())  // --env given only after the files: it applies to them all
    for (auto& input : inputs) input.second = env;

  std::vector<Job> jobs;
  std::vector<DatasetDiagnostic> notes;
  FolderRuns folderRuns;
  for (const auto& [input, inputEnv] : inputs) {
    Job job = base;
    job.context.env = inputEnv;
    job.context.envFrom = inputEnv.empty() ? sweep::ForcedBy::None : sweep::ForcedBy::Option;
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
      if (fs::is_regular_file(fs::path(input) / sweep::kManifestFileName, ec)) {
        if (!inputEnv.empty()) notes.push_back({input, 0, "--env ignored: the manifest says what forced each run"});
        manifestJobs(input, job, jobs, notes, folderRuns);
        continue;
      }
      const analysis::ingest::FolderWalk walk = analysis::ingest::walkLogFolders(
          {input}, [](std::string_view name) { return !name.starts_with('.') && !name.ends_with(".jsonl"); });
      for (const analysis::ingest::WalkNote& n : walk.notes) notes.push_back({n.path, 0, n.message});
      for (const analysis::ingest::WalkedFile& f : walk.files) {
        job.path = f.path;
        job.context.source = f.path;
        jobs.push_back(job);
      }
      continue;
    }
    job.path = input;
    job.context.source = input;
    jobs.push_back(std::move(job));
  }
  const size_t runsWithoutRows = folderRuns.failed + folderRuns.rejected;
  if (jobs.empty() && runsWithoutRows == 0) throw std::runtime_error("no nccl-tests output files among the inputs");

  // Rows streamed to the dataset in input order; nothing is left behind when no row was read.
  std::vector<JobResult> results(jobs.size());
  std::optional<AtomicFile> file;
  if (!jobs.empty()) file.emplace(opts.output);
  OrderedOutput output(jobs.size(), kMaxBufferedBytes, [&](std::string_view bytes) { file->write(bytes); });
  parallelFor(jobs.size(), [&](size_t i) { readJob(jobs[i], i, opts.maxWarnings + 1, output, results[i]); });
  if (!output.error().empty()) throw std::runtime_error(output.error());

  size_t rows = 0, runs = 0, flagged = 0, badRows = 0, filesWithRows = 0, more = 0;
  for (JobResult& r : results) {
    rows += r.rows;
    runs += r.runs;
    filesWithRows += r.rows > 0 ? 1 : 0;
    flagged += r.flagged;
    badRows += r.badRows;
    more += r.moreDiagnostics;
    for (DatasetDiagnostic& d : r.diagnostics) notes.push_back(std::move(d));
  }
  if (rows > 0) file->commit();
  printWarnings(notes, more, opts.maxWarnings);
  std::cout << (rows > 0 ? "wrote " + opts.output : std::string("nothing written")) << ": " << rows << " rows from "
            << filesWithRows << " of " << jobs.size() << " files (" << runs << " runs)";
  if (badRows > 0) std::cout << "; " << badRows << " bad rows dropped (impossible values or columns; see warnings)";
  if (flagged > 0) std::cout << "; " << flagged << " rows flagged for #wrong (kept, never used for rules)";
  if (folderRuns.rejected > 0) std::cout << "; " << folderRuns.rejected << " runs NCCL rejected";
  if (folderRuns.failed > 0) std::cout << "; " << folderRuns.failed << " runs failed";
  std::cout << "\n";
  if (rows == 0 && jobs.empty()) {
    std::cerr << "railtune: error: no run of the sweep gave an output to read: " << runsWithoutRows
              << " runs failed or were rejected (listed above)\n";
    return 1;
  }
  if (rows == 0) {
    std::cerr << "railtune: error: no nccl-tests result rows in the inputs\n";
    return 1;
  }
  return 0;
}

}  // namespace

Command addSweepParseCommand(CLI::App& sweepGroup) {
  auto opts = std::make_shared<ParseOptions>();
  CLI::App* sub = sweepGroup.add_subcommand(
      "parse", "nccl-tests outputs (any version, text or -J JSON, or a `sweep run` folder) into a sweep dataset");
  sub->add_option("INPUT", opts->inputs, "nccl-tests outputs, or folders of them (a `sweep run` folder: its manifest)")
      ->required();
  sub->add_option("--env", opts->env,
                  "KEY=VALUE that forced the files after it (NCCL_ALGO=Ring); none: NCCL's default unless NCCL's "
                  "own log says")
      ->allow_extra_args(false);
  sub->add_option("--collective", opts->collective,
                  "for outputs that do not name their program: allreduce, allgather, reducescatter, broadcast, ...");
  sub->add_option("-o,--output", opts->output, "the dataset to write (JSONL)")->required();
  sub->add_option("--max-warnings", opts->maxWarnings, "warnings printed before the rest are counted")
      ->capture_default_str();
  opts->shape.add(*sub);
  return Command{sub, [opts, sub] { return runParse(*opts, *sub); }};
}

}  // namespace railtune::cli
