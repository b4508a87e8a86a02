// The detail view in SVG: racks → trays → GPUs → NICs, the rail switches below, and every connection as
// one path GPU → NIC → its rail's switch (→ spine → the peer's rail's switch) → the peer's NIC → GPU.
// Drawing order: frames, intended GPU-NIC bindings, links (violations last, on top), then the boxes, so
// that labels stay readable over the lines.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "analysis/paths/path_render.h"
#include "analysis/paths/path_render_ends.h"
#include "analysis/paths/path_render_layout.h"
#include "analysis/paths/path_render_style.h"
#include "analysis/paths/path_render_svg_parts.h"

namespace railtune::analysis::paths {
namespace {

using svg::attr;

// A link's path in three pieces, so that a violation can be drawn red on one side of a rail switch only:
// fromEnd (GPU, NIC, up to its rail switch), middle (over the spine to the other switch; empty on one
// switch) and toEnd (down to the peer's NIC and GPU); atFromSwitch/atToSwitch start a path at a switch.
struct LinkPath {
  std::string fromEnd, middle, toEnd;
};

struct DetailWriter {
  const PathGraph& graph;
  const DetailLayout& layout;
  std::string out;

  const RenderHost& host(const LinkEnd& e) const {
    return graph.racks[static_cast<size_t>(e.rack)].hosts[static_cast<size_t>(e.host)];
  }
  const HostLayout& place(const LinkEnd& e) const {
    return layout.hosts[static_cast<size_t>(e.rack)][static_cast<size_t>(e.host)];
  }

  void frames();
  void bindings();
  void link(const RenderLink& l);
  void devices();
  void switches();
  LinkPath pathOf(const RenderLink& l) const;
  std::string endText(const LinkEnd& e) const;
  std::map<std::tuple<int, int, int>, std::set<int>> ranksByGpu() const;  // (rack, host, GPU) -> ranks
};

void DetailWriter::frames() {
  out += "<g id=\"racks\">\n";
  for (size_t r = 0; r < graph.racks.size(); ++r) {
    const Box& b = layout.racks[r];
    out += "<g class=\"rack\"" + attr("data-rack", graph.racks[r].name) + "><rect class=\"rack-frame\"" +
           attr("x", b.x) + attr("y", b.y) + attr("width", b.w) + attr("height", b.h) + attr("rx", 6) + "/>";
    out += "<text class=\"rack-label\"" + attr("x", b.x + 10) + attr("y", b.y + 17) + ">" +
           style::xmlEscape(graph.racks[r].name) + "</text>\n";
    for (size_t h = 0; h < graph.racks[r].hosts.size(); ++h) {
      const RenderHost& rh = graph.racks[r].hosts[h];
      const Box& t = layout.hosts[r][h].tray;
      out += "<g class=\"host\"" + attr("data-host", rh.name) + "><rect class=\"tray\"" + attr("x", t.x) +
             attr("y", t.y) + attr("width", t.w) + attr("height", t.h) + attr("rx", 4) + "/>";
      out += "<text class=\"tray-label\"" + attr("x", t.x + 8) + attr("y", t.y + 17) + ">" + style::xmlEscape(rh.name) +
             (rh.logged ? "" : "<tspan class=\"muted\"> (no path log)</tspan>") + "</text></g>\n";
    }
    out += "</g>\n";
  }
  out += "</g>\n";
}

void DetailWriter::bindings() {
  out += "<g id=\"bindings\">\n";
  for (size_t r = 0; r < graph.racks.size(); ++r)
    for (size_t h = 0; h < graph.racks[r].hosts.size(); ++h) {
      const RenderHost& rh = graph.racks[r].hosts[h];
      const HostLayout& hl = layout.hosts[r][h];
      for (size_t g = 0; g < rh.gpus.size(); ++g)
        for (const int n : rh.gpus[g].intendedNics) {
          const Box &gb = hl.gpus[g], &nb = hl.nics[static_cast<size_t>(n)];
          out += "<line class=\"binding\"" + attr("x1", gb.cx()) + attr("y1", gb.bottom()) + attr("x2", nb.cx()) +
                 attr("y2", nb.y) + "/>\n";
        }
    }
  out += "</g>\n";
}

LinkPath DetailWriter::pathOf(const RenderLink& l) const {
  // The two directions between the same NICs would cover each other exactly (and two dashed violations
  // would look solid): the one running against rack and host order is drawn a few pixels aside.
  const int shift = std::pair(l.from.rack, l.from.host) > std::pair(l.to.rack, l.to.host) ? 5 : 0;
  auto at = [shift](int x, int y) { return std::to_string(x + shift) + " " + std::to_string(y + shift); };
  const Box& a = place(l.from).nics[static_cast<size_t>(l.from.nic)];
  const Box& b = place(l.to).nics[static_cast<size_t>(l.to.nic)];
  const Box& sa = layout.switches[static_cast<size_t>(l.from.switchIndex)];
  const Box& sb = layout.switches[static_cast<size_t>(l.to.switchIndex)];
  LinkPath p;
  p.fromEnd = "M" + at(a.cx(), a.cy());
  if (l.from.gpu >= 0) {
    const Box& g = place(l.from).gpus[static_cast<size_t>(l.from.gpu)];
    p.fromEnd = "M" + at(g.cx(), g.cy()) + " L" + at(a.cx(), a.cy());
  }
  const int midA = (a.cy() + sa.cy()) / 2, midB = (b.cy() + sb.cy()) / 2;
  p.fromEnd += " C" + at(a.cx(), midA) + " " + at(sa.cx(), midA) + " " + at(sa.cx(), sa.cy());
  if (l.from.switchIndex != l.to.switchIndex) {
    const int spine = layout.spineBar.cy();
    p.middle = " L" + at(sa.cx(), spine) + " L" + at(sb.cx(), spine) + " L" + at(sb.cx(), sb.cy());
  }
  p.toEnd = " C" + at(sb.cx(), midB) + " " + at(b.cx(), midB) + " " + at(b.cx(), b.cy());
  if (l.to.gpu >= 0) {
    const Box& g = place(l.to).gpus[static_cast<size_t>(l.to.gpu)];
    p.toEnd += " L" + at(g.cx(), g.cy());
  }
  return p;
}

std::string DetailWriter::endText(const LinkEnd& e) const {
  const RenderHost& h = host(e);
  const RenderNic& nic = h.nics[static_cast<size_t>(e.nic)];
  std::string s = h.name;
  if (e.gpu >= 0) s += " GPU " + std::to_string(h.gpus[static_cast<size_t>(e.gpu)].index);
  s += " " + (nic.hca.empty() ? std::string("?") : nic.hca) + " (" + style::railLabel(nic.rail, nic.plane) + ")";
  if (e.rank >= 0) s += " rank " + std::to_string(e.rank);
  return s;
}

void DetailWriter::link(const RenderLink& l) {
  const RenderHost &from = host(l.from), &to = host(l.to);
  const bool bad = l.violation();
  const LinkPath p = pathOf(l);
  const std::string d = p.fromEnd + p.middle + p.toEnd;  // a violation is red from end to end (path_render_ends.h)
  const double width = bad ? std::max(style::strokeWidth(l.bytes), 2.5) : style::strokeWidth(l.bytes);
  std::string title = endText(l.from) + "\n\u2192 " + endText(l.to) + "\n" + style::bytesText(l.bytes) + " (" +
                      std::to_string(l.bytes) + " bytes), " + std::to_string(l.messages) + " messages";
  if (l.crossRail) title += "\nVIOLATION: cross-rail";
  if (l.crossRail && misboundEnd(graph, l.from)) title += " (misbound: " + endText(l.from) + ")";
  if (l.crossRail && misboundEnd(graph, l.to)) title += " (misbound: " + endText(l.to) + ")";
  if (l.digestMismatch) title += "\nVIOLATION: configuration digest mismatch";
  if (!l.ncclLine.empty()) title += "\nfrom NCCL's log: " + l.ncclLine;
  if (!l.verbs.empty()) title += "\nverbs: " + l.verbs;
  out += "<path" + attr("class", bad ? "link violation" : "link") + attr("d", d) +
         attr("stroke", bad ? style::kViolationColour : style::railColour(l.rail)) +
         attr("stroke-width", style::fixed1(width));
  if (bad) out += attr("stroke-dasharray", "8 5");
  out += attr("data-conn", l.connection) + attr("data-rail", l.rail) + attr("data-plane", l.plane) +
         attr("data-host", from.name) +
         attr("data-gpu", l.from.gpu >= 0 ? from.gpus[static_cast<size_t>(l.from.gpu)].index : -1) +
         attr("data-nic", from.nics[static_cast<size_t>(l.from.nic)].hca) + attr("data-rank", l.from.rank) +
         attr("data-peer-host", to.name) +
         attr("data-peer-gpu", l.to.gpu >= 0 ? to.gpus[static_cast<size_t>(l.to.gpu)].index : -1) +
         attr("data-peer-nic", to.nics[static_cast<size_t>(l.to.nic)].hca) + attr("data-peer-rank", l.to.rank) +
         attr("data-bytes", std::to_string(l.bytes)) + attr("data-messages", std::to_string(l.messages)) +
         (l.ncclLine.empty() ? std::string() : attr("data-source", "nccl-log")) + "><title>" + style::xmlEscape(title) +
         "</title></path>\n";
}

std::map<std::tuple<int, int, int>, std::set<int>> DetailWriter::ranksByGpu() const {
  std::map<std::tuple<int, int, int>, std::set<int>> ranks;
  auto note = [&](const LinkEnd& e) {
    if (e.gpu >= 0 && e.rank >= 0) ranks[{e.rack, e.host, e.gpu}].insert(e.rank);
  };
  for (const RenderLink& l : graph.links) {
    note(l.from);
    note(l.to);
  }
  return ranks;
}

std::string ranksText(const std::set<int>& ranks) {
  std::string s = ranks.size() == 1 ? "rank " : "ranks ";
  for (const int r : ranks) s += (s.back() == ' ' ? "" : ",") + std::to_string(r);
  return s;
}

void DetailWriter::devices() {
  const auto ranks = ranksByGpu();
  out += "<g id=\"devices\">\n";
  for (size_t r = 0; r < graph.racks.size(); ++r)
    for (size_t h = 0; h < graph.racks[r].hosts.size(); ++h) {
      const RenderHost& rh = graph.racks[r].hosts[h];
      const HostLayout& hl = layout.hosts[r][h];
      for (size_t g = 0; g < rh.gpus.size(); ++g) {
        const Box& b = hl.gpus[g];
        const auto found = ranks.find({static_cast<int>(r), static_cast<int>(h), static_cast<int>(g)});
        out += "<g class=\"gpu\"" + attr("data-host", rh.name) + attr("data-gpu", rh.gpus[g].index) + "><rect" +
               attr("x", b.x) + attr("y", b.y) + attr("width", b.w) + attr("height", b.h) + attr("rx", 3) + "/>";
        out += "<text" + attr("x", b.cx()) + attr("y", b.y + 13) + " text-anchor=\"middle\">GPU " +
               std::to_string(rh.gpus[g].index) + "</text>";
        if (found != ranks.end())
          out += "<text class=\"muted\"" + attr("x", b.cx()) + attr("y", b.y + 26) + " text-anchor=\"middle\">" +
                 ranksText(found->second) + "</text>";
        out += "</g>\n";
      }
      for (size_t n = 0; n < rh.nics.size(); ++n) {
        const Box& b = hl.nics[n];
        const RenderNic& nic = rh.nics[n];
        out += "<g class=\"nic\"" + attr("data-host", rh.name) + attr("data-nic", nic.hca) +
               attr("data-rail", nic.rail) + "><title>" +
               style::xmlEscape(rh.name + " " + nic.hca + " (" + style::railLabel(nic.rail, nic.plane) + ")") +
               "</title><rect" + attr("x", b.x) + attr("y", b.y) + attr("width", b.w) + attr("height", b.h) +
               attr("rx", 3) + attr("stroke", style::railColour(nic.rail)) + "/>";
        out += "<text" + attr("x", b.cx()) + attr("y", b.y + 16) + " text-anchor=\"middle\">" +
               style::xmlEscape(nic.hca.empty() ? "?" : nic.hca) + "</text></g>\n";
      }
    }
  out += "</g>\n";
}

void DetailWriter::switches() {
  out += "<g id=\"switches\">\n";
  for (size_t i = 0; i < graph.switches.size(); ++i) {
    const RailSwitch& sw = graph.switches[i];
    const Box& b = layout.switches[i];
    out += "<g class=\"switch\"" + attr("data-rail", sw.rail) + attr("data-plane", sw.plane) + "><rect" +
           attr("x", b.x) + attr("y", b.y) + attr("width", b.w) + attr("height", b.h) + attr("rx", 5) +
           attr("fill", style::railColour(sw.rail)) + "/>";
    out += "<text" + attr("x", b.cx()) + attr("y", b.y + 20) + " text-anchor=\"middle\">" +
           style::xmlEscape(style::railLabel(sw.rail, sw.plane) + " switch") + "</text></g>\n";
  }
  out += "</g>\n";
}

}  // namespace

std::string renderSvg(const PathGraph& graph) {
  const DetailLayout layout = layoutDetail(graph);
  DetailWriter w{graph, layout, {}};
  const std::string heading = summaryLine(graph.job, graph.counts);
  w.out = svg::open(layout.width, layout.height, "detail", graph.job, heading);
  w.out += svg::legend(graph.switches, false);
  w.frames();
  if (layout.spine) {
    const Box& b = layout.spineBar;
    w.out += "<g id=\"spine\"><rect class=\"spine\"" + attr("x", b.x) + attr("y", b.y) + attr("width", b.w) +
             attr("height", b.h) + attr("rx", 4) + "/><text class=\"muted\"" + attr("x", b.x + 8) +
             attr("y", b.bottom() + 14) + ">spine: traffic between rails</text></g>\n";
  }
  w.bindings();
  w.out += "<g id=\"links\">\n";
  for (const RenderLink& l : graph.links) w.link(l);
  w.out += "</g>\n";
  w.devices();
  w.switches();
  return w.out + "</svg>\n";
}

}  // namespace railtune::analysis::paths
