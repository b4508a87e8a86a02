// Reading a byte size (byte_size.h).
#include "common/byte_size.h"

#include <array>
#include <cctype>
#include <string>
#include <utility>

namespace railtune {
namespace {

// The power of two a unit suffix stands for ("", "B", "K", "KB", "KiB", ... in any case); -1 = not a unit.
int unitShift(std::string_view suffix) {
  std::string upper(suffix);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper.empty() || upper == "B") return 0;
  static constexpr std::string_view kUnits = "KMGT";
  const size_t unit = kUnits.find(upper.front());
  if (unit == std::string_view::npos) return -1;
  const std::string_view tail = std::string_view(upper).substr(1);
  if (!tail.empty() && tail != "B" && tail != "IB") return -1;
  return 10 * static_cast<int>(unit + 1);
}

}  // namespace

ByteSize readByteSize(std::string_view text) {
  ByteSize out;
  size_t i = 0;
  uint64_t value = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
    if (value > (UINT64_MAX - digit) / 10) return {0, ByteSize::Problem::kNotANumber};
    value = value * 10 + digit;
  }
  if (i == 0) return {0, ByteSize::Problem::kNotANumber};
  const int shift = unitShift(text.substr(i));
  if (shift < 0) return {0, ByteSize::Problem::kUnknownUnit};
  if (shift > 0 && value > (UINT64_MAX >> shift)) return {0, ByteSize::Problem::kTooLarge};
  out.bytes = value << shift;
  return out;
}

std::optional<uint64_t> parseByteSize(std::string_view text) {
  const ByteSize size = readByteSize(text);
  if (!size.ok()) return std::nullopt;
  return size.bytes;
}

std::string byteSizeLabel(uint64_t bytes) {
  static constexpr std::array<std::pair<uint64_t, const char*>, 3> kUnits{
      {{1ull << 30, "G"}, {1ull << 20, "M"}, {1ull << 10, "K"}}};
  for (const auto& [unit, suffix] : kUnits)
    if (bytes >= unit && bytes % unit == 0) return std::to_string(bytes / unit) + suffix;
  return std::to_string(bytes);
}

}  // namespace railtune
