// Escaping text for markup (markup_escape.h).
#include "formats/markup_escape.h"

#include <cstdint>

namespace railtune::formats {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
constexpr uint32_t kInvalid = 0xFFFFFFFF;

struct Decoded {
  uint32_t codePoint;  // kInvalid for a byte that starts no valid UTF-8 sequence
  size_t length;       // bytes consumed (1 for an invalid byte)
};

// One UTF-8 sequence at text[i]: overlong forms, surrogates and values past U+10FFFF are invalid.
Decoded decode(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t lead = byte(i);
  if (lead < 0x80) return {lead, 1};
  size_t length = 0;
  uint32_t value = 0, minimum = 0;
  if ((lead & 0xE0) == 0xC0) {
    length = 2, value = lead & 0x1Fu, minimum = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, value = lead & 0x0Fu, minimum = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, value = lead & 0x07u, minimum = 0x10000;
  } else {
    return {kInvalid, 1};
  }
  if (i + length > text.size()) return {kInvalid, 1};
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return {kInvalid, 1};
    value = (value << 6) | (byte(i + k) & 0x3Fu);
  }
  if (value < minimum || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return {kInvalid, 1};
  return {value, length};
}

// XML 1.0's Char production: what may appear in a document at all.
bool xmlChar(uint32_t c) {
  if (c == kInvalid) return false;
  if (c < 0x20) return c == '\t' || c == '\n' || c == '\r';
  return c != 0xFFFE && c != 0xFFFF;
}

}  // namespace

std::string markupEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (size_t i = 0; i < text.size();) {
    const Decoded d = decode(text, i);
    if (!xmlChar(d.codePoint)) {
      out += kReplacement;
    } else {
      switch (d.codePoint) {
        case '&':
          out += "&amp;";
          break;
        case '<':
          out += "&lt;";
          break;
        case '>':
          out += "&gt;";
          break;
        case '"':
          out += "&quot;";
          break;
        case '\'':
          out += "&#39;";
          break;
        default:
          out.append(text.substr(i, d.length));
      }
    }
    i += d.length;
  }
  return out;
}

size_t utf8SequenceLength(std::string_view text, size_t i) {
  return decode(text, i).length;
}

}  // namespace railtune::formats
