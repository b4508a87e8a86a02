#include "cli/tuner/compute.h"

#include "tuner_plugin/model/advise.h"
#include "tuner_plugin/model/model_inputs.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <regex>
#include <stdexcept>

#include "cli/tuner/fit_column.h"
#include "emulator/logger.h"
#include "emulator/nccl_model/emulated_nccl.h"
#include "emulator/tuner_decisions/bypass_rows.h"
#include "emulator/tuner_driver.h"
#include "formats/tuner_rules/rules_file.h"
#include "tuner_plugin/rules/rule_index.h"

namespace railtune::cli {
namespace {

namespace fs = std::filesystem;
using ncclmodel::EmulatedNccl;
using tuner::Algorithm;
using tuner::Collective;
using tuner::Protocol;

static_assert(sizeof(tuner::CostModelConstants) == sizeof(ncclTunerConstants_v5_t), "constants layout drifted");

constexpr uint64_t kCommId = 0x7261696c74756e65;  // "railtune": any fixed value; decisions may not depend on it

std::string envOrEmpty(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// The plugin's lines since the last call, split: WARN lines become warnings, INFO lines are searched for
// the configuration digest the tuner logs at init ("digest 0123456789abcdef").
void collectPluginLog(DecisionsReport& report, std::vector<std::string>* warnLines) {
  static const std::regex digest("digest ([0-9a-f]{16})");
  for (std::string line : emu::takePluginLog()) {
    while (!line.empty() && line.back() == '\n') line.pop_back();
    for (char& ch : line) ch = ch == '\n' ? ' ' : ch;  // one warning, one line
    std::smatch m;
    if (report.configDigest.empty() && std::regex_search(line, m, digest)) report.configDigest = m[1];
    // The plugin's one line on the fitted model: what it applied, or why nothing.
    if (const size_t at = line.find("RAILTUNE_TUNER_MODEL_FILE=");
        at != std::string::npos && report.fit.status.empty()) {
      report.fit.status = line.substr(line.find(": ", at) == std::string::npos ? at : line.find(": ", at) + 2);
      report.fit.applied = line.find("cost-table cells corrected") != std::string::npos;
    }
    if (line.rfind("WARN ", 0) == 0) {
      report.warnings.push_back("plugin: " + line);
      if (warnLines) warnLines->push_back(line);
    }
  }
}

emu::Binding bindTuner(emu::NcclBehaviour nccl, const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw std::runtime_error("tuner plugin not found: " + path + " (build it, or name it with --plugin)");
  emu::Loader loader(nccl, emu::EnvSource::fromMap({{"NCCL_TUNER_PLUGIN", path}}));
  emu::Binding binding = loader.openTuner();
  if (!binding) {
    std::string why;
    for (const std::string& line : binding.log) why += "\n  " + line;
    throw std::runtime_error("NCCL " + std::string(emu::behaviourName(nccl)) + " binds no tuner from " + path + why);
  }
  return binding;
}

// The rules the plugin reads, recomputed here: RAILTUNE_TUNER_CONFIG, else NCCL_TUNER_CONFIG_FILE.
struct ExpectedRules {
  std::unique_ptr<tuner::rules::RuleIndex> index;  // null: no rules apply (none given, or unreadable)
  std::string source;                              // the file's name, for reasons
};

ExpectedRules readExpectedRules(const Communicator& comm, DecisionsReport& report) {
  ExpectedRules expected;
  report.rulesPath = envOrEmpty("RAILTUNE_TUNER_CONFIG");
  if (report.rulesPath.empty()) report.rulesPath = envOrEmpty("NCCL_TUNER_CONFIG_FILE");
  if (report.rulesPath.empty()) return expected;
  const formats::tuner_rules::RulesResult result = formats::tuner_rules::readRulesFile(report.rulesPath);
  if (!result.ok()) {
    // The plugin's own WARN usually names the same error already: say each fact once.
    for (const tuner::rules::RuleError& e : result.errors) {
      const std::string text = e.describe();
      const bool told = std::any_of(report.warnings.begin(), report.warnings.end(),
                                    [&](const std::string& w) { return w.find(text) != std::string::npos; });
      if (!told) report.warnings.push_back("rules: " + text);
    }
    report.warnings.push_back("rules: " + report.rulesPath +
                              " cannot be used, so the plugin leaves every decision to NCCL");
    return expected;
  }
  tuner::CommInfo info;
  info.nRanks = static_cast<size_t>(comm.shape.nRanks);
  info.nNodes = static_cast<size_t>(comm.shape.nNodes);
  info.nvl = tuner::NvlDomainInfo{comm.shape.nNodes, comm.ranksPerNode, comm.ranksPerNode};
  expected.index = std::make_unique<tuner::rules::RuleIndex>(result.ruleSet, tuner::rules::scopeOf(info));
  expected.source = fs::path(report.rulesPath).filename().string();
  report.rulesUsable = true;
  report.ruleCount = result.ruleSet.rules.size();
  return expected;
}

// The plugin as NCCL holds it for one communicator: bound, and initialised with the communicator's
// sizes, its NVLink-domain info and NCCL's default constants (which the plugin may edit).
struct PluginSession {
  PluginSession(const DecisionsRequest& request, const Communicator& comm, DecisionsReport& report)
      : binding(bindTuner(request.nccl, request.pluginPath)), driver(binding) {
    report.pluginName = driver.pluginName();
    report.pluginSymbol = binding.symbol;
    constants = emu::defaultTunerConstants(request.nccl);
    const ncclNvlDomainInfo_v5_t domains{comm.shape.nNodes, comm.ranksPerNode, comm.ranksPerNode};
    emu::takePluginLog();  // lines of earlier communicators are not this one's
    const ncclResult_t r = driver.init(kCommId, static_cast<size_t>(comm.shape.nRanks),
                                       static_cast<size_t>(comm.shape.nNodes), domains, &constants);
    std::vector<std::string> warnLines;
    collectPluginLog(report, &warnLines);
    failOnViolations();
    if (r != ncclSuccess) {
      std::string lines;
      for (const std::string& line : warnLines) lines += "\n  plugin: " + line;
      throw std::runtime_error("the tuner's init returned ncclResult " + std::to_string(r) +
                               ": NCCL would fail the communicator" + lines);
    }
    for (const std::string& line : warnLines)
      if (line.find("init failed") != std::string::npos) passThrough = true;
    const ncclTunerConstants_v5_t defaults = emu::defaultTunerConstants(request.nccl);
    report.constantsEdited = std::memcmp(&defaults, &constants, sizeof(defaults)) != 0;
  }
  void failOnViolations() const {
    if (driver.violations().empty()) return;
    throw std::runtime_error("the tuner broke NCCL's ABI: " + driver.violations().front());
  }
  tuner::CostModelConstants editedConstants() const {
    tuner::CostModelConstants out;
    std::memcpy(&out, &constants, sizeof(out));
    return out;
  }

  emu::Binding binding;
  emu::TunerDriver driver;
  ncclTunerConstants_v5_t constants{};
  bool passThrough = false;  // the plugin said its init failed and NCCL decides: no rule can apply
};

std::optional<CellChoice> choiceOf(const EmulatedNccl& model, const ncclmodel::CostTable& table, uint64_t nBytes,
                                   int tunerChannels) {
  const std::optional<ncclmodel::Pick> pick = ncclmodel::ncclPick(table);
  if (!pick) return std::nullopt;
  const int channels =
      tunerChannels > 0 ? tunerChannels : ncclmodel::selectChannels(model.model(), *pick, nBytes).nChannels;
  return CellChoice{pick->algorithm, pick->protocol, channels};
}

std::string describeChoice(const std::optional<CellChoice>& c) {
  if (!c) return "nothing";
  return std::string(tuner::algorithmName(c->algorithm)) + "/" + tuner::protocolName(c->protocol) + " ch " +
         std::to_string(c->nChannels);
}

}  // namespace

namespace {

// The plugin once more, with the fitted model alone (rules and the cost model off): the `fitted` column.
struct FitSide {
  std::unique_ptr<PluginSession> plugin;
  std::optional<EmulatedNccl> edited;  // NCCL's model at the constants this session left; nullopt = unchanged
  bool applied = false;
};

struct RowContext {
  const EmulatedNccl& ncclSide;   // NCCL without a tuner: the left-hand column
  const EmulatedNccl& tunedSide;  // NCCL's model after the plugin's init (its constant edits, if any)
  PluginSession& plugin;
  const ExpectedRules& rules;
  bool modelOn = false;  // RAILTUNE_TUNER_MODEL=on: the plugin may change a pick no rule covers
  const std::optional<tuner::model::ModelInputs>& model;  // the model as the plugin builds it; nullopt = off
  FitSide* fit = nullptr;                                 // with --model-file
};

ncclmodel::CostTable fromDriverTable(const emu::CostTable& table) {
  ncclmodel::CostTable out{};
  for (int a = 0; a < tuner::kNumAlgorithms; a++)
    for (int p = 0; p < tuner::kNumProtocols; p++) out[a][p] = table[a][p];
  return out;
}

DecisionReason mismatch(std::string text) {
  DecisionReason reason;
  reason.kind = DecisionReason::Kind::Mismatch;
  reason.text = "MISMATCH: " + std::move(text);
  return reason;
}

// What the rule says NCCL ends up with: its cell (made the cheapest) and its channels (0 = NCCL's own,
// which the plugin signals by returning 0).
DecisionReason explainRule(const tuner::rules::Rule& rule, const std::string& source,
                           const std::optional<CellChoice>& railtune, int tunerChannels) {
  const std::string name =
      "rule " + std::to_string(rule.number) + " (" + source + ":" + std::to_string(rule.line) + ")";
  const bool agrees = railtune && railtune->algorithm == rule.algorithm && railtune->protocol == rule.protocol &&
                      tunerChannels == rule.channels;
  if (!agrees) {
    DecisionReason reason = mismatch(
        name + " says " + tuner::algorithmName(rule.algorithm) + "/" + tuner::protocolName(rule.protocol) + " with " +
        (rule.channels > 0 ? std::to_string(rule.channels) + " channels" : "NCCL's channels") + ", the plugin gave " +
        describeChoice(railtune) + " (nChannels " + std::to_string(tunerChannels) + ")");
    reason.rule = rule.number;
    return reason;
  }
  return DecisionReason{DecisionReason::Kind::Rule, rule.number, source, rule.line, name};
}

DecisionReason explain(const RowContext& ctx, const DecisionRow& row, const ncclmodel::CostTable& offered,
                       int tunerChannels) {
  const Collective c = row.collective;
  const uint64_t nBytes = row.nBytes;
  const std::optional<CellChoice>& railtune = row.railtune;
  const auto usable = [&offered](Algorithm a, Protocol p) {
    return offered[static_cast<size_t>(a)][static_cast<size_t>(p)] >= 0.0f;
  };
  const tuner::rules::Rule* rule =
      ctx.plugin.passThrough || !ctx.rules.index ? nullptr : ctx.rules.index->lookup(c, nBytes, 1, 0, usable);
  if (rule) return explainRule(*rule, ctx.rules.source, railtune, tunerChannels);
  // The fit moved NCCL's pick (its constants, its corrections) and nothing else did.
  if (ctx.fit && ctx.fit->applied && railtune == row.fitted && railtune != row.nccl && tunerChannels == 0)
    return DecisionReason{DecisionReason::Kind::Fit, 0, "", 0, "fit"};
  const std::optional<CellChoice> untouched = choiceOf(ctx.tunedSide, offered, nBytes, 0);
  if (railtune == untouched && tunerChannels == 0) return DecisionReason{DecisionReason::Kind::Nccl, 0, "", 0, "NCCL"};
  if (ctx.modelOn) return DecisionReason{DecisionReason::Kind::Model, 0, "", 0, "model"};
  return mismatch("no rule applies and RAILTUNE_TUNER_MODEL is not on, yet the plugin changed " +
                  describeChoice(untouched) + " to " + describeChoice(railtune) + " (nChannels " +
                  std::to_string(tunerChannels) + ")");
}

// The `fitted` column: NCCL's pick after the fit-only session edited NCCL's table (at its constants).
void fitRow(FitSide& fit, const EmulatedNccl& ncclSide, DecisionRow& row) {
  const EmulatedNccl& side = fit.edited ? *fit.edited : ncclSide;
  emu::CostTable table;
  ncclmodel::copyTo(side.costTable(row.collective, row.nBytes), table);
  int channels = 0;
  const ncclResult_t r = fit.plugin->driver.getCollInfo(static_cast<ncclFunc_t>(static_cast<int>(row.collective)),
                                                        row.nBytes, 1, table, 0, &channels);
  fit.plugin->failOnViolations();
  if (r != ncclSuccess) throw std::runtime_error("the tuner's getCollInfo failed with the fitted model alone");
  row.fitted = choiceOf(side, fromDriverTable(table), row.nBytes, channels);
  row.fittedReason = !fit.applied             ? "no fit (see the header)"
                     : row.fitted == row.nccl ? "NCCL (the fit agrees)"
                                              : "fit";
}

DecisionRow decideRow(const RowContext& ctx, Collective c, uint64_t nBytes) {
  DecisionRow row;
  row.collective = c;
  row.nBytes = nBytes;
  if (const std::optional<ncclmodel::NcclDecision> d = ctx.ncclSide.decide(c, nBytes))
    row.nccl = CellChoice{d->pick.algorithm, d->pick.protocol, d->channels.nChannels};
  const ncclmodel::CostTable offered = ctx.tunedSide.costTable(c, nBytes);
  emu::CostTable table;
  ncclmodel::copyTo(offered, table);
  int tunerChannels = 0;  // NCCL starts at 0: "keep NCCL's choice"
  const ncclResult_t r =
      ctx.plugin.driver.getCollInfo(static_cast<ncclFunc_t>(static_cast<int>(c)), nBytes, 1, table, 0, &tunerChannels);
  ctx.plugin.failOnViolations();
  if (r != ncclSuccess)
    throw std::runtime_error(std::string("the tuner's getCollInfo(") + tuner::collectiveName(c) + ", " +
                             std::to_string(nBytes) + ") returned ncclResult " + std::to_string(r) +
                             ": NCCL would fail the collective");
  const ncclmodel::CostTable returned = fromDriverTable(table);
  if (const std::optional<ncclmodel::Pick> pick = ncclmodel::ncclPick(returned);
      pick && offered[static_cast<size_t>(pick->algorithm)][static_cast<size_t>(pick->protocol)] < 0.0f) {
    // NCCL would run a cell it never set up (no channel count to emulate for it): always a plugin bug.
    row.railtune = CellChoice{pick->algorithm, pick->protocol, tunerChannels};
    row.reason = mismatch(std::string("the plugin made NCCL pick ") + tuner::algorithmName(pick->algorithm) + "/" +
                          tuner::protocolName(pick->protocol) + ", a cell NCCL had marked IGNORE");
    return row;
  }
  row.railtune = choiceOf(ctx.tunedSide, returned, nBytes, tunerChannels);
  if (ctx.fit) fitRow(*ctx.fit, ctx.ncclSide, row);
  row.reason = explain(ctx, row, offered, tunerChannels);
  if (ctx.model) {  // the same library and inputs as the plugin's, over the table NCCL offered
    emu::CostTable advised;
    ncclmodel::copyTo(offered, advised);
    if (const auto advice =
            tuner::model::advise(*ctx.model, tuner::CollQuery{c, nBytes, 1, false}, tuner::CostTableView(advised)))
      row.model = CellChoice{advice->algorithm, advice->protocol, 0};
  }
  return row;
}

}  // namespace

std::vector<Collective> DecisionsRequest::defaultCollectives() {
  return {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter, Collective::Broadcast,
          Collective::Reduce};
}

std::vector<uint64_t> requestSizes(uint64_t minBytes, uint64_t maxBytes) {
  std::vector<uint64_t> sizes;
  uint64_t size = 1;
  while (size < minBytes && size <= (uint64_t{1} << 62)) size <<= 1;
  for (; size >= minBytes && size <= maxBytes; size <<= 1) {
    sizes.push_back(size);
    if (size == (uint64_t{1} << 63)) break;
  }
  if (sizes.empty())
    throw std::invalid_argument("no power of two between --min-bytes " + std::to_string(minBytes) +
                                " and --max-bytes " + std::to_string(maxBytes));
  return sizes;
}

// Without a rail map the model takes the hardware profile's NICs (gb300-nvl72: 4 ConnectX-8 of 800 Gb/s per
// tray), not the model's built-in GB200 figure (400 Gb/s). The model counts one NIC per GPU, so a profile
// with another ratio is given the NIC bandwidth each GPU's share comes to.
namespace {
tuner::model::FabricDefaults profileFabric(const Communicator& comm) {
  tuner::model::FabricDefaults defaults;
  if (comm.nicSpeedMbps <= 0 || comm.nicsPerHost <= 0 || comm.gpusPerHost <= 0) return defaults;
  defaults.nicGbps = comm.nicSpeedMbps / 1000.0 * comm.nicsPerHost / comm.gpusPerHost;
  defaults.gpusPerTray = comm.gpusPerHost;
  return defaults;
}
}  // namespace

namespace {
// The header's facts of the model file, and the plugin once more with the fit alone (rules and model off).
FitSide startFitSide(const DecisionsRequest& request, DecisionsReport& report, int abiVersion) {
  const emu::FitSummary fromPlugin = report.fit;  // status and applied, from the plugin's own line
  report.fit = describeFitFile(fromPlugin.path, report.railMapPath, report.comm, abiVersion);
  report.fit.status =
      fromPlugin.status.empty() ? "the plugin said nothing of it (see the warnings)" : fromPlugin.status;
  report.fit.applied = fromPlugin.applied;
  ScopedEnv env;
  for (const char* rules : {"RAILTUNE_TUNER_CONFIG", "NCCL_TUNER_CONFIG_FILE"}) env.unset(rules);
  env.set("RAILTUNE_TUNER_MODEL", "off");
  DecisionsReport scratch;  // this session's lines repeat the first's
  FitSide fit;
  fit.plugin = std::make_unique<PluginSession>(request, report.comm, scratch);
  fit.applied = report.fit.applied;
  const ncclTunerConstants_v5_t defaults = emu::defaultTunerConstants(request.nccl);
  report.fit.constantsWritten = constantsWritten(defaults, fit.plugin->constants);
  if (scratch.constantsEdited && request.tuningLogPath.empty())
    fit.edited.emplace(request.nccl, report.comm.profile, report.comm.shape, request.knobs,
                       fit.plugin->editedConstants());
  return fit;
}
}  // namespace

DecisionsReport computeDecisions(const DecisionsRequest& request) {
  DecisionsReport report;
  report.comm = resolveCommunicator(request.comm);
  const std::vector<uint64_t> sizes = requestSizes(request.minBytes, request.maxBytes);
  report.ncclVersion = emu::behaviourName(request.nccl);
  report.pluginPath = request.pluginPath;
  report.railMapPath = envOrEmpty("RAILTUNE_RAIL_MAP");
  report.fit.path = envOrEmpty("RAILTUNE_TUNER_MODEL_FILE");
  EmulatedNccl ncclSide(request.nccl, report.comm.profile, report.comm.shape, request.knobs);
  const bool fromLog = !request.tuningLogPath.empty();
  if (fromLog) ncclSide.useTuningTable(ncclmodel::readTuningLogFile(request.tuningLogPath), request.tuningLogPath);
  report.ncclLabel = ncclSide.label();
  PluginSession plugin(request, report.comm, report);
  const ExpectedRules rules = readExpectedRules(report.comm, report);
  std::optional<EmulatedNccl> edited;  // NCCL rebuilds its model from the constants the plugin edited
  if (report.constantsEdited && !fromLog)
    edited.emplace(request.nccl, report.comm.profile, report.comm.shape, request.knobs, plugin.editedConstants());
  if (report.constantsEdited && fromLog)
    report.warnings.push_back(
        "the plugin edited NCCL's cost-model constants at init; NCCL's TUNING log cannot show "
        "their effect, so both columns use the log's table");
  report.modelMode = envOrEmpty("RAILTUNE_TUNER_MODEL").empty() ? "advise" : envOrEmpty("RAILTUNE_TUNER_MODEL");
  std::optional<tuner::model::ModelInputs> model;
  if (report.modelMode != "off") {
    tuner::model::BuildMessages messages;
    const tuner::CostModelConstants constants = plugin.editedConstants();
    tuner::CommInfo comm;
    comm.nRanks = static_cast<size_t>(report.comm.shape.nRanks);
    comm.nNodes = static_cast<size_t>(report.comm.shape.nNodes);
    comm.nvl = tuner::NvlDomainInfo{report.comm.shape.nNodes, report.comm.ranksPerNode, report.comm.ranksPerNode};
    model = tuner::model::fromRailMapFile(report.railMapPath, comm, &constants, profileFabric(report.comm), messages);
    report.modelDescription = tuner::model::describeModel(*model);
    for (const std::string& error : messages.errors) report.warnings.push_back("model: " + error);
  }
  std::optional<FitSide> fit;
  if (!report.fit.path.empty()) fit = startFitSide(request, report, plugin.binding.version);
  const bool modelOn = report.modelMode == "on" && !report.fit.applied;  // the fit demotes the model to advice
  const RowContext ctx{ncclSide, edited ? *edited : ncclSide, plugin, rules, modelOn, model, fit ? &*fit : nullptr};
  for (Collective c : request.collectives)
    for (uint64_t nBytes : sizes) report.rows.push_back(decideRow(ctx, c, nBytes));
  report.bypass = request.bypass;
  emu::markBypassRows(report, ncclSide.model().topo);  // the rows NCCL decides without a tuner
  plugin.driver.finalize();
  if (fit) fit->plugin->driver.finalize();
  collectPluginLog(report, nullptr);
  return report;
}

}  // namespace railtune::cli
