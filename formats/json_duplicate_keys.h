// Duplicate keys in one JSON line. nlohmann's parser keeps the last of two equal keys, so a record
// holding `"seq":1,"seq":7` would silently read as seq 7; the strict record readers (path log, profiler
// logs) refuse such a line instead, as the tuner's rules reader does. Header-only, like strict_json.h.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/strict_json.h"

namespace railtune::formats::strict_json {

struct DuplicateKey {
  size_t column = 0;  // 1-based: the opening quote of the second occurrence
  std::string key;    // unescaped
};

namespace detail {

// The end of the string token starting at `open` (its closing quote), or npos when unterminated.
inline size_t stringEnd(std::string_view line, size_t open) {
  for (size_t i = open + 1; i < line.size(); ++i) {
    if (line[i] == '\\') {
      ++i;
    } else if (line[i] == '"') {
      return i;
    }
  }
  return std::string_view::npos;
}

// A key token as nlohmann reads it (escapes resolved), or nullopt when it is no valid JSON string.
inline std::optional<std::string> keyText(std::string_view token) {
  if (token.find('\\') == std::string_view::npos) return std::string(token.substr(1, token.size() - 2));
  const nlohmann::json decoded = nlohmann::json::parse(token, nullptr, false);
  if (!decoded.is_string()) return std::nullopt;
  return decoded.get<std::string>();
}

}  // namespace detail

// The first key that repeats one of its object, reading left to right; nullopt when there is none.
// Only keys where JSON allows them count (after '{' or ','), and the scan gives up at the first thing
// that is not JSON there: the parser then reports that line's syntax error.
inline std::optional<DuplicateKey> firstDuplicateKey(std::string_view line) {
  struct Level {
    bool object = false;
    bool expectKey = false;
    std::unordered_set<std::string> keys;
  };
  std::vector<Level> levels;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    Level* top = levels.empty() ? nullptr : &levels.back();
    if (c == '"') {
      const size_t end = detail::stringEnd(line, i);
      if (end == std::string_view::npos) return std::nullopt;
      if (top != nullptr && top->object && top->expectKey) {
        const std::optional<std::string> key = detail::keyText(line.substr(i, end - i + 1));
        if (!key) return std::nullopt;
        if (!top->keys.insert(*key).second) return DuplicateKey{i + 1, *key};
        top->expectKey = false;
      }
      i = end;
    } else if (c == '{' || c == '[') {
      if (top != nullptr && top->expectKey) return std::nullopt;
      levels.push_back(Level{c == '{', c == '{', {}});
    } else if (c == '}' || c == ']') {
      if (levels.empty()) return std::nullopt;
      levels.pop_back();
    } else if (c == ',') {
      if (top != nullptr && top->object) top->expectKey = true;
    } else if (c != ' ' && c != '\t' && c != '\r' && c != '\n' && top != nullptr && top->expectKey) {
      return std::nullopt;  // not a key where one must be: the parser words it
    }
  }
  return std::nullopt;
}

// parseLine (strict_json.h) that also refuses a duplicate key: "FILE:LINE:COLUMN: duplicate key "seq"".
// Nesting is checked first, so the scan's levels stay within maxDepth.
template <typename Parsed, typename Read>
std::optional<Parsed> parseLineUniqueKeys(std::string_view line, const std::string& file, int lineNumber, int maxDepth,
                                          Read read, std::string* error) {
  if (tooDeepAt(line, maxDepth) == 0) {
    if (const std::optional<DuplicateKey> duplicate = firstDuplicateKey(line)) {
      *error = file + ":" + std::to_string(lineNumber) + ":" + std::to_string(duplicate->column) +
               ": duplicate key \"" + duplicate->key + "\"";
      return std::nullopt;
    }
  }
  return parseLine<Parsed>(line, file, lineNumber, maxDepth, read, error);
}

}  // namespace railtune::formats::strict_json
