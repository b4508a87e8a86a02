#include "formats/tuner_rules/rules_file.h"

#include "common/regular_file.h"
#include "formats/tuner_rules/nccl_csv.h"
#include "formats/tuner_rules/railtune_json.h"

namespace railtune::formats::tuner_rules {
namespace {

static_assert(kMaxFileBytes == kMaxConfigFileBytes, "the tuner, the digest and the CLI read rules with one cap");

RulesResult failure(const std::string& path, const std::string& message) {
  RulesResult result;
  result.ruleSet.source = path;
  result.errors.push_back({path, 0, 0, message});
  return result;
}

}  // namespace

RulesFormat detectRulesFormat(std::string_view text) {
  size_t i = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
  return i < text.size() && text[i] == '{' ? RulesFormat::RailtuneJson : RulesFormat::NcclCsv;
}

RulesResult readRules(std::string_view text, const std::string& sourceName) {
  return detectRulesFormat(text) == RulesFormat::RailtuneJson ? readRailtuneRules(text, sourceName)
                                                              : readNcclTunerCsv(text, sourceName);
}

RulesResult readRulesFile(const std::string& path) {
  const RegularFile file = readRegularFile(path, kMaxFileBytes);  // only a regular file; never blocks on a FIFO
  if (!file.ok()) return failure(path, file.reason);
  return readRules(file.bytes, path);
}

}  // namespace railtune::formats::tuner_rules
