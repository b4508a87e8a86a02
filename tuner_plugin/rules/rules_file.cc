#include "tuner_plugin/rules/rules_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "tuner_plugin/rules/nccl_csv.h"
#include "tuner_plugin/rules/railtune_json.h"

namespace railtune::tuner::rules {
namespace {

RulesResult failure(const std::string& path, const std::string& message) {
  RulesResult result;
  result.ruleSet.source = path;
  result.errors.push_back({path, 0, 0, message});
  return result;
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

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
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) return failure(path, std::string("cannot open: ") + std::strerror(errno));
  std::string text;
  char buffer[65536];
  while (true) {
    const size_t n = std::fread(buffer, 1, sizeof buffer, file.get());
    if (text.size() + n > kMaxFileBytes)
      return failure(path, "larger than " + std::to_string(kMaxFileBytes >> 20) + " MiB");
    text.append(buffer, n);
    if (n < sizeof buffer) break;
  }
  if (std::ferror(file.get())) return failure(path, std::string("read error: ") + std::strerror(errno));
  return readRules(text, path);
}

}  // namespace railtune::tuner::rules
