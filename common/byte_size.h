// The one reader of a byte size a user types ("128K", "1M", "16GiB", "4096"): the sweep's chunk sizes,
// the tuner's decision table bounds. Units are binary multiples (K = 1024), any case, with an optional
// "B" or, after a unit, "iB".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace railtune {

struct ByteSize {
  enum class Problem { kNone, kNotANumber, kUnknownUnit, kTooLarge };
  uint64_t bytes = 0;
  Problem problem = Problem::kNone;
  bool ok() const { return problem == Problem::kNone; }
};

// Decimal digits (at least one), then K, M, G or T, then B or iB (iB only after a unit). kNotANumber: no
// leading digit or more digits than 64 bits hold; kUnknownUnit: anything else after the digits;
// kTooLarge: the product does not fit 64 bits.
ByteSize readByteSize(std::string_view text);

// The size, or nullopt for any problem.
std::optional<uint64_t> parseByteSize(std::string_view text);

// The other way: the largest unit that divides the size exactly ("512K", "1G", "1536K", "1000"); a label
// parseByteSize reads back to the same bytes. Sizes up to G (a T size is written in G).
std::string byteSizeLabel(uint64_t bytes);

}  // namespace railtune
