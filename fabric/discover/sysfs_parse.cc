// The text parsers of the sysfs source: each takes one attribute as the kernel prints it and accepts
// only that shape, so that a truncated or foreign value is reported instead of half-read.
#include <cctype>
#include <cstdio>
#include <string_view>

#include "common/text.h"
#include "fabric/discover/sysfs_source.h"

namespace railtune::fabric::discover {
namespace {

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// `groups` groups of four hex digits separated by ':', appended to `out` most significant first.
bool parseHexGroups(std::string_view text, size_t groups, std::vector<uint8_t>* out) {
  if (text.size() != groups * 5 - 1) return false;
  for (size_t g = 0; g < groups; ++g) {
    if (g > 0 && text[g * 5 - 1] != ':') return false;
    for (size_t pair = 0; pair < 2; ++pair) {
      const int high = hexValue(text[g * 5 + pair * 2]);
      const int low = hexValue(text[g * 5 + pair * 2 + 1]);
      if (high < 0 || low < 0) return false;
      out->push_back(static_cast<uint8_t>(high * 16 + low));
    }
  }
  return true;
}

std::string formatHexGroups(const uint8_t* bytes, size_t groups) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  for (size_t i = 0; i < groups * 2; ++i) {
    if (i > 0 && i % 2 == 0) text += ':';
    text += kDigits[bytes[i] >> 4];
    text += kDigits[bytes[i] & 0xf];
  }
  return text;
}

// Digits only, value <= limit; the caller handles signs.
std::optional<int64_t> parseDigits(std::string_view text, int64_t limit) {
  if (text.empty() || text.size() > 12) return std::nullopt;
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  if (value > limit) return std::nullopt;
  return value;
}

}  // namespace

std::optional<int> parseRateMbps(const std::string& text) {
  // The kernel prints "%d%s Gb/sec (%dX %s)" with "%s" = ".5" for SDR/DDR 1X; allow up to three
  // fraction digits for rates other drivers print ("14.0625" is cut to 14.062 Gb/s = 14062 Mb/s).
  constexpr int64_t kMaxMbps = 100'000'000;  // 100 Tb/s: far above any port, far below INT_MAX
  std::string_view rest = trimmed(text);
  const size_t space = rest.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view number = rest.substr(0, space);
  rest.remove_prefix(space + 1);
  if (rest.substr(0, 6) != "Gb/sec") return std::nullopt;
  rest.remove_prefix(6);
  if (!rest.empty() && (rest.front() != ' ' || rest.substr(1, 1) != "(" || rest.back() != ')')) return std::nullopt;
  const size_t dot = number.find('.');
  const auto whole = parseDigits(number.substr(0, dot), kMaxMbps / 1000);
  if (!whole) return std::nullopt;
  int64_t mbps = *whole * 1000;
  if (dot != std::string_view::npos) {
    const std::string_view fraction = number.substr(dot + 1);
    if (fraction.empty() || fraction.size() > 4 || !parseDigits(fraction, 9999)) return std::nullopt;
    int64_t scale = 100;
    for (size_t i = 0; i < fraction.size() && i < 3; ++i, scale /= 10) mbps += (fraction[i] - '0') * scale;
  }
  if (mbps <= 0 || mbps > kMaxMbps) return std::nullopt;
  return static_cast<int>(mbps);
}

std::optional<uint64_t> parseGuid(const std::string& text) {
  std::vector<uint8_t> bytes;
  if (!parseHexGroups(trimmed(text), 4, &bytes)) return std::nullopt;
  uint64_t guid = 0;
  for (uint8_t b : bytes) guid = (guid << 8) | b;
  return guid;
}

std::string formatGuid(uint64_t guid) {
  uint8_t bytes[8];
  for (int i = 7; i >= 0; --i, guid >>= 8) bytes[i] = static_cast<uint8_t>(guid & 0xff);
  return formatHexGroups(bytes, 4);
}

std::optional<GidBytes> parseGid(const std::string& text) {
  std::vector<uint8_t> bytes;
  if (!parseHexGroups(trimmed(text), 8, &bytes)) return std::nullopt;
  GidBytes gid{};
  for (size_t i = 0; i < gid.size(); ++i) gid[i] = bytes[i];
  return gid;
}

std::string formatGid(const GidBytes& gid) {
  return formatHexGroups(gid.data(), 8);
}

bool isZeroGid(const GidBytes& gid) {
  for (uint8_t b : gid)
    if (b != 0) return false;
  return true;
}

std::optional<std::string> gidIpv4(const GidBytes& gid) {
  for (size_t i = 0; i < 10; ++i)
    if (gid[i] != 0) return std::nullopt;
  if (gid[10] != 0xff || gid[11] != 0xff) return std::nullopt;
  return std::to_string(gid[12]) + "." + std::to_string(gid[13]) + "." + std::to_string(gid[14]) + "." +
         std::to_string(gid[15]);
}

std::optional<int> parseNumaNode(const std::string& text) {
  const std::string_view value = trimmed(text);
  if (value == "-1") return -1;
  const auto node = parseDigits(value, 65535);
  if (!node) return std::nullopt;
  return static_cast<int>(*node);
}

std::optional<uint16_t> parseHexId(const std::string& text) {
  const std::string_view value = trimmed(text);
  if (value.size() < 3 || value.size() > 6 || value[0] != '0' || (value[1] != 'x' && value[1] != 'X')) {
    return std::nullopt;
  }
  unsigned id = 0;
  for (char c : value.substr(2)) {
    const int digit = hexValue(c);
    if (digit < 0) return std::nullopt;
    id = id * 16 + static_cast<unsigned>(digit);
  }
  return static_cast<uint16_t>(id);
}

std::optional<std::string> parsePortState(const std::string& text) {
  const std::string_view value = trimmed(text);
  const size_t colon = value.find(": ");
  if (colon == std::string_view::npos || !parseDigits(value.substr(0, colon), 255)) return std::nullopt;
  const std::string_view word = value.substr(colon + 2);
  if (word.empty()) return std::nullopt;
  for (char c : word)
    if (!std::isupper(static_cast<unsigned char>(c)) && c != '_') return std::nullopt;
  return std::string(word);
}

std::optional<int> parseSysfsInt(const std::string& text) {
  std::string_view value = trimmed(text);
  const bool negative = !value.empty() && value.front() == '-';
  if (negative) value.remove_prefix(1);
  const auto magnitude = parseDigits(value, 2147483647);
  if (!magnitude) return std::nullopt;
  return static_cast<int>(negative ? -*magnitude : *magnitude);
}

int netSpeedMbps(const SysfsRead& read) {
  if (read.error != 0) return -1;
  const auto speed = parseSysfsInt(read.text);
  return speed && *speed >= 0 ? *speed : -1;
}

}  // namespace railtune::fabric::discover
