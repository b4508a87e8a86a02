// See json_append.h. The string escaping follows nlohmann's serializer::dump_escaped with
// error_handler_t::replace and ensure_ascii false; tests/unit/profiler_plugin/output/profiler_output_render_test.cc
// compares the two over random bytes.
#include "formats/json_append.h"

#include <charconv>
#include <cmath>

#include <nlohmann/json.hpp>

namespace railtune::formats {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";
constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD

// Bytes that the fast path copies as they are: printable ASCII but '"' and '\\'.
bool plain(unsigned char c) {
  return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

void appendAsciiEscaped(std::string* out, unsigned char c) {
  switch (c) {
    case '"':
      out->append("\\\"", 2);
      return;
    case '\\':
      out->append("\\\\", 2);
      return;
    case '\b':
      out->append("\\b", 2);
      return;
    case '\f':
      out->append("\\f", 2);
      return;
    case '\n':
      out->append("\\n", 2);
      return;
    case '\r':
      out->append("\\r", 2);
      return;
    case '\t':
      out->append("\\t", 2);
      return;
    default:
      break;
  }
  if (c >= 0x20) {
    out->push_back(static_cast<char>(c));
    return;
  }
  const char escaped[] = {'\\', 'u', '0', '0', kHexDigits[c >> 4], kHexDigits[c & 0xF]};
  out->append(escaped, sizeof escaped);
}

// A UTF-8 lead byte's number of continuation bytes and the range its first one must lie in (which
// excludes overlong forms, surrogates and code points above U+10FFFF); 0 continuations: invalid lead.
struct Lead {
  int continuations;
  unsigned char low, high;
};

Lead leadOf(unsigned char c) {
  if (c >= 0xC2 && c <= 0xDF) return {1, 0x80, 0xBF};
  if (c == 0xE0) return {2, 0xA0, 0xBF};
  if (c == 0xED) return {2, 0x80, 0x9F};
  if (c >= 0xE1 && c <= 0xEF) return {2, 0x80, 0xBF};
  if (c == 0xF0) return {3, 0x90, 0xBF};
  if (c >= 0xF1 && c <= 0xF3) return {3, 0x80, 0xBF};
  if (c == 0xF4) return {3, 0x80, 0x8F};
  return {0, 0, 0};
}

// The multi-byte sequence at text[i]: appended when valid; otherwise one U+FFFD for its longest
// valid prefix (at least the lead byte), as nlohmann does. Returns the bytes consumed.
size_t appendMultiByte(std::string* out, std::string_view text, size_t i) {
  const Lead lead = leadOf(static_cast<unsigned char>(text[i]));
  size_t n = 1;
  for (int k = 0; k < lead.continuations; ++k, ++n) {
    if (i + n >= text.size()) break;
    const auto c = static_cast<unsigned char>(text[i + n]);
    const unsigned char low = k == 0 ? lead.low : 0x80, high = k == 0 ? lead.high : 0xBF;
    if (c < low || c > high) break;
  }
  if (lead.continuations > 0 && n == static_cast<size_t>(lead.continuations) + 1) {
    out->append(text.data() + i, n);
  } else {
    out->append(kReplacement, 3);
  }
  return n;
}

}  // namespace

void appendJsonString(std::string* out, std::string_view text) {
  out->push_back('"');
  size_t i = 0;
  while (i < text.size()) {
    size_t run = i;
    while (run < text.size() && plain(static_cast<unsigned char>(text[run]))) ++run;
    out->append(text.data() + i, run - i);
    i = run;
    if (i == text.size()) break;
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      appendAsciiEscaped(out, c);
      ++i;
    } else {
      i += appendMultiByte(out, text, i);
    }
  }
  out->push_back('"');
}

void appendJsonDouble(std::string* out, double value) {
  if (!std::isfinite(value)) {
    out->append("null", 4);
    return;
  }
  char text[64];
  char* end = nlohmann::detail::to_chars(text, text + sizeof text, value);
  out->append(text, static_cast<size_t>(end - text));
}

void appendJsonInt(std::string* out, int64_t value) {
  char text[24];
  const auto result = std::to_chars(text, text + sizeof text, value);
  out->append(text, static_cast<size_t>(result.ptr - text));
}

void appendJsonUint(std::string* out, uint64_t value) {
  char text[24];
  const auto result = std::to_chars(text, text + sizeof text, value);
  out->append(text, static_cast<size_t>(result.ptr - text));
}

void appendHex16(std::string* out, uint64_t value) {
  char text[18];
  text[0] = text[17] = '"';
  for (int i = 16; i >= 1; --i, value >>= 4) text[i] = kHexDigits[value & 0xF];
  out->append(text, sizeof text);
}

}  // namespace railtune::formats
