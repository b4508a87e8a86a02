// The racks view in SVG, for large jobs: the rail switches in a column, the racks in another, one link
// per (rack, switch) carrying the summed bytes of every connection with an end in that rack on that
// rail. A rack holding a violation gets a red frame and a red badge with the count.
#include <algorithm>

#include "analysis/paths/path_render.h"
#include "analysis/paths/path_render_layout.h"
#include "analysis/paths/path_render_style.h"
#include "analysis/paths/path_render_svg_parts.h"

namespace railtune::analysis::paths {
namespace {

using svg::attr;

std::string plural(int n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string rackLinkPath(const Box& sw, const Box& rack) {
  const int x1 = sw.right(), y1 = sw.cy(), x2 = rack.x, y2 = rack.cy(), mid = (x1 + x2) / 2;
  return "M" + std::to_string(x1) + " " + std::to_string(y1) + " C" + std::to_string(mid) + " " + std::to_string(y1) +
         " " + std::to_string(mid) + " " + std::to_string(y2) + " " + std::to_string(x2) + " " + std::to_string(y2);
}

std::string rackLink(const RackGraph& graph, const RackLayout& layout, const RackLink& l) {
  const bool bad = l.violations > 0;
  const RackSummary& rack = graph.racks[static_cast<size_t>(l.rack)];
  std::string title = rack.name + " \u2194 " + style::railLabel(l.rail, l.plane) +
                      " switch: " + plural(l.connections, "connection", "connections") + ", " +
                      style::bytesText(l.bytes);
  if (bad) title += "\nVIOLATIONS: " + std::to_string(l.violations) + " (cross-rail or digest mismatch)";
  const double width = bad ? std::max(style::strokeWidth(l.bytes), 2.5) : style::strokeWidth(l.bytes);
  std::string s = "<path" + attr("class", bad ? "link violation" : "link") +
                  attr("d", rackLinkPath(layout.switches[static_cast<size_t>(l.switchIndex)],
                                         layout.racks[static_cast<size_t>(l.rack)])) +
                  attr("stroke", bad ? style::kViolationColour : style::railColour(l.rail)) +
                  attr("stroke-width", style::fixed1(width));
  if (bad) s += attr("stroke-dasharray", "8 5");
  return s + attr("data-rack", rack.name) + attr("data-rail", l.rail) + attr("data-plane", l.plane) +
         attr("data-bytes", std::to_string(l.bytes)) + attr("data-connections", l.connections) +
         attr("data-violations", l.violations) + "><title>" + style::xmlEscape(title) + "</title></path>\n";
}

std::string rackBox(const RackSummary& rack, const Box& b) {
  const bool bad = rack.violations > 0;
  std::string s = "<g" + attr("class", bad ? "rack-box has-violation" : "rack-box") + attr("data-rack", rack.name) +
                  attr("data-violations", rack.violations) + "><rect" + attr("x", b.x) + attr("y", b.y) +
                  attr("width", b.w) + attr("height", b.h) + attr("rx", 4) + "/>";
  s += "<text class=\"rack-label\"" + attr("x", b.x + 8) + attr("y", b.y + 15) + ">" + style::xmlEscape(rack.name) +
       "</text>";
  s += "<text class=\"muted\"" + attr("x", b.x + 8) + attr("y", b.y + 28) + ">" +
       style::xmlEscape(plural(rack.hosts, "tray", "trays") + ", " + plural(rack.gpus, "GPU", "GPUs") + ", " +
                        plural(rack.connections, "connection", "connections") + ", " + style::bytesText(rack.bytes)) +
       "</text>";
  if (bad)
    s += "<g class=\"rack-violation\"><title>" +
         style::xmlEscape(plural(rack.violations, "connection", "connections") + " of " + rack.name +
                          " crossed rails or disagreed on the configuration digest") +
         "</title><circle" + attr("cx", b.right() + 22) + attr("cy", b.cy()) + attr("r", 14) +
         attr("fill", style::kViolationColour) + "/><text" + attr("x", b.right() + 22) + attr("y", b.cy() + 4) +
         " text-anchor=\"middle\">" + std::to_string(rack.violations) + "</text></g>";
  return s + "</g>\n";
}

std::string switchBox(const RailSwitch& sw, const Box& b) {
  return "<g class=\"switch\"" + attr("data-rail", sw.rail) + attr("data-plane", sw.plane) + "><rect" + attr("x", b.x) +
         attr("y", b.y) + attr("width", b.w) + attr("height", b.h) + attr("rx", 5) +
         attr("fill", style::railColour(sw.rail)) + "/><text" + attr("x", b.cx()) + attr("y", b.y + 20) +
         " text-anchor=\"middle\">" + style::xmlEscape(style::railLabel(sw.rail, sw.plane) + " switch") +
         "</text></g>\n";
}

}  // namespace

std::string renderSvg(const RackGraph& graph) {
  const RackLayout layout = layoutRacks(graph);
  const std::string heading = summaryLine(graph.job, graph.counts) + " (aggregated by rack)";
  std::string out = svg::open(layout.width, layout.height, "racks", graph.job, heading);
  out += svg::legend(graph.switches, true);
  out += "<g id=\"links\">\n";
  for (const RackLink& l : graph.links) out += rackLink(graph, layout, l);
  out += "</g>\n<g id=\"racks\">\n";
  for (size_t r = 0; r < graph.racks.size(); ++r) out += rackBox(graph.racks[r], layout.racks[r]);
  out += "</g>\n<g id=\"switches\">\n";
  for (size_t i = 0; i < graph.switches.size(); ++i) out += switchBox(graph.switches[i], layout.switches[i]);
  return out + "</g>\n</svg>\n";
}

}  // namespace railtune::analysis::paths
