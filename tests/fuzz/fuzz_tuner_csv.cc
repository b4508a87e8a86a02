// libFuzzer target for the NCCL example CSV reader (formats/tuner_rules/nccl_csv.h). Besides crashes
// and sanitizer reports it checks the reader's promises (fuzz_tuner_rules_checks.h) and that every
// accepted rule, written back as a CSV line, reads back to the same rule.
#include <cstddef>
#include <cstdint>
#include <string>

#include "formats/tuner_rules/nccl_csv.h"
#include "tests/fuzz/fuzz_tuner_rules_checks.h"

namespace {

using namespace railtune::tuner::rules;
using namespace railtune::formats::tuner_rules;

std::string key(int v) {
  return std::to_string(v);
}

std::string csvLine(const Rule& r) {
  return std::string(collectiveRuleName(r.collective)) + "," + std::to_string(r.minBytes) + "," +
         std::to_string(r.maxBytes) + "," + algorithmRuleName(r.algorithm) + "," + protocolRuleName(r.protocol) + "," +
         (r.channels == 0 ? "-1" : key(r.channels)) + "," + key(r.nNodes) + "," + key(r.nRanks) + "," +
         key(r.numPipeOps) + "," + key(r.regBuff) + "\n";
}

bool sameRule(const Rule& a, const Rule& b) {
  return a.collective == b.collective && a.minBytes == b.minBytes && a.maxBytes == b.maxBytes &&
         a.algorithm == b.algorithm && a.protocol == b.protocol && a.channels == b.channels && a.nNodes == b.nNodes &&
         a.nRanks == b.nRanks && a.numPipeOps == b.numPipeOps && a.regBuff == b.regBuff;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const RulesResult r = readNcclTunerCsv(text, "fuzz.csv");
  fuzzing::checkResult(r, text);
  if (!r.ok() || r.ruleSet.rules.size() > 256) return 0;
  std::string written;
  for (const Rule& rule : r.ruleSet.rules) written += csvLine(rule);
  const RulesResult again = readNcclTunerCsv(written, "written.csv");
  fuzzing::require(again.ok() && again.ruleSet.rules.size() == r.ruleSet.rules.size());
  for (size_t i = 0; i < r.ruleSet.rules.size(); ++i)
    fuzzing::require(sameRule(r.ruleSet.rules[i], again.ruleSet.rules[i]));
  return 0;
}
