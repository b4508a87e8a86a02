// `railtune sweep parse [--env KEY=VALUE]... INPUT... -o DATASET.jsonl`: nccl-tests outputs of any version (text
// or -J JSON, files, folders, `sweep run` folders) into the sweep dataset (docs/formats.md#sweep-dataset), by
// nccl-tests-integration/dataset/parse_outputs.h. Each --env applies to the files after it on the command line (to
// all files when none follows). Exit status: 0 rows written, 1 no row could be read (nothing written), 2 bad usage
// or an input or output it cannot use (main's handler prints what was thrown).
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cli/sweep/shape_options.h"
#include "cli/sweep/sweep.h"
#include "nccl-tests-integration/dataset/parse_outputs.h"
#include "nccl-tests-integration/run/call_options.h"
#include "nccl-tests-integration/run/plan.h"

namespace railtune::cli {
namespace {

using sweep::DatasetDiagnostic;

struct ParseOptions {
  std::vector<std::string> inputs;
  std::vector<std::string> env;  // KEY=VALUE
  std::string collective;
  std::string testsArgs;  // --nccl-tests-args "-R 2": the -R/-D/-x of outputs that do not say
  std::string output;
  ShapeOptions shape;
  size_t maxWarnings = 20;
};

std::pair<std::string, std::string> keyValue(const std::string& item) {
  const size_t eq = item.find('=');
  if (eq == std::string::npos || eq == 0) throw std::invalid_argument("--env " + item + ": expected KEY=VALUE");
  return {item.substr(0, eq), item.substr(eq + 1)};
}

// --env applies to the inputs after it: the options walked in the order they were given.
std::vector<sweep::ParseInput> inputsWithEnv(const ParseOptions& opts, const CLI::App& app) {
  std::vector<sweep::ParseInput> inputs;
  std::map<std::string, std::string> env;
  size_t envSeen = 0, inputSeen = 0;
  for (const CLI::Option* option : app.parse_order()) {
    if (option->get_name() == "--env") {
      const auto [key, value] = keyValue(opts.env.at(envSeen++));
      env[key] = value;
    } else if (option->get_name() == "INPUT") {
      inputs.push_back({opts.inputs.at(inputSeen++), env});
    }
  }
  if (envSeen > 0 && inputs.back().env.empty())  // --env given only after the files: it applies to them all
    for (sweep::ParseInput& input : inputs) input.env = env;
  return inputs;
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

void printSummary(const sweep::ParseSummary& s, const std::string& output) {
  std::cout << (s.rows > 0 ? "wrote " + output : std::string("nothing written")) << ": " << s.rows << " rows from "
            << s.filesWithRows << " of " << s.jobs << " files (" << s.runs << " runs)";
  if (s.badRows > 0) std::cout << "; " << s.badRows << " bad rows dropped (impossible values or columns; see warnings)";
  if (s.flagged > 0) std::cout << "; " << s.flagged << " rows flagged for #wrong (kept, never used for rules)";
  if (s.rejected > 0) std::cout << "; " << s.rejected << " runs NCCL rejected";
  if (s.failed > 0) std::cout << "; " << s.failed << " runs failed";
  std::cout << "\n";
}

int runParse(const ParseOptions& opts, const CLI::App& app) {
  if (opts.output.empty()) throw std::invalid_argument("-o DATASET.jsonl is required");
  sweep::ParseRequest request;
  static_cast<sweep::DomainFacts&>(request.base) = opts.shape.facts();
  request.base.collective = opts.collective;
  if (!opts.testsArgs.empty()) {  // outputs of a sweep folder keep what their manifest recorded
    try {
      request.base.call = sweep::readCallOptions(sweep::splitCommandLine(opts.testsArgs));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("--nccl-tests-args: ") + e.what());
    }
  }
  request.readCluster = clusterFacts;
  request.inputs = inputsWithEnv(opts, app);
  request.output = opts.output;
  request.keepDiagnostics = opts.maxWarnings + 1;
  const sweep::ParseSummary summary = sweep::parseOutputs(request);
  printWarnings(summary.diagnostics, summary.moreDiagnostics, opts.maxWarnings);
  printSummary(summary, opts.output);
  if (summary.rows == 0 && summary.jobs == 0) {
    std::cerr << "railtune sweep parse: no run of the sweep gave an output to read: "
              << summary.rejected + summary.failed << " runs failed or were rejected (listed above)\n";
    return 1;
  }
  if (summary.rows == 0) {
    std::cerr << "railtune sweep parse: no nccl-tests result rows in the inputs\n";
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
  sub->add_option("--nccl-tests-args", opts->testsArgs,
                  "the -R/-D/-x the outputs were run with (\"-R 2\"), for text outputs without a sweep manifest; "
                  "rows NCCL may have run without the tuner are then kept out of rules and fits");
  sub->add_option("-o,--output", opts->output, "the dataset to write (JSONL)")->required();
  sub->add_option("--max-warnings", opts->maxWarnings, "warnings printed before the rest are counted")
      ->capture_default_str();
  opts->shape.add(*sub);
  return Command{sub, [opts, sub] { return runParse(*opts, *sub); }};
}

}  // namespace railtune::cli
