#include "analysis/paths/path_render_layout.h"

#include <algorithm>

namespace railtune::analysis::paths {
namespace {

// Detail view sizes. A slot is the horizontal room of one GPU or NIC inside a tray: wide enough for a
// label like "mlx5_10" or "rank 143" at 11 px.
constexpr int kSlot = 68;
constexpr int kTrayPad = 8;
constexpr int kTrayGap = 12;
constexpr int kTrayHeight = 150;
constexpr int kGpuTop = 34, kGpuW = 58, kGpuH = 32;  // tray-relative
constexpr int kNicTop = 106, kNicW = 60, kNicH = 24;
constexpr int kRackPad = 12, kRackLabel = 24, kRackGap = 28;
constexpr int kSwitchGapAbove = 130;  // room for the links to fan out between trays and switches
constexpr int kSwitchW = 120, kSwitchH = 32;
constexpr int kSpineGap = 46, kSpineH = 18;

// Racks view sizes.
constexpr int kRackBoxW = 420, kRackBoxH = 34, kRackBoxGap = 10;
constexpr int kFanWidth = 420;  // between the switch column and the rack column

// `count` boxes of width `w`, centred in equal slots across [left, left + span).
std::vector<Box> spread(int count, int left, int span, int y, int w, int h) {
  std::vector<Box> boxes;
  for (int i = 0; i < count; ++i) {
    const int centre = left + span * (2 * i + 1) / (2 * std::max(count, 1));
    boxes.push_back(Box{centre - w / 2, y, w, h});
  }
  return boxes;
}

HostLayout layoutHost(const RenderHost& host, int x, int y) {
  const int slots = std::max({static_cast<int>(host.gpus.size()), static_cast<int>(host.nics.size()), 2});
  HostLayout layout;
  layout.tray = Box{x, y, slots * kSlot + 2 * kTrayPad, kTrayHeight};
  const int inner = slots * kSlot;
  layout.gpus = spread(static_cast<int>(host.gpus.size()), x + kTrayPad, inner, y + kGpuTop, kGpuW, kGpuH);
  layout.nics = spread(static_cast<int>(host.nics.size()), x + kTrayPad, inner, y + kNicTop, kNicW, kNicH);
  return layout;
}

// Lays out one rack at (x, y) and returns its frame.
Box layoutRack(const RenderRack& rack, int x, int y, std::vector<HostLayout>& hosts) {
  int cursor = x + kRackPad;
  for (const RenderHost& host : rack.hosts) {
    hosts.push_back(layoutHost(host, cursor, y + kRackLabel));
    cursor = hosts.back().tray.right() + kTrayGap;
  }
  const int width = std::max(cursor - kTrayGap + kRackPad - x, 2 * kSlot);
  return Box{x, y, width, kRackLabel + kTrayHeight + kRackPad};
}

bool anyCrossSwitch(const PathGraph& graph) {
  return std::any_of(graph.links.begin(), graph.links.end(),
                     [](const RenderLink& l) { return l.from.switchIndex != l.to.switchIndex; });
}

}  // namespace

DetailLayout layoutDetail(const PathGraph& graph) {
  DetailLayout layout;
  int cursor = kMargin;
  int racksBottom = kContentTop;
  for (const RenderRack& rack : graph.racks) {
    layout.hosts.emplace_back();
    layout.racks.push_back(layoutRack(rack, cursor, kContentTop, layout.hosts.back()));
    cursor = layout.racks.back().right() + kRackGap;
    racksBottom = std::max(racksBottom, layout.racks.back().bottom());
  }
  // The switches spread under the racks (not under the legend, which may be wider than a small job).
  const int switchCount = static_cast<int>(graph.switches.size());
  const int span = std::max(cursor - kRackGap - kMargin, switchCount * (kSwitchW + 24));
  layout.width = std::max(span + 2 * kMargin, kMinWidth);
  layout.switches = spread(switchCount, kMargin, span, racksBottom + kSwitchGapAbove, kSwitchW, kSwitchH);
  int bottom = racksBottom + kSwitchGapAbove + kSwitchH;
  layout.spine = anyCrossSwitch(graph);
  if (layout.spine) {
    const int left = layout.switches.front().x, right = layout.switches.back().right();
    layout.spineBar = Box{left, bottom + kSpineGap, right - left, kSpineH};
    bottom = layout.spineBar.bottom();
  }
  layout.height = bottom + kMargin + 8;
  return layout;
}

RackLayout layoutRacks(const RackGraph& graph) {
  RackLayout layout;
  const int rackX = kMargin + kSwitchW + kFanWidth;
  int y = kContentTop;
  for (size_t i = 0; i < graph.racks.size(); ++i) {
    layout.racks.push_back(Box{rackX, y, kRackBoxW, kRackBoxH});
    y += kRackBoxH + kRackBoxGap;
  }
  const int columnHeight = std::max(y - kRackBoxGap - kContentTop, kSwitchH);
  const int switchCount = static_cast<int>(graph.switches.size());
  for (int i = 0; i < switchCount; ++i) {
    const int centre = kContentTop + columnHeight * (2 * i + 1) / (2 * switchCount);
    layout.switches.push_back(Box{kMargin, centre - kSwitchH / 2, kSwitchW, kSwitchH});
  }
  layout.width = std::max(rackX + kRackBoxW + 48 + kMargin, kMinWidth);  // 48: the violation badge
  layout.height = kContentTop + columnHeight + 2 * kMargin;
  return layout;
}

}  // namespace railtune::analysis::paths
