// The strict JSONL reading both plugins' record formats share (the path log, the profiler's collective
// log and network summary), so that every railtune reader rejects the same things with the same words:
//   ObjectReader  one JSON object read field by field: missing, mistyped, out-of-range and unknown
//                 fields are errors naming the field ("field 'local.rail': expected an integer ...")
//   parseLine     one line: refuses deep nesting before nlohmann's recursive parser sees it, then parses
//                 and reads; errors are "FILE:LINE:COLUMN: reason"
//   parseLines    every line of a text, stopping at the first error
// Header-only: it goes into the plugins' .so files (nlohmann-json is header-only too).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace railtune::formats::strict_json {

using nlohmann::json;

// A record that is JSON but not what the format says; the message names the field.
struct FieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class ObjectReader {
 public:
  // prefix: "" for the record itself, "local." for a nested object (messages then say 'local.rail').
  ObjectReader(const json& object, std::string prefix) : object_(object), prefix_(std::move(prefix)) {
    if (object_.is_object()) return;
    if (prefix_.empty()) throw FieldError("a record must be a JSON object");
    throw FieldError("field '" + prefix_.substr(0, prefix_.size() - 1) + "': expected an object");
  }

  bool has(const char* key) const { return object_.contains(key); }

  const json& field(const char* key) {
    const auto it = object_.find(key);
    if (it == object_.end()) throw FieldError(where(key) + "missing");
    used_.insert(key);
    return *it;
  }

  int64_t integer(const char* key, int64_t min, int64_t max = std::numeric_limits<int64_t>::max()) {
    const json& value = field(key);
    if (value.is_number_integer()) {
      const bool tooLarge = value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(max);
      const int64_t number = tooLarge ? max : value.get<int64_t>();
      if (!tooLarge && number >= min && number <= max) return number;
    }
    const std::string range = max == std::numeric_limits<int64_t>::max()
                                  ? " >= " + std::to_string(min)
                                  : " from " + std::to_string(min) + " to " + std::to_string(max);
    throw FieldError(where(key) + "expected an integer" + range);
  }

  uint64_t count(const char* key) {
    const json& value = field(key);
    if (!value.is_number_unsigned()) throw FieldError(where(key) + "expected an integer >= 0");
    return value.get<uint64_t>();
  }

  bool boolean(const char* key) {
    const json& value = field(key);
    if (!value.is_boolean()) throw FieldError(where(key) + "expected true or false");
    return value.get<bool>();
  }

  double number(const char* key) {
    const json& value = field(key);
    if (!value.is_number()) throw FieldError(where(key) + "expected a number");
    return value.get<double>();
  }

  std::string text(const char* key, size_t maxLength) {
    const json& value = field(key);
    if (!value.is_string()) throw FieldError(where(key) + "expected a string");
    std::string out = value.get<std::string>();
    if (out.size() > maxLength) throw FieldError(where(key) + "longer than " + std::to_string(maxLength));
    return out;
  }

  // NCCL's commId and the configuration digest are written as 16 lowercase hex digits.
  uint64_t hex(const char* key) {
    const std::string digits = text(key, 16);
    if (digits.size() != 16 || digits.find_first_not_of("0123456789abcdef") != std::string::npos) {
      throw FieldError(where(key) + "expected 16 lowercase hex digits");
    }
    return std::stoull(digits, nullptr, 16);
  }

  // A derived value must be exactly what the writer would have written.
  void derived(const char* key, double expected) {
    if (number(key) != expected) throw FieldError(where(key) + "expected " + json(expected).dump());
  }

  void finish() const {
    for (const auto& item : object_.items()) {
      if (!used_.contains(item.key())) throw FieldError(where(item.key().c_str()) + "unknown field");
    }
  }

  std::string where(const std::string& key) const { return "field '" + prefix_ + key + "': "; }

 private:
  const json& object_;
  std::string prefix_;
  std::set<std::string> used_;
};

// Refusing deep nesting before parsing keeps a hostile line (thousands of '[') from exhausting the
// stack of nlohmann's recursive parser. Returns the 1-based column where maxDepth is exceeded, or 0.
inline size_t tooDeepAt(std::string_view line, int maxDepth) {
  int depth = 0;
  bool inString = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (inString) {
      if (c == '\\') ++i;
      if (c == '"') inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '{' || c == '[') {
      if (++depth > maxDepth) return i + 1;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return 0;
}

// One line through `read` (json -> Parsed, throwing FieldError): the parsed record, or nullopt and
// *error = "FILE:LINE:COLUMN: reason" (column 1 unless the JSON itself is malformed).
template <typename Parsed, typename Read>
std::optional<Parsed> parseLine(std::string_view line, const std::string& file, int lineNumber, int maxDepth, Read read,
                                std::string* error) {
  const std::string at = file + ":" + std::to_string(lineNumber) + ":";
  if (const size_t column = tooDeepAt(line, maxDepth); column != 0) {
    *error = at + std::to_string(column) + ": nested too deep";
    return std::nullopt;
  }
  json document;
  try {
    document = json::parse(line);
  } catch (const json::parse_error& e) {
    *error = at + std::to_string(e.byte) + ": not JSON: " + e.what();
    return std::nullopt;
  } catch (const json::exception& e) {  // a number out of range, say 1e999
    *error = at + "1: not JSON: " + e.what();
    return std::nullopt;
  }
  try {
    return read(document);
  } catch (const FieldError& e) {
    *error = at + "1: " + e.what();
    return std::nullopt;
  }
}

// Every line of a JSONL text through parseOne(line, file, lineNumber) -> {optional parsed, error};
// returns the first error ("" when every line parsed), the records read before it in *out.
template <typename Parsed, typename ParseOne>
std::string parseLines(std::string_view text, const std::string& file, ParseOne parseOne, std::vector<Parsed>* out) {
  int lineNumber = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    auto one = parseOne(text.substr(start, end - start), file, ++lineNumber);
    if (!one.parsed) return one.error;
    out->push_back(std::move(*one.parsed));
    start = end + 1;
  }
  return "";
}

}  // namespace railtune::formats::strict_json
