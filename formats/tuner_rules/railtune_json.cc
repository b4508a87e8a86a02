#include "formats/tuner_rules/railtune_json.h"

#include <climits>
#include <cstdint>

#include "formats/tuner_rules/error_list.h"
#include "formats/tuner_rules/json_positions.h"

namespace railtune::formats::tuner_rules {
namespace {

using Kind = PosNode::Kind;

class JsonRulesReader {
 public:
  JsonRulesReader(std::string_view text, ErrorList& errors) : lines_(text), errors_(errors) {}
  void read(const PosNode& root, RuleSet* set);

 private:
  void fail(size_t offset, const std::string& message) {
    const LineColumn at = lines_.at(offset);
    errors_.add(at.line, at.column, message);
    ok_ = false;
  }
  bool onlyKeys(const PosNode& object, std::initializer_list<const char*> known, const char* what);
  const PosNode* find(const PosNode& object, const char* key) const;
  bool text(const PosNode& object, const char* key, std::string* out);
  bool unsignedValue(const PosNode& object, const char* key, uint64_t min, uint64_t max, uint64_t* out);
  void positive(const PosNode& object, const char* key, int* out);
  void range(const PosNode& object, const char* key, Rule* rule);
  void names(const PosNode& object, Rule* rule);
  void choices(const PosNode& object, Rule* rule);
  bool rule(const PosNode& object, Rule* out);

  LineMap lines_;
  ErrorList& errors_;
  bool ok_ = true;
};

bool JsonRulesReader::onlyKeys(const PosNode& object, std::initializer_list<const char*> known, const char* what) {
  if (object.kind != Kind::Object) {
    fail(object.offset, std::string(what) + " must be an object, not " + kindName(object.kind));
    return false;
  }
  for (size_t i = 0; i < object.keys.size(); ++i) {
    bool isKnown = false;
    for (const char* k : known) isKnown = isKnown || object.keys[i] == k;
    if (isKnown) continue;
    std::string list;
    for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    fail(object.keyOffsets[i], "unknown key \"" + object.keys[i] + "\" in " + what + " (known: " + list + ")");
  }
  return true;
}

const PosNode* JsonRulesReader::find(const PosNode& object, const char* key) const {
  for (size_t i = 0; i < object.keys.size(); ++i)
    if (object.keys[i] == key) return &object.items[i];
  return nullptr;
}

bool JsonRulesReader::text(const PosNode& object, const char* key, std::string* out) {
  const PosNode* v = find(object, key);
  if (v == nullptr) return false;
  if (v->kind != Kind::String) {
    fail(v->offset, std::string("\"") + key + "\" must be a string, not " + kindName(v->kind));
    return false;
  }
  *out = v->text;
  return true;
}

bool JsonRulesReader::unsignedValue(const PosNode& object, const char* key, uint64_t min, uint64_t max, uint64_t* out) {
  const PosNode* v = find(object, key);
  if (v == nullptr) return false;
  if (v->kind != Kind::Unsigned || v->unsignedValue < min || v->unsignedValue > max) {
    fail(v->offset,
         std::string("\"") + key + "\" must be an integer from " + std::to_string(min) + " to " + std::to_string(max));
    return false;
  }
  *out = v->unsignedValue;
  return true;
}

void JsonRulesReader::positive(const PosNode& object, const char* key, int* out) {
  uint64_t value = 0;
  if (unsignedValue(object, key, 1, INT_MAX, &value)) *out = static_cast<int>(value);
}

void JsonRulesReader::range(const PosNode& object, const char* key, Rule* rule) {
  const PosNode* r = find(object, key);
  if (r == nullptr || !onlyKeys(*r, {"min", "max"}, key)) return;
  unsignedValue(*r, "min", 0, kNoUpperBound, &rule->minBytes);
  unsignedValue(*r, "max", 0, kNoUpperBound, &rule->maxBytes);
  if (rule->minBytes > rule->maxBytes)
    fail(r->offset, std::string("\"") + key + "\" min " + std::to_string(rule->minBytes) + " is larger than max " +
                        std::to_string(rule->maxBytes) + ": the rule could never match");
}

void JsonRulesReader::names(const PosNode& object, Rule* rule) {
  std::string name;
  rule->anyCollective = !text(object, "collective", &name);
  if (!rule->anyCollective && !collectiveFromRuleName(name, &rule->collective))
    fail(find(object, "collective")->offset,
         "unknown collective \"" + name + "\" (expected one of " + knownCollectiveNames() + ")");
  const struct {
    const char* key;
    bool (*parse)(const std::string&, Rule*);
    std::string known;
  } required[] = {
      {"algorithm", [](const std::string& n, Rule* r) { return algorithmFromRuleName(n, &r->algorithm); },
       knownAlgorithmNames()},
      {"protocol", [](const std::string& n, Rule* r) { return protocolFromRuleName(n, &r->protocol); },
       knownProtocolNames()},
  };
  for (const auto& field : required) {
    if (find(object, field.key) == nullptr) {
      fail(object.offset, std::string("rule has no \"") + field.key + "\"");
    } else if (text(object, field.key, &name) && !field.parse(name, rule)) {
      fail(find(object, field.key)->offset,
           std::string("unknown ") + field.key + " \"" + name + "\" (expected one of " + field.known + ")");
    }
  }
}

void JsonRulesReader::choices(const PosNode& object, Rule* rule) {
  uint64_t value = 0;
  if (unsignedValue(object, "channels", 1, kMaxChannels, &value)) rule->channels = static_cast<int>(value);
  unsignedValue(object, "chunkSize", 1, kMaxChunkSize, &rule->chunkSize);
}

bool JsonRulesReader::rule(const PosNode& object, Rule* out) {
  ok_ = true;
  if (!onlyKeys(
          object,
          {"description", "collective", "bytesPerRank", "nBytes", "nNodes", "nRanks", "nvlDomains", "ranksPerDomain",
           "numPipeOps", "regBuff", "algorithm", "protocol", "channels", "chunkSize", "evidence"},
          "a rule"))
    return false;
  std::string ignored;
  text(object, "description", &ignored);
  // "evidence": what `railtune sweep rules` measured for this rule; any object, read past.
  if (const PosNode* evidence = find(object, "evidence"); evidence != nullptr && evidence->kind != Kind::Object)
    fail(evidence->offset, std::string("\"evidence\" must be an object, not ") + kindName(evidence->kind));
  names(object, out);
  if (find(object, "bytesPerRank") != nullptr && find(object, "nBytes") != nullptr)
    fail(find(object, "nBytes")->offset, "a rule keys on \"bytesPerRank\" or \"nBytes\", not both");
  out->sizeKey = find(object, "bytesPerRank") != nullptr ? SizeKey::BytesPerRank : SizeKey::NBytes;
  range(object, out->sizeKey == SizeKey::BytesPerRank ? "bytesPerRank" : "nBytes", out);
  positive(object, "nNodes", &out->nNodes);
  positive(object, "nRanks", &out->nRanks);
  positive(object, "nvlDomains", &out->nvlDomains);
  positive(object, "ranksPerDomain", &out->ranksPerDomain);
  positive(object, "numPipeOps", &out->numPipeOps);
  if (const PosNode* reg = find(object, "regBuff")) {
    if (reg->kind == Kind::Boolean)
      out->regBuff = reg->boolean ? 1 : 0;
    else
      fail(reg->offset, std::string("\"regBuff\" must be true or false, not ") + kindName(reg->kind));
  }
  choices(object, out);
  return ok_;
}

void JsonRulesReader::read(const PosNode& root, RuleSet* set) {
  if (!onlyKeys(root, {"schema", "description", "rules"}, "the document")) return;
  std::string schema, ignored;
  if (find(root, "schema") == nullptr)
    fail(root.offset, std::string("no \"schema\" (expected \"") + formats::kTunerRulesSchema + "\")");
  else if (text(root, "schema", &schema) && schema != formats::kTunerRulesSchema)
    fail(find(root, "schema")->offset, "schema \"" + schema + "\" is not \"" + formats::kTunerRulesSchema + "\"");
  text(root, "description", &ignored);
  const PosNode* rules = find(root, "rules");
  if (rules == nullptr || rules->kind != Kind::Array) {
    fail(rules == nullptr ? root.offset : rules->offset, "\"rules\" must be an array of rule objects");
    return;
  }
  if (rules->items.size() > kMaxRules) {
    fail(rules->items[kMaxRules].offset, "more than " + std::to_string(kMaxRules) + " rules");
    return;
  }
  for (const PosNode& item : rules->items) {
    if (errors_.full()) return;
    Rule r;
    r.line = lines_.at(item.offset).line;
    if (rule(item, &r)) {
      r.number = static_cast<uint32_t>(set->rules.size() + 1);
      set->rules.push_back(r);
    }
  }
}

}  // namespace

RulesResult readRailtuneRules(std::string_view text, const std::string& sourceName) {
  RulesResult result;
  result.ruleSet.source = sourceName;
  ErrorList errors(sourceName);
  const PosParseResult parsed = parsePositioned(text);
  if (!parsed.ok) {
    const LineColumn at = lineColumnAt(text, parsed.errorOffset);
    errors.add(at.line, at.column, parsed.error);
  } else {
    JsonRulesReader(text, errors).read(parsed.root, &result.ruleSet);
  }
  result.errors = errors.take();
  if (!result.ok()) result.ruleSet.rules.clear();
  return result;
}

}  // namespace railtune::formats::tuner_rules
