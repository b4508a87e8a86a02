// A JSON document as a small tree that remembers where each value and key starts, so that readers
// of railtune's JSON formats can report file:line:column for problems nlohmann::json's own DOM
// cannot place (an unknown key, a value of the wrong type). Syntax is checked by nlohmann::json.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace railtune::formats::tuner_rules {

struct PosNode {
  enum class Kind : uint8_t { Null, Boolean, Integer, Unsigned, Float, String, Array, Object };
  Kind kind = Kind::Null;
  size_t offset = 0;  // byte offset of the value's first character
  bool boolean = false;
  int64_t integer = 0;             // Kind::Integer (negative numbers)
  uint64_t unsignedValue = 0;      // Kind::Unsigned (non-negative integers)
  double real = 0;                 // Kind::Float
  std::string text;                // Kind::String
  std::vector<PosNode> items;      // array elements, or object members' values
  std::vector<std::string> keys;   // object members' keys, parallel to items
  std::vector<size_t> keyOffsets;  // where each key's opening quote is
};

// Bounds that keep a hostile document from costing more than a few hundred MiB or quadratic time:
// railtune's formats nest 4 deep, have at most 16 keys per object, and about 20 values per rule.
inline constexpr size_t kMaxJsonDepth = 32;
inline constexpr size_t kMaxJsonObjectKeys = 64;
inline constexpr size_t kMaxJsonValues = 2'000'000;

struct PosParseResult {
  bool ok = false;
  PosNode root;
  size_t errorOffset = 0;  // when !ok: the byte where parsing stopped
  std::string error;
};

// Parses a whole document (RFC 8259, no comments). Duplicate keys and documents beyond the
// bounds above are errors.
PosParseResult parsePositioned(std::string_view text);

struct LineColumn {
  size_t line = 1;    // 1-based
  size_t column = 1;  // 1-based, in bytes
};
LineColumn lineColumnAt(std::string_view text, size_t offset);

// lineColumnAt for many offsets in one text: the line starts are found once.
class LineMap {
 public:
  explicit LineMap(std::string_view text);
  LineColumn at(size_t offset) const;

 private:
  std::vector<size_t> lineStarts_;
};

const char* kindName(PosNode::Kind kind);  // "a string", "an object", ... for messages

}  // namespace railtune::formats::tuner_rules
