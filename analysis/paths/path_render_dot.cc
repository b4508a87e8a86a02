// Graphviz DOT text of the same picture, for users' own tools (not rendered here): clusters for racks
// and trays, GPU and NIC nodes, one node per rail switch, and one edge chain per connection
// (GPU -- NIC -- switch [-- spine -- switch] -- NIC -- GPU) with the SVG's colour, width and dash.
#include <algorithm>

#include "analysis/paths/path_render.h"
#include "analysis/paths/path_render_ends.h"
#include "analysis/paths/path_render_style.h"

namespace railtune::analysis::paths {
namespace {

std::string quoted(const std::string& text) {
  return "\"" + style::dotEscape(text) + "\"";
}

std::string hostId(int rack, int host) {
  return "r" + std::to_string(rack) + "h" + std::to_string(host);
}

std::string nicId(const LinkEnd& e) {
  return hostId(e.rack, e.host) + "n" + std::to_string(e.nic);
}

std::string switchNode(size_t index, const RailSwitch& sw) {
  return "  s" + std::to_string(index) + " [label=" + quoted(style::railLabel(sw.rail, sw.plane) + " switch") +
         ", style=filled, fillcolor=" + quoted(style::railColour(sw.rail)) + ", fontcolor=\"#ffffff\"];\n";
}

std::string edgeStyle(int rail, uint64_t bytes, bool violation, const std::string& tooltip) {
  const double width = violation ? std::max(style::strokeWidth(bytes), 2.5) : style::strokeWidth(bytes);
  return " [color=" + quoted(violation ? style::kViolationColour : style::railColour(rail)) +
         ", penwidth=" + style::fixed1(width) + (violation ? ", style=dashed" : "") + ", tooltip=" + quoted(tooltip) +
         "];\n";
}

std::string hostCluster(const RenderHost& host, int rack, int index) {
  const std::string id = hostId(rack, index);
  std::string s = "    subgraph " + quoted("cluster_" + id) +
                  " {\n      label=" + quoted(host.name + (host.logged ? "" : " (no path log)")) + ";\n";
  for (size_t n = 0; n < host.nics.size(); ++n)
    s += "      " + id + "n" + std::to_string(n) +
         " [label=" + quoted(host.nics[n].hca.empty() ? "?" : host.nics[n].hca) +
         ", color=" + quoted(style::railColour(host.nics[n].rail)) + "];\n";
  for (size_t g = 0; g < host.gpus.size(); ++g) {
    const std::string gpu = id + "g" + std::to_string(g);
    s += "      " + gpu + " [label=" + quoted("GPU " + std::to_string(host.gpus[g].index)) + "];\n";
    for (const int n : host.gpus[g].intendedNics)
      s += "      " + gpu + " -- " + id + "n" + std::to_string(n) + " [style=dotted, color=\"#8b949e\"];\n";
  }
  return s + "    }\n";
}

std::string linkChain(const PathGraph& graph, const RenderLink& l) {
  const auto& from = graph.racks[static_cast<size_t>(l.from.rack)].hosts[static_cast<size_t>(l.from.host)];
  const auto& to = graph.racks[static_cast<size_t>(l.to.rack)].hosts[static_cast<size_t>(l.to.host)];
  // GPU -- NIC -- switch | -- spine -- switch | -- NIC -- GPU, one edge chain in one style: a violation is red from
  // end to end (path_render_ends.h).
  std::string fromEnd, middle, toEnd;
  if (l.from.gpu >= 0) fromEnd += hostId(l.from.rack, l.from.host) + "g" + std::to_string(l.from.gpu) + " -- ";
  fromEnd += nicId(l.from) + " -- s" + std::to_string(l.from.switchIndex);
  if (l.from.switchIndex != l.to.switchIndex) middle = " -- spine -- s" + std::to_string(l.to.switchIndex);
  toEnd = " -- " + nicId(l.to);
  if (l.to.gpu >= 0) toEnd += " -- " + hostId(l.to.rack, l.to.host) + "g" + std::to_string(l.to.gpu);
  const std::string chain = "  " + fromEnd + middle + toEnd;  // a violation is red from end to end
  std::string tooltip = from.name + " " + from.nics[static_cast<size_t>(l.from.nic)].hca + " rank " +
                        std::to_string(l.from.rank) + " -> " + to.name + " " +
                        to.nics[static_cast<size_t>(l.to.nic)].hca + " rank " + std::to_string(l.to.rank) + ": " +
                        style::bytesText(l.bytes) + ", " + std::to_string(l.messages) + " messages";
  if (l.crossRail) tooltip += ", VIOLATION cross-rail";
  if (l.crossRail && misboundEnd(graph, l.from))
    tooltip += " (misbound: " + from.name + " " + from.nics[static_cast<size_t>(l.from.nic)].hca + ")";
  if (l.crossRail && misboundEnd(graph, l.to))
    tooltip += " (misbound: " + to.name + " " + to.nics[static_cast<size_t>(l.to.nic)].hca + ")";
  if (l.digestMismatch) tooltip += ", VIOLATION digest mismatch";
  if (!l.verbs.empty()) tooltip += "; verbs: " + l.verbs;
  return "  // connection record " + std::to_string(l.connection) + "\n" + chain +
         edgeStyle(l.rail, l.bytes, l.violation(), tooltip);
}

std::string header(const std::string& heading) {
  return "// railtune paths render: Graphviz DOT (render with e.g. `dot -Tsvg`)\ngraph railtune_paths {\n  graph "
         "[label=" +
         quoted("railtune paths: " + heading) +
         ", labelloc=t, fontname=\"DejaVu Sans\", newrank=true];\n  node [shape=box, fontname=\"DejaVu Sans\", "
         "fontsize=10];\n  edge [fontname=\"DejaVu Sans\", fontsize=9];\n";
}

}  // namespace

std::string renderDot(const PathGraph& graph) {
  std::string out = header(summaryLine(graph.job, graph.counts));
  for (size_t r = 0; r < graph.racks.size(); ++r) {
    out += "  subgraph " + quoted("cluster_r" + std::to_string(r)) + " {\n    label=" + quoted(graph.racks[r].name) +
           ";\n";
    for (size_t h = 0; h < graph.racks[r].hosts.size(); ++h)
      out += hostCluster(graph.racks[r].hosts[h], static_cast<int>(r), static_cast<int>(h));
    out += "  }\n";
  }
  for (size_t i = 0; i < graph.switches.size(); ++i) out += switchNode(i, graph.switches[i]);
  const bool spine = std::any_of(graph.links.begin(), graph.links.end(),
                                 [](const RenderLink& l) { return l.from.switchIndex != l.to.switchIndex; });
  if (spine) out += "  spine [label=\"spine\", shape=box, style=filled, fillcolor=\"#e6e8eb\"];\n";
  for (const RenderLink& l : graph.links) out += linkChain(graph, l);
  return out + "}\n";
}

std::string renderDot(const RackGraph& graph) {
  std::string out = header(summaryLine(graph.job, graph.counts) + " (aggregated by rack)");
  for (size_t r = 0; r < graph.racks.size(); ++r) {
    const RackSummary& rack = graph.racks[r];
    // "\\n" is DOT's line break inside a label; the name itself is escaped.
    std::string label = style::dotEscape(rack.name) + "\\n" + std::to_string(rack.hosts) + " trays, " +
                        std::to_string(rack.gpus) + " GPUs";
    if (rack.violations > 0) label += "\\n" + std::to_string(rack.violations) + " violations";
    out += "  rack" + std::to_string(r) + " [label=\"" + label + "\"" +
           (rack.violations > 0 ? ", color=\"#d00000\", penwidth=2" : "") + "];\n";
  }
  for (size_t i = 0; i < graph.switches.size(); ++i) out += switchNode(i, graph.switches[i]);
  for (const RackLink& l : graph.links) {
    const std::string tooltip = graph.racks[static_cast<size_t>(l.rack)].name + ": " + std::to_string(l.connections) +
                                " connections, " + style::bytesText(l.bytes) + ", " + std::to_string(l.violations) +
                                " violations";
    out += "  rack" + std::to_string(l.rack) + " -- s" + std::to_string(l.switchIndex) +
           edgeStyle(l.rail, l.bytes, l.violations > 0, tooltip);
  }
  return out + "}\n";
}

}  // namespace railtune::analysis::paths
