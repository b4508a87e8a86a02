// `railtune sweep rules DATASET... -o RULES.json [--net-env NET-ENV.json]`: tuner rules from a sweep
// (nccl-tests-integration/rules), and the network settings that won its environment matrix (rules/net_env_winners.h):
// the decision at each measured size and the coverage report on stdout, the rules in railtune's JSON or
// (--format nccl-csv, or a .csv output) the CSV of NCCL's example tuner, read back through the rules reader
// before they are written (rules/write.h).
#include <functional>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/sweep/sweep.h"
#include "common/atomic_file.h"
#include "formats/net_env.h"
#include "nccl-tests-integration/rules/cluster_pick.h"
#include "nccl-tests-integration/rules/net_env_rows.h"
#include "nccl-tests-integration/rules/net_env_winners.h"
#include "nccl-tests-integration/rules/read_datasets.h"
#include "nccl-tests-integration/rules/write.h"

namespace railtune::cli {
namespace {

struct RulesOptions {
  std::vector<std::string> datasets;
  std::string output;
  std::string format;  // "railtune-json", "nccl-csv", "" = from the output's extension
  std::string minGain = "5";
  sweep::ClusterPick pick;   // --gpu, --fabric
  std::string netEnvRows;    // --net-env-rows NAME=V,...: "" = the rows measured under no --env setting
  std::string netEnvOutput;  // --net-env FILE: "" = none
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

// The algorithm rules' rows: those of one network setting (--net-env-rows; none by default), the others counted.
void keepOneNetEnv(sweep::Aggregate& aggregate, const sweep::NetEnv& setting) {
  const size_t otherSettings = sweep::keepNetEnvRows(aggregate, setting);
  if (!setting.empty()) std::cout << "rules from " << sweep::rowsOfSetting(setting) << "\n";
  if (otherSettings > 0)
    std::cout << otherSettings << " rows of other --env settings left out (--net-env-rows picks the setting)\n";
}

// The datasets' rows of the cluster picked (--gpu, --fabric; all when neither), gathered.
sweep::Aggregate readPicked(const RulesOptions& opts) {
  const bool picking = !opts.pick.gpu.empty() || !opts.pick.fabric.empty();
  size_t left = 0;
  const auto keep = [&](const sweep::DatasetRow& row) { return opts.pick.keeps(row.shape); };
  sweep::Aggregate aggregate =
      sweep::readDatasets(opts.datasets, opts.maxWarnings, printWarning,
                          picking ? keep : std::function<bool(const sweep::DatasetRow&)>(), &left);
  if (aggregate.rowsRead == 0)
    throw std::runtime_error("no row of the datasets is of --gpu " + (opts.pick.gpu.empty() ? "(any)" : opts.pick.gpu) +
                             " --fabric " + (opts.pick.fabric.empty() ? "(any)" : opts.pick.fabric) + " (" +
                             std::to_string(left) + " rows of other clusters)");
  if (left > 0) std::cout << left << " rows of other GPUs or fabrics left out (--gpu, --fabric)\n";
  return aggregate;
}

// --net-env: the network settings that won, from every setting's rows, read back before they are written.
void writeNetEnvWinners(const RulesOptions& opts, const sweep::Aggregate& aggregate, double minGain) {
  sweep::NetEnvOptions options;
  options.minGain = minGain;
  options.datasets = opts.datasets;
  options.generatedBy = "railtune sweep rules " RAILTUNE_VERSION;
  const sweep::NetEnvWinners winners = sweep::deriveNetEnvWinners(aggregate, options);
  const std::string text = formats::writeNetEnv(winners.file);
  formats::parseNetEnv(text, opts.netEnvOutput);  // a file the readers would refuse is never written
  writeFileAtomically(opts.netEnvOutput, text);
  std::cout << sweep::netEnvReport(winners);
  const size_t n = winners.file.entries.size();
  std::cout << "wrote " << opts.netEnvOutput << ": " << n << (n == 1 ? " network setting" : " network settings")
            << " won, " << winners.file.notDecided.size() << " not decided\n";
}

// -o: the algorithm rules, from one setting's rows.
void writeAlgorithmRules(const RulesOptions& opts, sweep::Aggregate aggregate, double minGain) {
  sweep::RulesOptions options;
  options.minGain = minGain;
  const sweep::NetEnv setting = sweep::parseNetEnvRows(opts.netEnvRows);
  keepOneNetEnv(aggregate, setting);  // before the clash check: two settings of
  if (const std::string clash = sweep::sharedTunerKey(aggregate); !clash.empty())  // one cluster share a tuner key
    throw std::runtime_error(clash);
  const sweep::DerivedRules derived = sweep::deriveRules(aggregate, options);
  const sweep::RulesFile file = sweep::rulesFile(
      derived, sweep::RulesProvenance{opts.datasets, options.minGain, setting}, opts.format, opts.output);
  writeFileAtomically(opts.output, file.text);
  std::cout << sweep::rulesReport(derived);
  std::cout << "wrote " << opts.output << ": " << file.rules << (file.rules == 1 ? " rule" : " rules") << " from "
            << aggregate.rowsUsed << " rows (" << derived.groups.size()
            << (derived.groups.size() == 1 ? " collective and shape" : " collectives and shapes") << "), "
            << (setting.empty() ? "measured under no --env setting" : "measured under " + sweep::netEnvLabel(setting))
            << "\n";
}

int runRules(const RulesOptions& opts) {
  if (opts.output.empty() && opts.netEnvOutput.empty())
    throw std::invalid_argument("nothing to write: give -o RULES.json, --net-env NET-ENV.json or both");
  const double minGain = parsePercent(opts.minGain);
  sweep::parseNetEnvRows(opts.netEnvRows);  // a bad --net-env-rows fails before anything is read
  sweep::Aggregate aggregate = readPicked(opts);
  if (!opts.netEnvOutput.empty()) writeNetEnvWinners(opts, aggregate, minGain);
  if (!opts.output.empty()) writeAlgorithmRules(opts, std::move(aggregate), minGain);
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
  sub->add_option("-o,--output", opts->output, "the rules to write (RAILTUNE_TUNER_CONFIG)");
  sub->add_option("--net-env", opts->netEnvOutput,
                  "the network settings that won the datasets' `sweep run --env` matrix, per shape, to write "
                  "(railtune.net-env/1, for `topo env --measured`); with or instead of -o");
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
  sub->add_option("--gpu", opts->pick.gpu,
                  "only rows of this GPU (the device lines' name or a part of it: \"H100\"), for one cluster's rules");
  sub->add_option("--fabric", opts->pick.fabric,
                  "only rows of this network: NCCL's transport (IB, Socket, a plugin's name) or IB/RoCE");
  sub->add_option("--net-env-rows", opts->netEnvRows,
                  "NAME=V,...: make the rules from the rows measured under this `sweep run --env` setting (default: "
                  "the rows measured under none)");
  sub->add_option("--max-warnings", opts->maxWarnings, "warnings printed before the rest are counted")
      ->capture_default_str();
  return Command{sub, [opts] { return runRules(*opts); }};
}

}  // namespace railtune::cli
