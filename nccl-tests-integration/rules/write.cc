// Writing derived rules (write.h).
#include "nccl-tests-integration/rules/write.h"

#include <cstdio>

#include "formats/json_append.h"
#include "nccl-tests-integration/dataset/tuner_rules_json.h"
#include "nccl-tests-integration/rules/rules_choice.h"

namespace railtune::sweep {
namespace {

// "1 run each", "2 runs vs the default's 1": the fewest runs behind the winner and the default at any of the
// rule's sizes (a run's out-of-place and in-place halves are two samples of one run).
std::string runsEvidence(const DerivedRule& r) {
  const std::string winner = std::to_string(r.runs) + (r.runs == 1 ? " run" : " runs");
  return r.runs == r.defaultRuns ? winner + " each" : winner + " vs the default's " + std::to_string(r.defaultRuns);
}

std::string evidenceText(const DerivedRule& r) {
  std::string sizes = sizeText(r.sizes.front());
  if (r.sizes.size() > 1) sizes += " to " + sizeText(r.sizes.back());
  const std::string gain =
      r.minGain == r.maxGain ? signedPercent(r.minGain) : signedPercent(r.minGain) + " to " + signedPercent(r.maxGain);
  return "sweep: " + r.choice.label() + " beats NCCL's default by " + gain + " at " + sizes + " (" +
         std::to_string(r.sizes.size()) + (r.sizes.size() == 1 ? " size, " : " sizes, ") + std::to_string(r.samples) +
         " samples, " + runsEvidence(r) + "; " + r.key.shape.label() + ")";
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// One derived rule on one line: its evidence in "description" and "evidence", which the tuner reads past.
std::string ruleJson(const DerivedRule& r) {
  std::string out;
  formats::JsonAppender json(&out);
  json.beginObject();
  json.key("description").string(evidenceText(r));
  json.key("collective").string(r.key.collective);
  json.key("nBytes");
  json.beginObject();
  json.key("min").count(r.minBytes);
  json.key("max").count(r.maxBytes);
  json.endObject();
  json.key("nRanks").integer(r.key.shape.ranks);
  if (r.key.shape.nodes > 0) json.key("nNodes").integer(r.key.shape.nodes);
  if (r.key.shape.nvlDomains > 0) json.key("nvlDomains").integer(r.key.shape.nvlDomains);
  if (r.key.shape.ranksPerDomain > 0) json.key("ranksPerDomain").integer(r.key.shape.ranksPerDomain);
  appendRuleChoice(json, r.choice);
  json.key("evidence");
  json.beginObject();
  json.key("sizes");
  json.beginArray();
  for (uint64_t s : r.sizes) json.count(s);
  json.endArray();
  json.key("min_gain").number(r.minGain);
  json.key("max_gain").number(r.maxGain);
  json.key("samples").integer(r.samples);
  json.key("default_samples").integer(r.defaultSamples);
  json.key("runs").integer(r.runs);
  json.key("default_runs").integer(r.defaultRuns);
  json.key("max_spread").number(r.maxSpread);
  json.key("net_env");  // the setting the rows were measured under ({}: none), as the dataset rows' net_env
  json.beginObject();
  for (const auto& [name, value] : r.key.netEnv) json.key(name).string(value);  // NCCL_[A-Z0-9_]+: nothing to escape
  json.endObject();
  json.endObject();
  json.endObject();
  return out;
}

}  // namespace

std::string rowsOfSetting(const NetEnv& setting) {
  return setting.empty() ? "the rows measured under no `sweep run --env` setting"
                         : "the rows measured under " + netEnvLabel(setting);
}

std::string rulesJson(const DerivedRules& rules, const RulesProvenance& provenance) {
  char gain[32];
  std::snprintf(gain, sizeof gain, "%.1f %%", provenance.minGain * 100);
  const std::string description = "Written by railtune sweep rules from " + joined(provenance.datasets) + ", " +
                                  rowsOfSetting(provenance.netEnv) + "; a choice beats NCCL's default by more than " +
                                  gain +
                                  " and the run-to-run spread (and the one-run noise where either rests on one run)."
                                  " Sizes and shapes without a rule: NCCL decides.";
  std::vector<std::string> objects;
  for (const DerivedRule& r : rules.rules) objects.push_back(ruleJson(r));
  return tunerRulesDocument(description, objects, RulesLayout::kOneRulePerLine);
}

std::string rulesNcclCsv(const DerivedRules& rules, const RulesProvenance& provenance) {
  std::string out =
      "# Written by railtune sweep rules from " + joined(provenance.datasets) + ", " +
      rowsOfSetting(provenance.netEnv) + ", for NCCL's example tuner.\n" +
      "# collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,regBuff\n"
      "# This format cannot match NVLink domains or set chunk sizes: railtune's JSON rules can.\n";
  for (const DerivedRule& r : rules.rules) {
    out += "# " + evidenceText(r) + "\n";
    const std::string line = r.key.collective + "," + std::to_string(r.minBytes) + "," + std::to_string(r.maxBytes) +
                             "," + r.choice.algorithm + "," + r.choice.protocol + "," +
                             (r.choice.channels > 0 ? std::to_string(r.choice.channels) : "-1") + "," +
                             (r.key.shape.nodes > 0 ? std::to_string(r.key.shape.nodes) : "-1") + "," +
                             std::to_string(r.key.shape.ranks) + ",-1,-1";
    if (r.choice.chunkSize > 0)
      out += "# not expressible here (chunk size " + std::to_string(r.choice.chunkSize) + "): " + line + "\n";
    else
      out += line + "\n";
  }
  return out;
}

std::string rulesReport(const DerivedRules& rules) {
  std::string out;
  for (const GroupDecisions& g : rules.groups) {
    out += g.key.collective + ", " + g.key.shape.label() + ":\n";
    for (const SizeDecision& d : g.sizes) {
      // Aligned as "  %10s  %-24s %s", without a buffer that a long label or reason would cut short.
      const std::string size = sizeText(d.size), choice = d.ruled ? d.best.label() : "NCCL decides";
      out += "  " + std::string(size.size() < 10 ? 10 - size.size() : 0, ' ') + size + "  " + choice +
             std::string(choice.size() < 24 ? 24 - choice.size() : 0, ' ') + " " + d.why + "\n";
    }
  }
  if (!rules.coverage.empty()) out += "coverage:\n";
  for (const CoverageNote& c : rules.coverage) {
    std::string where = c.collective;
    if (!c.shape.empty()) where += (where.empty() ? "" : ", ") + c.shape;
    out += "  " + (where.empty() ? "" : where + ": ") + c.text + "\n";
  }
  return out;
}

RulesFile rulesFile(const DerivedRules& rules, const RulesProvenance& provenance, const std::string& format,
                    const std::string& output) {
  const bool csv = format.empty() ? output.ends_with(".csv") : format == "nccl-csv";
  RulesFile file;
  file.text = csv ? rulesNcclCsv(rules, provenance) : rulesJson(rules, provenance);
  file.rules = parseTunerRules(file.text, output).rules.size();  // throws when the tuner would refuse it
  return file;
}

}  // namespace railtune::sweep
