// `railtune sweep parse [--env KEY=VALUE]... INPUT... -o DATASET.jsonl`: nccl-tests outputs of any version (text
// or -J JSON) into the sweep dataset (docs/formats.md#sweep-dataset). An input is a file, or a folder: a sweep
// folder of `railtune sweep run` (its manifest says what forced each output), else every file below it. Each
// --env applies to the files after it on the command line (to all files when none follows). Files are read in
// parallel; rows are written in input order.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/ingest/folder_walk.h"
#include "analysis/ingest/parallel_for.h"
#include "cli/sweep/output_file.h"
#include "cli/sweep/shape_options.h"
#include "cli/sweep/sweep.h"
#include "common/regular_file.h"
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
  std::vector<DatasetDiagnostic> diagnostics;
  size_t runs = 0;
  size_t flagged = 0;  // rows with a non-zero #wrong (kept, never used for rules)
  std::string text;    // the rows as dataset lines
};

std::pair<std::string, std::string> keyValue(const std::string& item) {
  const size_t eq = item.find('=');
  if (eq == std::string::npos || eq == 0) throw std::invalid_argument("--env " + item + ": expected KEY=VALUE");
  return {item.substr(0, eq), item.substr(eq + 1)};
}

bool startsWithBrace(const std::string& text) {
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '{';
  }
  return false;
}

void readJob(const Job& job, JobResult& result) {
  const RegularFile file = readRegularFile(job.path, kMaxInputFileBytes);
  if (!file.ok()) {
    result.diagnostics.push_back({job.path, 0, file.reason + "; skipped"});
    return;
  }
  std::string_view bytes = file.bytes;
  if (job.byteLimit && bytes.size() > *job.byteLimit) {  // a process that escaped the run's group wrote on
    result.diagnostics.push_back(
        {job.path, 0, std::to_string(bytes.size() - *job.byteLimit) + " bytes written after the run ended, ignored"});
    bytes = bytes.substr(0, *job.byteLimit);
  }
  const sweep::ParsedText parsed =
      startsWithBrace(file.bytes) ? sweep::parseNcclTestsJson(bytes) : sweep::parseNcclTestsText(bytes);
  for (const sweep::Diagnostic& d : parsed.diagnostics)
    result.diagnostics.push_back({job.path, static_cast<size_t>(d.line), d.message});
  result.runs = parsed.runs.size();
  std::vector<DatasetRow> rows;
  sweep::appendRowsFromOutput(parsed, job.context, rows, result.diagnostics);
  if (rows.empty()) result.diagnostics.push_back({job.path, 0, "no nccl-tests result rows"});
  for (const DatasetRow& row : rows) {
    sweep::appendDatasetRow(row, result.text);
    result.flagged += row.valid ? 0 : 1;
  }
  result.rows = rows.size();
}

// The jobs of a sweep folder: one per run its manifest says completed; the others are reported.
void manifestJobs(const std::string& dir, const Job& base, std::vector<Job>& jobs,
                  std::vector<DatasetDiagnostic>& notes, size_t& rejected) {
  const std::string path = (fs::path(dir) / "manifest.jsonl").string();
  const RegularFile file = readRegularFile(path, kMaxInputFileBytes);
  if (!file.ok()) throw std::runtime_error(file.describe());
  const sweep::Manifest manifest = sweep::readManifestText(file.bytes);
  for (const sweep::ManifestDiagnostic& d : manifest.diagnostics) notes.push_back({path, d.line, d.message});
  for (const sweep::ManifestEntry& e : manifest.entries) {
    if (e.status == sweep::RunStatus::Rejected) {
      ++rejected;
      notes.push_back({path, 0, e.id + ": NCCL rejected it (" + e.reason + "); no rows"});
      continue;
    }
    if (e.status != sweep::RunStatus::Ok) {
      notes.push_back({path, 0, e.id + ": " + sweep::runStatusName(e.status) + " (" + e.reason + "); no rows"});
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
  size_t rejected = 0;
  for (const auto& [input, inputEnv] : inputs) {
    Job job = base;
    job.context.env = inputEnv;
    job.context.envFrom = inputEnv.empty() ? sweep::ForcedBy::None : sweep::ForcedBy::Option;
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
      if (fs::is_regular_file(fs::path(input) / "manifest.jsonl", ec)) {
        if (!inputEnv.empty()) notes.push_back({input, 0, "--env ignored: the manifest says what forced each run"});
        manifestJobs(input, job, jobs, notes, rejected);
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
  if (jobs.empty()) throw std::runtime_error("no nccl-tests output files among the inputs");

  std::vector<JobResult> results(jobs.size());
  analysis::ingest::parallelFor(jobs.size(), [&](size_t i) { readJob(jobs[i], results[i]); });

  std::vector<std::string> pieces;
  size_t rows = 0, runs = 0, flagged = 0, filesWithRows = 0;
  for (JobResult& r : results) {
    rows += r.rows;
    runs += r.runs;
    filesWithRows += r.text.empty() ? 0 : 1;
    flagged += r.flagged;
    for (DatasetDiagnostic& d : r.diagnostics) notes.push_back(std::move(d));
    pieces.push_back(std::move(r.text));
  }
  if (rows > 0) writeOutputFile(opts.output, pieces);  // nothing read: no empty dataset left behind
  size_t shown = 0;
  for (const DatasetDiagnostic& d : notes) {
    if (shown++ == opts.maxWarnings) {
      std::cerr << "railtune: warning: ... and " << notes.size() - opts.maxWarnings
                << " more (--max-warnings N shows more)\n";
      break;
    }
    std::cerr << "railtune: warning: " << d.source << (d.line > 0 ? ":" + std::to_string(d.line) : "") << ": "
              << d.message << "\n";
  }
  std::cout << (rows > 0 ? "wrote " + opts.output : std::string("nothing written")) << ": " << rows << " rows from "
            << filesWithRows << " of " << jobs.size() << " files (" << runs << " runs)";
  if (flagged > 0) std::cout << "; " << flagged << " rows flagged for #wrong (kept, never used for rules)";
  if (rejected > 0) std::cout << "; " << rejected << " runs NCCL rejected";
  std::cout << "\n";
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
