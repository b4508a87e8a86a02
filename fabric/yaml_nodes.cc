// Typed, position-aware access to the maps of a cluster description (fabric/yaml_nodes.h).
#include "fabric/yaml_nodes.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "fabric/model.h"

namespace railtune::fabric::yaml {
namespace {

std::string preview(const YAML::Node& node) {
  if (!node.IsScalar()) return node.IsSequence() ? "a list" : node.IsMap() ? "a map" : "nothing";
  std::string text = node.Scalar();
  if (text.size() > 40) text = text.substr(0, 40) + "...";
  return "'" + text + "'";
}

thread_local Diagnostics* tKeyProblems = nullptr;  // CollectKeyProblems

void keyProblem(const SourceLoc& loc, const std::string& message) {
  if (tKeyProblems == nullptr) throw FabricError(loc, message);
  tKeyProblems->error(loc, message);
}

}  // namespace

CollectKeyProblems::CollectKeyProblems(Diagnostics& out) : previous_(tKeyProblems) {
  tKeyProblems = &out;
}
CollectKeyProblems::~CollectKeyProblems() {
  tKeyProblems = previous_;
}

SourceLoc locOf(const std::string& file, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return {file, 0, 0};
  return {file, mark.line + 1, mark.column + 1};
}

MapReader::MapReader(const YAML::Node& node, std::string file, std::string what,
                     std::initializer_list<const char*> allowed)
    : node_(node), file_(std::move(file)), what_(std::move(what)) {
  if (!node_.IsMap()) throw FabricError(yaml::locOf(file_, node_), what_ + ": expected a map, got " + preview(node_));
  std::map<std::string, SourceLoc> seen;
  for (const auto& entry : node_) {
    const YAML::Node& key = entry.first;
    if (key.IsScalar()) {
      // yaml-cpp keeps both of two equal keys and node[key] finds the first: refuse to pick one.
      const auto [first, fresh] = seen.emplace(key.Scalar(), yaml::locOf(file_, key));
      if (!fresh) {
        keyProblem(yaml::locOf(file_, key), what_ + ": duplicate key " + preview(key) + " (first at " +
                                                std::to_string(first->second.line) + ":" +
                                                std::to_string(first->second.column) + ")");
        continue;
      }
    }
    const bool known = key.IsScalar() && std::any_of(allowed.begin(), allowed.end(),
                                                     [&](const char* name) { return key.Scalar() == name; });
    if (known) continue;
    std::string list;
    for (const char* name : allowed) list += (list.empty() ? "" : ", ") + std::string(name);
    keyProblem(yaml::locOf(file_, key), what_ + ": unknown key " + preview(key) + " (known: " + list + ")");
  }
}

SourceLoc MapReader::locOf(const char* key) const {
  for (const auto& entry : node_)
    if (entry.first.Scalar() == key) return yaml::locOf(file_, entry.second);
  return loc();
}

void MapReader::fail(const char* key, const std::string& message) const {
  throw FabricError(locOf(key), what_ + "." + key + ": " + message);
}

void MapReader::require(const char* key) const {
  if (!has(key)) throw FabricError(loc(), what_ + ": missing key '" + key + "'");
}

int MapReader::integer(const char* key, int fallback, int min, int max) const {
  const YAML::Node value = node_[key];
  if (!value) return fallback;
  const std::string range = "from " + std::to_string(min) + " to " + std::to_string(max);
  int parsed = 0;
  if (!value.IsScalar() || !YAML::convert<int>::decode(value, parsed) || parsed < min || parsed > max)
    fail(key, "expected an integer " + range + ", got " + preview(value));
  return parsed;
}

std::optional<bool> MapReader::boolean(const char* key) const {
  const YAML::Node value = node_[key];
  if (!value) return std::nullopt;
  if (value.IsScalar() && (value.Scalar() == "true" || value.Scalar() == "false")) return value.Scalar() == "true";
  fail(key, "expected true or false, got " + preview(value));
}

std::string MapReader::text(const char* key, const std::string& fallback) const {
  const YAML::Node value = node_[key];
  if (!value) return fallback;
  if (!value.IsScalar() || value.Scalar().empty()) fail(key, "expected a non-empty string, got " + preview(value));
  return value.Scalar();
}

std::string MapReader::busId(const char* key, const std::string& fallback) const {
  if (!has(key)) return fallback;
  const std::optional<std::string> canonical = normalizeBusId(text(key, ""));
  if (!canonical) fail(key, "not a PCI bus id (dddd:bb:dd.f): " + preview(node_[key]));
  return *canonical;
}

uint64_t MapReader::guid(const char* key, uint64_t fallback) const {
  if (!has(key)) return fallback;
  std::string digits = text(key, "");
  if (digits.rfind("0x", 0) == 0 || digits.rfind("0X", 0) == 0) digits = digits.substr(2);
  const bool hex = !digits.empty() && digits.size() <= 16 && std::all_of(digits.begin(), digits.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c));
  });
  if (!hex) fail(key, "expected a hexadecimal GUID (0x + up to 16 digits), got " + preview(node_[key]));
  return std::stoull(digits, nullptr, 16);
}

std::vector<std::string> MapReader::texts(const char* key) const {
  std::vector<std::string> out;
  const YAML::Node list = sequence(key);
  for (const YAML::Node& item : list) {
    if (!item.IsScalar() || item.Scalar().empty())
      throw FabricError(yaml::locOf(file_, item), what_ + "." + key + ": expected a string, got " + preview(item));
    out.push_back(item.Scalar());
  }
  return out;
}

YAML::Node MapReader::sequence(const char* key) const {
  const YAML::Node value = node_[key];
  if (!value) return YAML::Node(YAML::NodeType::Sequence);
  if (!value.IsSequence()) fail(key, "expected a list, got " + preview(value));
  return value;
}

YAML::Node MapReader::map(const char* key) const {
  const YAML::Node value = node_[key];
  if (!value) return YAML::Node(YAML::NodeType::Map);
  if (!value.IsMap()) fail(key, "expected a map, got " + preview(value));
  return value;
}

}  // namespace railtune::fabric::yaml
