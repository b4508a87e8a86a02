// Every RAILTUNE_* variable, declared once with type, default and doc string (params.cc). Readers
// parse through here so that a bad value is rejected with a message naming the variable, never
// silently defaulted; docs/config.md is generated from the same table (`railtune config --markdown`).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace railtune {

enum class ParamType { Bool, Int, String, Enum, List };

struct ParamSpec {
  const char* name;  // "RAILTUNE_STRICT"
  ParamType type;
  const char* defaultValue;  // as the user would write it; "" = unset
  const char* component;     // "all", "tuner", "net", "profiler", "cli", "testing"
  const char* doc;           // one paragraph, Markdown
  const char* allowed;       // Enum: '|'-separated values; List: '|'-separated allowed items or ""
  int64_t low;               // Int: the smallest accepted value (0 for the other types)
  int64_t high;              // Int: the largest accepted value (0 for the other types)
};

std::span<const ParamSpec> allParams();
const ParamSpec* findParam(const std::string& name);

// Where values come from; the default reads the process environment.
using EnvLookup = std::optional<std::string> (*)(const char* name);
std::optional<std::string> processEnv(const char* name);

// A parsed value or the reason it was rejected ("RAILTUNE_STRICT='maybe': expected 0/1/true/false").
// Every rule a value must meet is in its row of the table (type, Enum values, List items, Int range),
// so the plugins and `railtune config` accept and reject exactly the same values.
template <typename T>
struct ParamValue {
  T value{};
  bool fromDefault = true;
  std::string error;  // non-empty: the raw value was rejected and value holds the default
  bool ok() const { return error.empty(); }
};

// Pure parsers, exposed for tests and the fuzzer.
bool parseBoolText(const std::string& text, bool* out);
bool parseIntText(const std::string& text, int64_t* out);
std::vector<std::string> splitList(const std::string& text);  // comma-separated, trimmed, empties dropped

ParamValue<bool> readBool(const char* name, EnvLookup env = processEnv);
ParamValue<int64_t> readInt(const char* name, EnvLookup env = processEnv);         // range checked too
ParamValue<std::string> readString(const char* name, EnvLookup env = processEnv);  // Enum checked too
// Items are matched against the allowed ones without regard to case and returned as the table spells them.
ParamValue<std::vector<std::string>> readList(const char* name, EnvLookup env = processEnv);

// docs/config.md as generated from the table.
std::string renderConfigMarkdown();

}  // namespace railtune
