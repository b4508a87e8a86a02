#include "analysis/paths/path_render_style.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "formats/markup_escape.h"

namespace railtune::analysis::paths::style {

const char* railColour(int rail) {
  if (rail < 0) return kUnknownRailColour;
  return kRailPalette[rail % 8];
}

double strokeWidth(uint64_t bytes) {
  if (bytes <= 1024) return kMinStrokeWidth;
  const double decades = std::log10(static_cast<double>(bytes) / 1024.0);
  // Rounded to a tenth so that the printed value (fixed1) is the value used everywhere.
  const double width = std::round((kMinStrokeWidth + decades) * 10.0) / 10.0;
  return std::min(width, kMaxStrokeWidth);
}

std::string fixed1(double value) {
  // Integer arithmetic: printf's %f honours LC_NUMERIC, and the outputs must not depend on the locale.
  const long long tenths = std::llround(value * 10.0);
  const long long whole = (tenths < 0 ? -tenths : tenths) / 10;
  const long long frac = (tenths < 0 ? -tenths : tenths) % 10;
  return std::string(tenths < 0 ? "-" : "") + std::to_string(whole) + "." + std::to_string(frac);
}

std::string bytesText(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double value = static_cast<double>(bytes) / 1024.0;
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  return fixed1(value) + " " + kUnits[unit];
}

std::string railLabel(int rail, int plane) {
  std::string label = rail < 0 ? "rail ?" : "rail " + std::to_string(rail);
  if (plane >= 0) label += " plane " + std::to_string(plane);
  return label;
}

std::string xmlEscape(std::string_view text) {
  return formats::markupEscape(text);
}

std::string dotEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace railtune::analysis::paths::style
