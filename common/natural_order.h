// The one order railtune lists names in (hosts, racks, HCAs, files): "natural" order, where a run of
// digits compares as the number it spells, so mlx5_2 comes before mlx5_11 and host r2 before r10. A
// correctly wired tray listed as text (mlx5_0, mlx5_1, mlx5_11, mlx5_2) looks miswired to the reader.
// Names that differ only in leading zeros (r01, r1) are told apart by plain byte order, so the order is
// total and sorting is deterministic.
#pragma once

#include <cstddef>
#include <string_view>

namespace railtune {

// <0, 0, >0 as a comes before, equals, or follows b in natural order.
inline int naturalCompare(std::string_view a, std::string_view b) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      size_t iEnd = i, jEnd = j;
      while (iEnd < a.size() && digit(a[iEnd])) ++iEnd;
      while (jEnd < b.size() && digit(b[jEnd])) ++jEnd;
      size_t iStart = i, jStart = j;  // the number without its leading zeros
      while (iStart + 1 < iEnd && a[iStart] == '0') ++iStart;
      while (jStart + 1 < jEnd && b[jStart] == '0') ++jStart;
      const size_t iLength = iEnd - iStart, jLength = jEnd - jStart;
      if (iLength != jLength) return iLength < jLength ? -1 : 1;  // fewer digits: a smaller number
      const int digits = a.substr(iStart, iLength).compare(b.substr(jStart, jLength));
      if (digits != 0) return digits;
      i = iEnd;
      j = jEnd;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]) ? -1 : 1;
    ++i;
    ++j;
  }
  if (i < a.size() || j < b.size()) return i < a.size() ? 1 : -1;  // a prefix comes first
  return a.compare(b);  // equal as numbers ("r01", "r1"): byte order keeps the order total
}

inline bool naturalLess(std::string_view a, std::string_view b) {
  return naturalCompare(a, b) < 0;
}

// For std::map and std::set keys, and std::sort: std::set<std::string, NaturalLess>.
struct NaturalLess {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return naturalLess(a, b); }
};

}  // namespace railtune
