// `railtune sweep rules DATASET... -o RULES.json`: tuner rules from a sweep (nccl-tests-integration/rules):
// the decision at each measured size and the coverage report on stdout, the rules in railtune's JSON or
// (--format nccl-csv, or a .csv output) the CSV of NCCL's example tuner. What is written is read back
// through the tuner's own rules reader first: a file the tuner would refuse is never written.
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/sweep/dataset_input.h"
#include "cli/sweep/sweep.h"
#include "common/atomic_file.h"
#include "nccl-tests-integration/rules/rules_choice.h"
#include "nccl-tests-integration/rules/write.h"

namespace railtune::cli {
namespace {

struct RulesOptions {
  std::vector<std::string> datasets;
  std::string output;
  std::string format;  // "railtune-json", "nccl-csv", "" = from the output's extension
  std::string minGain = "5";
  size_t maxWarnings = 20;
};

// "5", "5%", "2.5 %": a percentage.
double parsePercent(const std::string& text) {
  std::string t = text;
  while (!t.empty() && (t.back() == '%' || t.back() == ' ')) t.pop_back();
  size_t end = 0;
  double value = -1;
  try {
    value = std::stod(t, &end);
  } catch (const std::exception&) {
    end = 0;
  }
  if (t.empty() || end != t.size() || value < 0 || value >= 1000)
    throw std::invalid_argument("--min-gain " + text + ": expected a percentage such as 5 or 2.5%");
  return value / 100;
}

int runRules(const RulesOptions& opts) {
  std::string format = opts.format;
  if (format.empty()) format = opts.output.ends_with(".csv") ? "nccl-csv" : "railtune-json";
  sweep::RulesOptions options;
  options.minGain = parsePercent(opts.minGain);
  const sweep::Aggregate aggregate = readDatasets(opts.datasets, opts.maxWarnings);
  const sweep::DerivedRules derived = sweep::deriveRules(aggregate, options);
  const sweep::RulesProvenance provenance{opts.datasets, options.minGain};
  const std::string text =
      format == "nccl-csv" ? sweep::rulesNcclCsv(derived, provenance) : sweep::rulesJson(derived, provenance);
  const formats::tuner_rules::RuleSet check =
      sweep::parseTunerRules(text, opts.output);  // throws when the tuner would refuse it
  writeFileAtomically(opts.output, text);
  std::cout << sweep::rulesReport(derived);
  std::cout << "wrote " << opts.output << ": " << check.rules.size() << (check.rules.size() == 1 ? " rule" : " rules")
            << " from " << aggregate.rowsUsed << " rows (" << derived.groups.size()
            << (derived.groups.size() == 1 ? " collective and shape" : " collectives and shapes") << ")\n";
  return 0;
}

}  // namespace

Command addSweepRulesCommand(CLI::App& sweepGroup) {
  auto opts = std::make_shared<RulesOptions>();
  CLI::App* sub = sweepGroup.add_subcommand(
      "rules",
      "tuner rules from a sweep dataset: the best choice per collective, size range and shape, where it "
      "beats NCCL's default by more than the noise");
  sub->add_option("DATASET", opts->datasets, "sweep datasets (railtune sweep parse)")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("-o,--output", opts->output, "the rules to write (RAILTUNE_TUNER_CONFIG)")->required();
  sub->add_option("--format", opts->format, "railtune-json (default) or nccl-csv (default for a .csv output)")
      ->check(CLI::IsMember({"railtune-json", "nccl-csv"}));
  sub->add_option("--min-gain", opts->minGain,
                  "percent a choice must beat NCCL's default by (and the run-to-run spread)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& text) {
            try {
              parsePercent(text);
            } catch (const std::invalid_argument& e) {
              return std::string(e.what());
            }
            return std::string();
          },
          "PERCENT"));
  sub->add_option("--max-warnings", opts->maxWarnings, "warnings printed before the rest are counted")
      ->capture_default_str();
  return Command{sub, [opts] { return runRules(*opts); }};
}

}  // namespace railtune::cli
