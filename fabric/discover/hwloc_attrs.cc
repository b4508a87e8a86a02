// Parsers for the attribute values of an hwloc XML export: bitmaps (cpusets, nodesets), pci_type,
// osdev_type. Pure functions, shared by the XML reader and the fuzzer.
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstdio>

#include "fabric/discover/hwloc_source.h"

namespace railtune::fabric::discover {
namespace {

bool parseHex(std::string_view text, uint32_t& out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out, 16);
  return ec == std::errc() && end == text.data() + text.size();
}

// hwloc writes a bitmap as comma-separated 32-bit words, most significant first, each "0x" followed
// by at most 8 hex digits (the first one unpadded); an infinite set starts with "0xf...f", which is
// rejected here. Returns the words, most significant first.
std::optional<std::vector<uint32_t>> bitmapWords(std::string_view text) {
  std::vector<uint32_t> words;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view word = text.substr(start, comma - start);
    if (word.size() < 3 || word.size() > 10 || word[0] != '0' || (word[1] != 'x' && word[1] != 'X')) {
      return std::nullopt;
    }
    uint32_t value = 0;
    if (!parseHex(word.substr(2), value) || words.size() == kHwlocMaxCpusetWords) return std::nullopt;
    words.push_back(value);
    start = comma + 1;
  }
  if (words.empty()) return std::nullopt;
  return words;
}

}  // namespace

std::optional<std::string> hwlocBitmapToCpumap(std::string_view text) {
  const auto words = bitmapWords(text);
  if (!words) return std::nullopt;
  size_t first = 0;  // leading zero words carry nothing; keep at least one word, as Linux does
  while (first + 1 < words->size() && (*words)[first] == 0) ++first;
  std::string out;
  char buf[16];
  for (size_t i = first; i < words->size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%08x", i == first ? "" : ",", (*words)[i]);
    out += buf;
  }
  return out;
}

std::optional<int> hwlocBitmapFirst(std::string_view text) {
  const auto words = bitmapWords(text);
  if (!words) return std::nullopt;
  for (size_t i = words->size(); i-- > 0;) {
    const uint32_t word = (*words)[i];
    if (word != 0) return static_cast<int>((words->size() - 1 - i) * 32) + std::countr_zero(word);
  }
  return -1;
}

std::optional<PciType> parsePciType(std::string_view text) {
  // "CCCC [VVVV:DDDD]": 16 characters at fixed places.
  if (text.size() < 16 || text[4] != ' ' || text[5] != '[' || text[10] != ':' || text[15] != ']') {
    return std::nullopt;
  }
  uint32_t cls = 0, vendor = 0, device = 0;
  if (!parseHex(text.substr(0, 4), cls) || !parseHex(text.substr(6, 4), vendor) ||
      !parseHex(text.substr(11, 4), device)) {
    return std::nullopt;
  }
  return PciType{static_cast<uint16_t>(cls), static_cast<uint16_t>(vendor), static_cast<uint16_t>(device)};
}

OsDevKind osDevKindFromHwloc(long value, bool bitmask) {
  if (!bitmask) {
    switch (value) {
      case 0:
        return OsDevKind::Storage;  // HWLOC_OBJ_OSDEV_BLOCK
      case 1:
        return OsDevKind::Gpu;
      case 2:
        return OsDevKind::Network;
      case 3:
        return OsDevKind::OpenFabrics;
      case 4:
        return OsDevKind::Dma;
      case 5:
        return OsDevKind::Coproc;
      default:
        return OsDevKind::Other;
    }
  }
  if (value < 0) return OsDevKind::Other;
  // An NVML/CUDA GPU is GPU|COPROC (12), an mlx5 device NETWORK|OPENFABRICS (48): the more specific
  // bit decides, since that is what tells a GPU from an accelerator and an RDMA device from a netdev.
  if (value & 4) return OsDevKind::Gpu;
  if (value & 32) return OsDevKind::OpenFabrics;
  if (value & 8) return OsDevKind::Coproc;
  if (value & 16) return OsDevKind::Network;
  if (value & 1) return OsDevKind::Storage;
  if (value & 64) return OsDevKind::Dma;
  return OsDevKind::Other;  // MEMORY (2) alone, or no bit we know
}

}  // namespace railtune::fabric::discover
