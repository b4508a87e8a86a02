// libFuzzer target for railtune's JSON rules reader (formats/tuner_rules/railtune_json.h) and the
// format dispatch. Besides crashes and sanitizer reports it checks the reader's promises
// (fuzz_tuner_rules_checks.h), that the dispatch agrees with the reader on JSON-looking input, and
// that every accepted rule set, written back as JSON, reads back to the same rules.
#include <cstddef>
#include <cstdint>
#include <string>

#include "formats/tuner_rules/railtune_json.h"
#include "formats/tuner_rules/rules_file.h"
#include "tests/fuzz/fuzz_tuner_rules_checks.h"

namespace {

using namespace railtune::tuner::rules;
using namespace railtune::formats::tuner_rules;

void member(std::string& out, const char* key, int v) {
  if (v != kAny) out += std::string(",\"") + key + "\":" + std::to_string(v);
}

std::string jsonRule(const Rule& r) {
  std::string out = std::string("{\"algorithm\":\"") + algorithmRuleName(r.algorithm) + "\",\"protocol\":\"" +
                    protocolRuleName(r.protocol) + "\"";
  if (!r.anyCollective) out += std::string(",\"collective\":\"") + collectiveRuleName(r.collective) + "\"";
  out += std::string(",\"") + (r.sizeKey == SizeKey::BytesPerRank ? "bytesPerRank" : "nBytes") +
         "\":{\"min\":" + std::to_string(r.minBytes) + ",\"max\":" + std::to_string(r.maxBytes) + "}";
  member(out, "nNodes", r.nNodes);
  member(out, "nRanks", r.nRanks);
  member(out, "nvlDomains", r.nvlDomains);
  member(out, "ranksPerDomain", r.ranksPerDomain);
  member(out, "numPipeOps", r.numPipeOps);
  if (r.regBuff != kAny) out += r.regBuff == 1 ? ",\"regBuff\":true" : ",\"regBuff\":false";
  if (r.channels != 0) out += ",\"channels\":" + std::to_string(r.channels);
  if (r.chunkSize != 0) out += ",\"chunkSize\":" + std::to_string(r.chunkSize);
  return out + "}";
}

bool sameRule(const Rule& a, const Rule& b) {
  return a.anyCollective == b.anyCollective && (a.anyCollective || a.collective == b.collective) &&
         a.sizeKey == b.sizeKey && a.minBytes == b.minBytes && a.maxBytes == b.maxBytes && a.algorithm == b.algorithm &&
         a.protocol == b.protocol && a.channels == b.channels && a.chunkSize == b.chunkSize && a.nNodes == b.nNodes &&
         a.nRanks == b.nRanks && a.nvlDomains == b.nvlDomains && a.ranksPerDomain == b.ranksPerDomain &&
         a.numPipeOps == b.numPipeOps && a.regBuff == b.regBuff;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const RulesResult r = readRailtuneRules(text, "fuzz.json");
  fuzzing::checkResult(r, text);
  if (detectRulesFormat(text) == RulesFormat::RailtuneJson) {
    const RulesResult dispatched = readRules(text, "fuzz.json");
    fuzzing::require(dispatched.ok() == r.ok() && dispatched.ruleSet.rules.size() == r.ruleSet.rules.size());
  }
  if (!r.ok() || r.ruleSet.rules.size() > 256) return 0;
  std::string written = std::string("{\"schema\":\"") + railtune::formats::kTunerRulesSchema + "\",\"rules\":[";
  for (size_t i = 0; i < r.ruleSet.rules.size(); ++i) written += (i == 0 ? "" : ",") + jsonRule(r.ruleSet.rules[i]);
  written += "]}";
  const RulesResult again = readRailtuneRules(written, "written.json");
  fuzzing::require(again.ok() && again.ruleSet.rules.size() == r.ruleSet.rules.size());
  for (size_t i = 0; i < r.ruleSet.rules.size(); ++i)
    fuzzing::require(sameRule(r.ruleSet.rules[i], again.ruleSet.rules[i]));
  return 0;
}
