#include "formats/tuner_rules/nccl_csv.h"

#include <climits>
#include <cstdint>
#include <vector>

#include "formats/tuner_rules/error_list.h"

namespace railtune::formats::tuner_rules {
namespace {

// One comma-separated field, blanks (space, tab) trimmed as NCCL's example trims them.
struct Field {
  std::string_view text;
  size_t column = 1;  // 1-based column of the field's first non-blank character
};

enum CsvField {
  kCollective,
  kMinBytes,
  kMaxBytes,
  kAlgorithm,
  kProtocol,
  kChannels,
  kNNodes,
  kNRanks,
  kPipeOps,
  kRegBuff
};
constexpr size_t kMinFields = 8;
constexpr size_t kMaxFields = 10;
constexpr const char* kLayout =
    "collective,minBytes,maxBytes,algorithm,protocol,channels,nNodes,nRanks[,numPipeOps[,regBuff]]";

bool isBlank(char c) {
  return c == ' ' || c == '\t';
}

std::vector<Field> splitFields(std::string_view line) {
  std::vector<Field> fields;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    const size_t end = comma == std::string_view::npos ? line.size() : comma;
    size_t first = start, last = end;
    while (first < last && isBlank(line[first])) ++first;
    while (last > first && isBlank(line[last - 1])) --last;
    fields.push_back({line.substr(first, last - first), first + 1});
    if (comma == std::string_view::npos) return fields;
    start = comma + 1;
  }
}

// Decimal digits only: NCCL's strtoull/atoi would read "12abc" as 12 and "" as 0.
bool parseUnsigned(std::string_view text, uint64_t* out) {
  if (text.empty()) return false;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return false;
    value = value * 10 + digit;
  }
  *out = value;
  return true;
}

// -1 (the wildcard) or an integer in [min, max].
bool parseKey(std::string_view text, int min, int max, int* out) {
  if (text == "-1") {
    *out = kAny;
    return true;
  }
  uint64_t value = 0;
  if (!parseUnsigned(text, &value) || value < static_cast<uint64_t>(min) || value > static_cast<uint64_t>(max))
    return false;
  *out = static_cast<int>(value);
  return true;
}

std::string quoted(std::string_view text) {
  return "'" + std::string(text) + "'";
}

class CsvLineReader {
 public:
  CsvLineReader(ErrorList& errors, size_t lineNo) : errors_(errors), line_(lineNo) {}
  bool read(const std::vector<Field>& fields, Rule* rule);

 private:
  void fail(const Field& f, const std::string& message) {
    errors_.add(line_, f.column, message);
    ok_ = false;
  }
  void collective(const Field& c, Rule* rule);
  void names(const std::vector<Field>& fields, Rule* rule);
  void sizes(const Field& minField, const Field& maxField, Rule* rule);
  void key(const Field& f, const char* what, int min, int max, const char* expected, int* out);

  ErrorList& errors_;
  size_t line_;
  bool ok_ = true;
};

void CsvLineReader::collective(const Field& c, Rule* rule) {
  if (!collectiveFromRuleName(std::string(c.text), &rule->collective))
    fail(c, "unknown collective " + quoted(c.text) + " (expected one of " + knownCollectiveNames() + ")");
}

void CsvLineReader::names(const std::vector<Field>& fields, Rule* rule) {
  const Field& a = fields[kAlgorithm];
  if (!algorithmFromRuleName(std::string(a.text), &rule->algorithm))
    fail(a, "unknown algorithm " + quoted(a.text) + " (expected one of " + knownAlgorithmNames() + ")");
  const Field& p = fields[kProtocol];
  if (!protocolFromRuleName(std::string(p.text), &rule->protocol))
    fail(p, "unknown protocol " + quoted(p.text) + " (expected one of " + knownProtocolNames() + ")");
}

void CsvLineReader::sizes(const Field& minField, const Field& maxField, Rule* rule) {
  const bool minOk = parseUnsigned(minField.text, &rule->minBytes);
  if (!minOk) fail(minField, "minBytes " + quoted(minField.text) + " is not a byte count (decimal, 0 or more)");
  // NCCL's strtoull turns "-1" into the largest value, so "-1" means "no upper bound" here too.
  const bool maxOk = maxField.text == "-1" || parseUnsigned(maxField.text, &rule->maxBytes);
  if (maxField.text == "-1") rule->maxBytes = kNoUpperBound;
  if (!maxOk)
    fail(maxField, "maxBytes " + quoted(maxField.text) + " is not a byte count (decimal, or -1 for no limit)");
  if (minOk && maxOk && rule->minBytes > rule->maxBytes)
    fail(minField, "minBytes " + std::to_string(rule->minBytes) + " is larger than maxBytes " +
                       std::to_string(rule->maxBytes) + ": the rule could never match");
}

void CsvLineReader::key(const Field& f, const char* what, int min, int max, const char* expected, int* out) {
  if (!parseKey(f.text, min, max, out)) fail(f, std::string(what) + " " + quoted(f.text) + " must be " + expected);
}

bool CsvLineReader::read(const std::vector<Field>& fields, Rule* rule) {
  // Left to right, so that a line's errors come in the order of their columns.
  collective(fields[kCollective], rule);
  sizes(fields[kMinBytes], fields[kMaxBytes], rule);
  names(fields, rule);
  key(fields[kChannels], "channels", 0, kMaxChannels, "-1 (keep NCCL's) or 0..64", &rule->channels);
  if (rule->channels == kAny) rule->channels = 0;  // 0 tells NCCL to keep its own channel count
  key(fields[kNNodes], "nNodes", 1, INT_MAX, "-1 (any) or a positive integer", &rule->nNodes);
  key(fields[kNRanks], "nRanks", 1, INT_MAX, "-1 (any) or a positive integer", &rule->nRanks);
  if (fields.size() > kPipeOps)
    key(fields[kPipeOps], "numPipeOps", 1, INT_MAX, "-1 (any) or a positive integer", &rule->numPipeOps);
  if (fields.size() > kRegBuff) key(fields[kRegBuff], "regBuff", 0, 1, "-1 (any), 0 or 1", &rule->regBuff);
  return ok_;
}

// The line without its line break (LF or CRLF); a UTF-8 byte order mark on line 1 is skipped.
std::string_view lineAt(std::string_view text, size_t* pos, bool first) {
  const size_t end = text.find('\n', *pos);
  std::string_view line = text.substr(*pos, end == std::string_view::npos ? std::string_view::npos : end - *pos);
  *pos = end == std::string_view::npos ? text.size() : end + 1;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (first && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
  return line;
}

bool isCommentOrBlank(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && isBlank(line[i])) ++i;
  return i == line.size() || line[i] == '#';
}

}  // namespace

RulesResult readNcclTunerCsv(std::string_view text, const std::string& sourceName) {
  RulesResult result;
  result.ruleSet.source = sourceName;
  ErrorList errors(sourceName);
  size_t pos = 0;
  for (size_t lineNo = 1; pos < text.size() && !errors.full(); ++lineNo) {
    const std::string_view line = lineAt(text, &pos, lineNo == 1);
    if (line.size() > kMaxLineBytes) {
      errors.add(lineNo, kMaxLineBytes + 1, "line longer than " + std::to_string(kMaxLineBytes) + " bytes");
      continue;
    }
    if (isCommentOrBlank(line)) continue;
    const std::vector<Field> fields = splitFields(line);
    if (fields.size() < kMinFields || fields.size() > kMaxFields) {
      errors.add(lineNo, 1,
                 "expected 8 to 10 comma-separated fields (" + std::string(kLayout) + "), found " +
                     std::to_string(fields.size()));
      continue;
    }
    if (result.ruleSet.rules.size() == kMaxRules) {
      errors.add(lineNo, 1, "more than " + std::to_string(kMaxRules) + " rules");
      break;
    }
    Rule rule;
    rule.line = lineNo;
    if (!CsvLineReader(errors, lineNo).read(fields, &rule)) continue;
    rule.number = static_cast<uint32_t>(result.ruleSet.rules.size() + 1);
    result.ruleSet.rules.push_back(rule);
  }
  result.errors = errors.take();
  if (!result.ok()) result.ruleSet.rules.clear();
  return result;
}

}  // namespace railtune::formats::tuner_rules
