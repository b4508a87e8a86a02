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

// The profile's numbers are whole thousandths (microseconds of nanosecond times, bandwidths rounded to
// three decimals). For those below 10^12 in magnitude the shortest round-trip spelling is the thousandths'
// decimal without trailing zeros: at most 15 significant digits, so no shorter decimal reads back as the
// same double. nlohmann's Grisu2 finds it too: the decimal lies at least 1/250 of an ulp inside the
// rounding interval (the double is m/1000 rounded, and 1000 = 8 x 125), far beyond Grisu2's safety margin
// of a few 2^-64. profiler_output_render_test.cc compares the two over millions of such values. This is
// 5-10 times faster than Grisu2, which was the writer's largest single cost. false: not such a value.
bool appendThousandths(std::string* out, double value) {
  if (!(std::fabs(value) < 1e12)) return false;  // NaN too
  const auto thousandths = static_cast<int64_t>(std::nearbyint(value * 1000.0));
  if (static_cast<double>(thousandths) / 1000.0 != value) return false;
  char text[32];
  char* const end = text + sizeof text;
  char* p = end;
  const uint64_t magnitude =
      thousandths < 0 ? 0 - static_cast<uint64_t>(thousandths) : static_cast<uint64_t>(thousandths);
  uint64_t fraction = magnitude % 1000, whole = magnitude / 1000;
  int digits = 3;
  if (fraction == 0) {
    *--p = '0';  // nlohmann writes a whole number as "12.0"
    digits = 0;
  }
  while (digits > 0 && fraction % 10 == 0) fraction /= 10, --digits;
  for (; digits > 0; --digits, fraction /= 10) *--p = static_cast<char>('0' + fraction % 10);
  *--p = '.';
  do {
    *--p = static_cast<char>('0' + whole % 10);
    whole /= 10;
  } while (whole != 0);
  if (std::signbit(value)) *--p = '-';  // -0.0 too, as nlohmann
  out->append(p, static_cast<size_t>(end - p));
  return true;
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
  if (appendThousandths(out, value)) return;
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
