// What the renderers share: the rail palette, the byte → stroke width scale, fixed number formatting
// and escaping. Everything here is locale-independent, so the outputs are byte-for-byte reproducible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace railtune::analysis::paths::style {

// Rail colours, readable on white and told apart by most colour-blind readers (Okabe-Ito based, no red:
// red is the violations' colour). Rail r uses kRailPalette[r % 8]; an unknown rail is grey.
inline constexpr const char* kRailPalette[8] = {"#0072b2", "#e69f00", "#009e73", "#7b3fa0",
                                                "#56b4e9", "#8c6d1f", "#cc79a7", "#4d4d4d"};
inline constexpr const char* kUnknownRailColour = "#999999";
inline constexpr const char* kViolationColour = "#d00000";

const char* railColour(int rail);

// Stroke width from bytes, log scale: 1 px up to 1 KiB, then 1 px more per factor of 10, at most 8 px
// (1 MiB ≈ 4 px, 1 GiB ≈ 7 px, 10 GiB and more 8 px).
double strokeWidth(uint64_t bytes);
inline constexpr double kMinStrokeWidth = 1.0;
inline constexpr double kMaxStrokeWidth = 8.0;

// "%.1f" without locale effects ("3.5", "12.0").
std::string fixed1(double value);
// Human-readable bytes with binary units: "512 B", "4.0 KiB", "1.5 GiB".
std::string bytesText(uint64_t bytes);
// "rail 2", "rail 2 plane 1", "rail ?".
std::string railLabel(int rail, int plane);

// Text and attribute values for XML/HTML/SVG: formats::markupEscape (&, <, >, ", ' as entities; bytes that are
// not UTF-8, and characters XML forbids, as U+FFFD).
std::string xmlEscape(std::string_view text);
// A DOT double-quoted string's contents (", \ and newlines).
std::string dotEscape(std::string_view text);

}  // namespace railtune::analysis::paths::style
