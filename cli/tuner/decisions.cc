// `railtune tuner decisions --nodes N --ranks R [...]`: for each collective and size, NCCL's own pick
// (emulated, or from NCCL's TUNING log) beside the pick NCCL makes after the real tuner plugin has seen
// the same cost table, and why (tuner_compute.h). Exits 1 when the rules cannot be used (a --config that
// is missing or does not parse) or when the plugin disagrees with its rules.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/plugin_files.h"
#include "cli/tuner/compute.h"
#include "cli/tuner/fit_column.h"
#include "cli/tuner/tuner.h"
#include "common/byte_size.h"
#include "emulator/tuner_decisions/render.h"
#include "formats/tuner_rules/rule.h"

namespace railtune::cli {
namespace {

struct DecisionsOptions {
  CommunicatorRequest comm;
  std::string railMap;
  std::string config;
  std::string modelFile;
  std::string nccl = "2.30";
  std::string format = "table";
  std::string tuningLog;
  std::string plugin;  // "" = <bin>/../lib/libnccl-tuner-railtune.so
  std::vector<std::string> collectives;
  std::string minBytes = "8";
  std::string maxBytes = "16G";
  std::string dataType = "float";
  std::string op = "sum";
  std::string registration = "none";
  std::string ctaPolicy;  // "" = NCCL_CTA_POLICY, else default
};

// "8", "4096", "64K", "1M", "16G", "2T" (binary multiples; a trailing "B"/"iB" is accepted).
uint64_t parseByteCount(const std::string& option, const std::string& text) {
  const ByteSize size = readByteSize(text);
  switch (size.problem) {
    case ByteSize::Problem::kNone:
      return size.bytes;
    case ByteSize::Problem::kNotANumber:
      throw std::invalid_argument(option + " '" + text + "' is not a byte count (8, 4096, 64K, 16G)");
    case ByteSize::Problem::kUnknownUnit:
      throw std::invalid_argument(option + " '" + text + "': unknown unit (K, M, G or T)");
    case ByteSize::Problem::kTooLarge:
      break;
  }
  throw std::invalid_argument(option + " '" + text + "' is too large");
}

// The rules' reader of collective names (without case: "AllReduce" and "allreduce"), so that a name taken here
// is taken in a rules file too.
std::vector<formats::Collective> parseCollectives(const std::vector<std::string>& names) {
  if (names.empty()) return DecisionsRequest::defaultCollectives();
  std::vector<formats::Collective> out;
  for (const std::string& name : names) {
    formats::Collective c{};
    if (!formats::tuner_rules::collectiveFromRuleName(name, &c))
      throw std::invalid_argument("--collectives: unknown collective '" + name +
                                  "' (AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, in any case)");
    out.push_back(c);
  }
  return out;
}

std::string envOrEmpty(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// The call's datatype, reduction, registration and CTA policy, and NCCL's variables for the paths no tuner
// sees (emulator/nccl_model/bypass.h). --cta-policy defaults to NCCL_CTA_POLICY, as NCCL reads it.
emu::BypassSettings buildBypass(const DecisionsOptions& opts) {
  emu::BypassSettings b;
  const auto dataType = ncclmodel::parseDataType(opts.dataType);
  if (!dataType)
    throw std::invalid_argument("--datatype: unknown datatype '" + opts.dataType + "' (nccl-tests' -d names)");
  const auto op = ncclmodel::parseRedOp(opts.op);
  if (!op) throw std::invalid_argument("--op must be sum, prod, max, min or avg, not '" + opts.op + "'");
  const auto registration = ncclmodel::parseRegistration(opts.registration);
  if (!registration)
    throw std::invalid_argument("--registration must be none, local or symmetric (nccl-tests -R 0/1/2), not '" +
                                opts.registration + "'");
  const std::string ctaText = opts.ctaPolicy.empty() ? envOrEmpty("NCCL_CTA_POLICY") : opts.ctaPolicy;
  const auto cta = ctaText.empty() ? std::optional<ncclmodel::CtaPolicy>(ncclmodel::CtaPolicy{})
                                   : ncclmodel::parseCtaPolicy(ctaText);
  if (!cta)
    throw std::invalid_argument((opts.ctaPolicy.empty() ? "NCCL_CTA_POLICY '" : "--cta-policy '") + ctaText +
                                "' names no CTA policy (default, efficiency, zero, joined by |, or 0/1/2)");
  b.dataType = *dataType;
  b.op = *op;
  b.registration = *registration;
  b.cta = *cta;
  b.env = ncclmodel::readBypassEnv([](const char* name) { return std::getenv(name); });
  const ncclmodel::BypassEnv defaults;
  b.given = *registration != ncclmodel::Registration::None || *cta != ncclmodel::CtaPolicy{} || b.env.symCeThreshold ||
            !b.env.symKernel.empty() || b.env.symNoWinEnable || b.env.symTmaEnable ||
            b.env.winEnable != defaults.winEnable || b.env.cuMemEnable != defaults.cuMemEnable;
  return b;
}

DecisionsRequest buildRequest(const DecisionsOptions& opts) {
  DecisionsRequest request;
  request.comm = opts.comm;
  const std::optional<emu::NcclBehaviour> nccl = emu::parseBehaviour(opts.nccl);
  if (!nccl) throw std::invalid_argument("--nccl must be 2.28 or 2.30, not '" + opts.nccl + "'");
  request.nccl = *nccl;
  request.pluginPath = opts.plugin.empty() ? (defaultPluginDir() / "libnccl-tuner-railtune.so").string() : opts.plugin;
  request.tuningLogPath = opts.tuningLog;
  request.collectives = parseCollectives(opts.collectives);
  request.minBytes = parseByteCount("--min-bytes", opts.minBytes);
  request.maxBytes = parseByteCount("--max-bytes", opts.maxBytes);
  request.knobs.algo = envOrEmpty("NCCL_ALGO");  // NCCL's own restrictions reach the table as IGNORE cells
  request.knobs.proto = envOrEmpty("NCCL_PROTO");
  request.bypass = buildBypass(opts);
  return request;
}

int runDecisions(const DecisionsOptions& opts) {
  const std::optional<emu::DecisionsFormat> format = emu::parseDecisionsFormat(opts.format);
  if (!format) throw std::invalid_argument("--format must be table, csv or json, not '" + opts.format + "'");
  const DecisionsRequest request = buildRequest(opts);
  // The plugin reads its configuration from the environment, as it does inside NCCL.
  if (!opts.config.empty()) setenv("RAILTUNE_TUNER_CONFIG", opts.config.c_str(), 1);
  if (!opts.railMap.empty()) setenv("RAILTUNE_RAIL_MAP", opts.railMap.c_str(), 1);
  // A fit applies only where the rail map states its GPU and fabric: without --rail-map, the profile's.
  std::string profileRailMap;
  if (!opts.modelFile.empty()) {
    setenv("RAILTUNE_TUNER_MODEL_FILE", opts.modelFile.c_str(), 1);
    if (opts.railMap.empty()) {
      profileRailMap = writeProfileRailMap(emu::resolveCommunicator(request.comm));
      setenv("RAILTUNE_RAIL_MAP", profileRailMap.c_str(), 1);
    }
  }
  DecisionsReport report;
  try {
    report = computeDecisions(request);
  } catch (...) {
    if (!profileRailMap.empty()) std::filesystem::remove(profileRailMap);
    throw;
  }
  if (!profileRailMap.empty()) {
    std::filesystem::remove(profileRailMap);
    report.railMapPath = "the profile's (" + report.comm.profile + ", written for --model-file)";
  }
  // Each warning once: the table and the JSON carry them (emulator/tuner_decisions/render.cc), the CSV has no place for
  // them.
  if (*format == emu::DecisionsFormat::Csv)
    for (const std::string& warning : report.warnings) std::cerr << "railtune: warning: " << warning << "\n";
  std::cout << emu::formatDecisions(report, *format) << std::flush;
  if (!std::cout) return 1;
  if (!report.rulesPath.empty() && !report.rulesUsable) {
    std::cerr << "railtune tuner decisions: the tuner's rules " << report.rulesPath
              << " cannot be used (see the warnings), so the plugin left every decision to NCCL\n";
    return 1;
  }
  if (const size_t n = report.mismatches()) {
    std::cerr << "railtune tuner decisions: MISMATCH: the plugin's result differs from what the rules say in " << n
              << " decision(s); see the reason column\n";
    return 1;
  }
  return 0;
}

}  // namespace

Command addTunerDecisionsCommand(CLI::App& tunerGroup) {
  auto opts = std::make_shared<DecisionsOptions>();
  CLI::App* sub = tunerGroup.add_subcommand("decisions",
                                            "NCCL's pick beside railtune's and the model's for each collective and "
                                            "size, with the reason (rule n / model / NCCL)");
  sub->add_option("--nodes", opts->comm.nodes, "NCCL's nNodes (with MNNVL an NVL72 rack is one node)")->required();
  sub->add_option("--ranks", opts->comm.ranks, "ranks in the communicator")->required();
  sub->add_option("--mnnvl", opts->comm.mnnvl, "on|off (default: on for NVL72 profiles)")
      ->check(CLI::IsMember({"on", "off"}));
  sub->add_option("--profile", opts->comm.profile, "hardware profile")->capture_default_str();
  sub->add_option("--rail-map", opts->railMap, "rail map for the plugin (sets RAILTUNE_RAIL_MAP)")
      ->check(CLI::ExistingFile);
  sub->add_option("--config", opts->config, "tuner rules for the plugin (sets RAILTUNE_TUNER_CONFIG)");
  sub->add_option("--model-file", opts->modelFile,
                  "fitted model for the plugin (sets RAILTUNE_TUNER_MODEL_FILE; adds the fitted columns)")
      ->check(CLI::ExistingFile);
  sub->add_option("--nccl", opts->nccl, "NCCL behaviour emulated: 2.28|2.30")->capture_default_str();
  sub->add_option("--format", opts->format, "table|csv|json")->capture_default_str();
  sub->add_option("--nccl-tuning-log", opts->tuningLog,
                  "NCCL's NCCL_DEBUG_SUBSYS=TUNING output, used instead of the emulated model")
      ->check(CLI::ExistingFile);
  sub->add_option("--plugin", opts->plugin, "tuner library to load (default: <bin>/../lib/libnccl-tuner-railtune.so)");
  sub->add_option("--collectives", opts->collectives, "collectives to show (default: all five)")->delimiter(',');
  sub->add_option("--min-bytes", opts->minBytes, "smallest size (NCCL's nBytes; K, M, G suffixes)")
      ->capture_default_str();
  sub->add_option("--max-bytes", opts->maxBytes, "largest size")->capture_default_str();
  sub->add_option("--datatype", opts->dataType, "the call's datatype (nccl-tests -d names)")->capture_default_str();
  sub->add_option("--op", opts->op, "the call's reduction: sum|prod|max|min|avg")->capture_default_str();
  sub->add_option("--registration", opts->registration,
                  "how the buffers are registered: none|local|symmetric (nccl-tests -R 0/1/2); symmetric windows "
                  "let NCCL pick symmetric kernels and CE AllGather without a tuner")
      ->capture_default_str();
  sub->add_option("--cta-policy", opts->ctaPolicy,
                  "the communicator's CTA policy: default|efficiency|zero (default: NCCL_CTA_POLICY)");
  return Command{sub, [opts] { return runDecisions(*opts); }};
}

}  // namespace railtune::cli
