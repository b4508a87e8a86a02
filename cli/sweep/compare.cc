// `railtune sweep compare DATASET... [--rules RULES] [--tuned DATASET] [--model] -o REPORT.html`: tuned against
// NCCL's default at each measured size, from the sweep (the expected gain of the rules' choices) or from a
// second run made with the rules loaded (--tuned: measured gain), as a table on stdout and an HTML page (an
// SVG plot and the table per collective and shape), an SVG or a text file. --model scores the tuner's cost
// model (RAILTUNE_TUNER_MODEL=advise, through the real plugin as `tuner decisions` runs it): its regret at
// each size beside NCCL default's, with the hardware profile of the data's GPU (picked from the data without
// --profile; a profile of another GPU is warned about, compare/profile_gpu.h). --fitted MODEL.json scores a model
// file of `sweep fit` in the same columns (fit/fitted_choice.h).
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/plugin_files.h"
#include "cli/sweep/sweep.h"
#include "cli/tuner/compute.h"
#include "common/atomic_file.h"
#include "formats/tuner_rules/rule.h"
#include "nccl-tests-integration/compare/group_advice.h"
#include "nccl-tests-integration/compare/profile_gpu.h"
#include "nccl-tests-integration/compare/report.h"
#include "nccl-tests-integration/fit/fitted_choice.h"
#include "nccl-tests-integration/rules/read_datasets.h"
#include "nccl-tests-integration/rules/rules_choice.h"

namespace railtune::cli {
namespace {

constexpr const char* kDefaultProfile = "gb300-nvl72";

struct CompareOptions {
  std::vector<std::string> datasets;
  std::string rules;
  std::string tuned;
  std::string output;
  bool model = false;
  std::string fitted;   // a model file of `sweep fit`: its picks in the model columns
  std::string profile;  // "": from the data's GPU, else kDefaultProfile
  std::string nccl = "2.30";
  std::string plugin;
  size_t maxWarnings = 20;
};

std::optional<sweep::Choice> choiceOf(const std::optional<CellChoice>& cell) {
  if (!cell) return std::nullopt;
  sweep::Choice c;
  c.algorithm = formats::tuner_rules::algorithmRuleName(cell->algorithm);
  c.protocol = formats::tuner_rules::protocolRuleName(cell->protocol);
  return c;
}

// The cost model's advice for a group of the sweep at every power of two, through the real plugin as `tuner
// decisions` runs it; a group it cannot be asked about is a note.
sweep::AdviceBySize modelAdvice(const CompareOptions& opts, const std::string& profile, const sweep::GroupKey& key,
                                std::vector<std::string>& notes) {
  sweep::AdviceBySize out;
  formats::Collective collective{};
  if (!formats::tuner_rules::collectiveFromRuleName(key.collective, &collective)) return out;
  DecisionsRequest request;
  request.comm.profile = profile;
  request.comm.nodes = key.shape.nodes;
  request.comm.ranks = key.shape.ranks;
  request.comm.mnnvl = key.shape.hosts > key.shape.nodes ? "on" : "off";
  const std::optional<emu::NcclBehaviour> nccl = emu::parseBehaviour(opts.nccl);
  if (!nccl) throw std::invalid_argument("--nccl must be 2.28 or 2.30, not '" + opts.nccl + "'");
  request.nccl = *nccl;
  request.pluginPath = opts.plugin.empty() ? (defaultPluginDir() / "libnccl-tuner-railtune.so").string() : opts.plugin;
  request.collectives = {collective};
  request.minBytes = 1;
  request.maxBytes = uint64_t{1} << 40;
  try {
    const DecisionsReport report = computeDecisions(request);
    for (const DecisionRow& row : report.rows) out[row.nBytes] = choiceOf(row.model);
  } catch (const std::exception& e) {
    notes.push_back(key.collective + ", " + key.shape.label() + ": the model cannot be asked (" + e.what() + ")");
  }
  return out;
}

int runCompare(const CompareOptions& opts) {
  // The extension is checked before anything is read.
  const sweep::CompareFile file = opts.output.empty() ? sweep::CompareFile::Text : sweep::compareFileOf(opts.output);
  const sweep::Aggregate aggregate = sweep::readDatasets(opts.datasets, opts.maxWarnings, printWarning);
  std::optional<sweep::Aggregate> tuned;
  if (!opts.tuned.empty()) tuned = sweep::readDatasets({opts.tuned}, opts.maxWarnings, printWarning);

  sweep::CompareRequest request;
  request.sweep = &aggregate;
  request.tuned = tuned ? &*tuned : nullptr;
  std::optional<formats::tuner_rules::RuleSet> rules;
  if (!opts.rules.empty()) {
    rules = sweep::loadTunerRules(opts.rules);
    request.rules = [&](const sweep::GroupKey& key, uint64_t size) { return sweep::ruleChoice(*rules, key, size); };
  }
  std::vector<std::string> notes;
  sweep::ProfileChoice profile;
  if (opts.model) {
    profile = sweep::chooseProfile(opts.profile, sweep::gpuGroupsOf(aggregate), kDefaultProfile);
    for (const std::string& w : profile.warnings) printWarning(w);
  }
  sweep::GroupAdvice advice([&](const sweep::GroupKey& key) { return modelAdvice(opts, profile.profile, key, notes); });
  if (opts.model) {
    // The model advises as it does inside NCCL with RAILTUNE_TUNER_MODEL=advise; rules do not steer it.
    setenv("RAILTUNE_TUNER_MODEL", "advise", 1);
    unsetenv("RAILTUNE_TUNER_CONFIG");
    request.model = [&](const sweep::GroupKey& key, uint64_t size) { return advice.pick(key, size); };
  }
  std::optional<formats::tuner_model::TunerModel> fittedModel;
  std::unique_ptr<sweep::FittedChooser> fitted;
  if (!opts.fitted.empty()) {
    if (opts.model) throw std::invalid_argument("--model and --fitted both fill the model columns: pass one");
    fittedModel = formats::tuner_model::readTunerModelFile(opts.fitted);
    fitted = std::make_unique<sweep::FittedChooser>(*fittedModel, aggregate);
    request.model = [&](const sweep::GroupKey& key, uint64_t size) { return fitted->pick(key, size); };
  }
  sweep::CompareReport report = sweep::buildCompareReport(request);
  if (fitted) {
    report.modelNote = "the fitted model " + opts.fitted +
                       " (sweep fit): emulated NCCL's pick among the measured cells at its constants and corrections";
    notes.insert(notes.end(), fitted->notes().begin(), fitted->notes().end());
  }
  report.inputs = opts.datasets;
  if (!opts.tuned.empty()) report.inputs.push_back(opts.tuned + " (tuned)");
  report.rulesSource = opts.rules;
  if (opts.model)
    report.modelNote = "the railtune tuner's cost model (RAILTUNE_TUNER_MODEL=advise), hardware profile " +
                       profile.profile + (profile.how.empty() ? "" : " (" + profile.how + ")") + ", emulated NCCL " +
                       opts.nccl;
  for (const std::string& n : notes) printWarning(n);
  std::cout << sweep::renderCompareTable(report);
  if (opts.output.empty()) return 0;
  writeFileAtomically(opts.output, sweep::renderCompareFile(report, file, opts.output));
  std::cout << "wrote " << opts.output << ": " << report.groups.size()
            << (report.groups.size() == 1 ? " collective and shape" : " collectives and shapes") << "\n";
  return 0;
}

}  // namespace

Command addSweepCompareCommand(CLI::App& sweepGroup) {
  auto opts = std::make_shared<CompareOptions>();
  CLI::App* sub = sweepGroup.add_subcommand(
      "compare", "tuned against NCCL's default per size: a table, and an HTML/SVG plot of busbw against size");
  sub->add_option("DATASET", opts->datasets, "sweep datasets (railtune sweep parse)")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--rules", opts->rules, "the rules whose choices to show (default: the dataset's own winners)")
      ->check(CLI::ExistingFile);
  sub->add_option("--tuned", opts->tuned, "a dataset of a run made with the rules loaded: measured, not expected, gain")
      ->check(CLI::ExistingFile);
  sub->add_flag("--model", opts->model, "score the tuner's cost model: its regret per size beside NCCL default's");
  sub->add_option("--fitted", opts->fitted,
                  "score a fitted model (sweep fit's MODEL.json): its pick and regret per size beside NCCL default's")
      ->check(CLI::ExistingFile);
  sub->add_option(
      "--profile", opts->profile,
      std::string("hardware profile the model assumes (--model; default: the one of the data's GPU, else ") +
          kDefaultProfile + ")");
  sub->add_option("--nccl", opts->nccl, "NCCL behaviour emulated for the model: 2.28|2.30")->capture_default_str();
  sub->add_option("--plugin", opts->plugin, "tuner library (default: <bin>/../lib/libnccl-tuner-railtune.so)");
  sub->add_option("-o,--output", opts->output, "REPORT.html, REPORT.svg (one collective and shape) or REPORT.txt");
  sub->add_option("--max-warnings", opts->maxWarnings, "warnings printed before the rest are counted")
      ->capture_default_str();
  return Command{sub, [opts] { return runCompare(*opts); }};
}

}  // namespace railtune::cli
