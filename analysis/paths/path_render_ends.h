// Which end of a cross-rail connection is misbound, shared by the SVG and DOT writers (path_render_svg.cc,
// path_render_dot.cc) for the link's details. A violating connection is drawn red from end to end, its send
// side and its receive side alike: an operator following the red path from either GPU reaches the other,
// and a receive-side violation (a correctly wired sender to a misbound receiver) is as visible as a
// send-side one. The details name the misbound end.
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

}  // namespace railtune::analysis::paths
