// Which part of a violation is drawn red, shared by the SVG and DOT writers (path_render_svg.cc,
// path_render_dot.cc). A cross-rail connection of a misbound NIC is red from the misbound end up to the
// correctly wired peer's rail switch; the peer's own NIC and GPU keep their rail's colour, since nothing
// is wrong there. A link is red as a whole when its fault is not at one end: a digest mismatch, two
// correctly bound ends on different rails, or both ends (or neither known to be) misbound.
#pragma once

#include <cstddef>

#include "analysis/paths/path_render.h"

namespace railtune::analysis::paths {

// An end is misbound when its GPU is known, the rail map binds that GPU to NICs, and none of them is on
// the rail of the NIC the connection used.
inline bool misboundEnd(const PathGraph& graph, const LinkEnd& e) {
  if (e.rack < 0 || e.host < 0 || e.gpu < 0 || e.nic < 0) return false;
  const RenderHost& host = graph.racks[static_cast<size_t>(e.rack)].hosts[static_cast<size_t>(e.host)];
  const std::vector<int>& intended = host.gpus[static_cast<size_t>(e.gpu)].intendedNics;
  if (intended.empty()) return false;
  const int rail = host.nics[static_cast<size_t>(e.nic)].rail;
  for (const int n : intended)
    if (host.nics[static_cast<size_t>(n)].rail == rail) return false;
  return true;
}

enum class RedPart {
  None,     // not a violation
  All,      // the whole link
  FromEnd,  // from the `from` end up to the `to` end's rail switch; the `to` end keeps its rail's colour
  ToEnd,    // from the `from` end's rail switch to the `to` end; the `from` end keeps its rail's colour
};

inline RedPart redPart(const PathGraph& graph, const RenderLink& l) {
  if (!l.violation()) return RedPart::None;
  if (l.digestMismatch) return RedPart::All;
  const bool from = misboundEnd(graph, l.from), to = misboundEnd(graph, l.to);
  if (from == to) return RedPart::All;
  return from ? RedPart::FromEnd : RedPart::ToEnd;
}

}  // namespace railtune::analysis::paths
