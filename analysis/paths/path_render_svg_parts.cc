#include "analysis/paths/path_render_svg_parts.h"

#include <set>

#include "analysis/paths/path_render_layout.h"
#include "analysis/paths/path_render_style.h"

namespace railtune::analysis::paths::svg {
namespace {

// Presentation attributes on each element carry colour and width (so the SVG reads the same in tools
// without CSS); the sheet adds hover and text styles.
constexpr const char* kStyleSheet =
    "<style>\n"
    "text{font-family:'DejaVu Sans',Arial,sans-serif;font-size:11px;fill:#1f2328}\n"
    ".heading{font-size:16px;font-weight:bold}\n"
    ".rack-frame{fill:#f3f4f6;stroke:#8b949e}\n"
    ".tray{fill:#ffffff;stroke:#c0c6cc}\n"
    ".rack-label,.tray-label{font-weight:bold}\n"
    ".gpu rect{fill:#eef2f7;stroke:#57606a}\n"
    ".nic rect{fill:#ffffff;stroke-width:2}\n"
    ".switch text{fill:#ffffff;font-weight:bold}\n"
    ".spine{fill:#e6e8eb;stroke:#8b949e}\n"
    ".binding{stroke:#8b949e;stroke-width:1;stroke-dasharray:2 3}\n"
    ".link{fill:none;stroke-linecap:round;stroke-opacity:0.7}\n"
    ".link.violation{stroke-opacity:1}\n"
    ".link:hover{stroke-opacity:1;filter:drop-shadow(0 0 2px #444)}\n"
    ".rack-box rect{fill:#f3f4f6;stroke:#8b949e}\n"
    ".rack-box.has-violation rect{stroke:#d00000;stroke-width:2}\n"
    ".rack-violation text{fill:#ffffff;font-weight:bold}\n"
    ".muted{fill:#57606a}\n"
    "</style>\n";

std::string swatch(int x, int y, const char* colour, double width, bool dashed) {
  std::string s = "<line" + attr("x1", x) + attr("y1", y) + attr("x2", x + 28) + attr("y2", y) +
                  attr("stroke", colour) + attr("stroke-width", style::fixed1(width));
  if (dashed) s += attr("stroke-dasharray", "8 5");
  return s + "/>";
}

std::string text(int x, int y, const std::string& content, const char* cls = nullptr) {
  std::string s = "<text" + attr("x", x) + attr("y", y);
  if (cls != nullptr) s += attr("class", cls);
  return s + ">" + style::xmlEscape(content) + "</text>";
}

}  // namespace

std::string attr(const char* name, const std::string& value) {
  return std::string(" ") + name + "=\"" + style::xmlEscape(value) + "\"";
}

std::string attr(const char* name, long long value) {
  return std::string(" ") + name + "=\"" + std::to_string(value) + "\"";
}

std::string open(int width, int height, const std::string& view, const std::string& job, const std::string& heading) {
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\"" + attr("id", "paths") + attr("width", width) +
                  attr("height", height) +
                  attr("viewBox", "0 0 " + std::to_string(width) + " " + std::to_string(height)) +
                  attr("data-view", view) + attr("data-job", job) + ">\n";
  s += kStyleSheet;
  s += "<title>" + style::xmlEscape("railtune paths: " + heading) + "</title>\n";
  s += "<rect" + attr("width", width) + attr("height", height) + attr("fill", "#ffffff") + "/>\n";
  s += text(kMargin, 28, "railtune paths: " + heading, "heading") + "\n";
  return s;
}

std::string legend(const std::vector<RailSwitch>& switches, bool rackBadge) {
  std::set<int> rails;
  for (const RailSwitch& sw : switches) rails.insert(sw.rail);
  const int row1 = kLegendTop + 16, row2 = kLegendTop + 46;
  std::string s = "<g id=\"legend\">\n" + text(kMargin, row1 + 4, "Rails", "tray-label");
  int x = kMargin + 52;
  for (const int rail : rails) {
    s += "<g class=\"legend-rail\"" + attr("data-rail", rail) + ">" +
         swatch(x, row1, style::railColour(rail), 4, false) + text(x + 34, row1 + 4, style::railLabel(rail, -1)) +
         "</g>";
    x += 100;
  }
  s += "\n" + text(kMargin, row2 + 4, "Bytes", "tray-label");
  x = kMargin + 52;
  static constexpr struct {
    unsigned long long bytes;
    const char* label;
  } kSamples[] = {
      {1024ULL, "\u2264 1 KiB"}, {1048576ULL, "1 MiB"}, {1073741824ULL, "1 GiB"}, {10737418240ULL, "\u2265 10 GiB"}};
  for (const auto& sample : kSamples) {
    s += swatch(x, row2, "#57606a", style::strokeWidth(sample.bytes), false) + text(x + 34, row2 + 4, sample.label);
    x += 100;
  }
  s += "<g class=\"legend-violation\">" + swatch(x + 20, row2, style::kViolationColour, 3, true) +
       text(x + 54, row2 + 4, "violation: cross-rail or digest mismatch") + "</g>";
  if (rackBadge) {
    x += 330;
    s += "<g class=\"legend-badge\"><circle" + attr("cx", x + 10) + attr("cy", row2) + attr("r", 9) +
         attr("fill", style::kViolationColour) + "/>" + text(x + 26, row2 + 4, "violations in a rack") + "</g>";
  }
  return s + "\n</g>\n";
}

}  // namespace railtune::analysis::paths::svg
