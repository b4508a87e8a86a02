// Where the renderers put things (SVG user units = CSS pixels). Two layouts:
// - detail: racks side by side, each holding its trays side by side; in a tray the GPUs above the NICs;
//   the rail switches in one row below all racks, and a spine bar under them when a connection joins two
//   switches (a cross-rail path goes NIC → its rail's switch → spine → the other rail's switch → NIC);
// - racks (large jobs): rail switches in a column on the left, racks in a column on the right.
// Both leave a band at the top for the heading and the legend.
#pragma once

#include <vector>

#include "analysis/paths/path_render.h"

namespace railtune::analysis::paths {

struct Box {
  int x = 0, y = 0, w = 0, h = 0;
  int cx() const { return x + w / 2; }
  int cy() const { return y + h / 2; }
  int right() const { return x + w; }
  int bottom() const { return y + h; }
};

inline constexpr int kMargin = 24;
inline constexpr int kLegendTop = 46;    // below the heading line
inline constexpr int kContentTop = 130;  // below the legend (two rows)
inline constexpr int kMinWidth = 1000;   // the legend's width

struct HostLayout {
  Box tray;
  std::vector<Box> gpus;  // RenderHost::gpus order
  std::vector<Box> nics;  // RenderHost::nics order
};

struct DetailLayout {
  int width = 0, height = 0;
  std::vector<Box> racks;
  std::vector<std::vector<HostLayout>> hosts;  // [rack][host]
  std::vector<Box> switches;
  bool spine = false;  // some link joins two different switches
  Box spineBar;
};

DetailLayout layoutDetail(const PathGraph& graph);

struct RackLayout {
  int width = 0, height = 0;
  std::vector<Box> racks;
  std::vector<Box> switches;
};

RackLayout layoutRacks(const RackGraph& graph);

}  // namespace railtune::analysis::paths
