// aggregateByRack: the large-job view. Each connection adds its bytes to the (rack, rail switch) link of
// each of its ends, once per distinct pair, so a link carries all the traffic its rack sent or received
// on that rail; a violation is counted on both ends' racks, since either may hold the misbound NIC.
#include <algorithm>
#include <map>
#include <set>

#include "analysis/paths/path_render.h"

namespace railtune::analysis::paths {
namespace {

void summariseRacks(const PathGraph& graph, RackGraph& out) {
  for (const RenderRack& rack : graph.racks) {
    RackSummary summary;
    summary.name = rack.name;
    summary.hosts = static_cast<int>(rack.hosts.size());
    for (const RenderHost& host : rack.hosts) summary.gpus += static_cast<int>(host.gpus.size());
    out.racks.push_back(std::move(summary));
    out.hosts += static_cast<int>(rack.hosts.size());
  }
}

}  // namespace

RackGraph aggregateByRack(const PathGraph& graph) {
  RackGraph out;
  out.job = graph.job;
  out.switches = graph.switches;
  out.violationFindings = graph.violationFindings;
  out.counts = graph.counts;
  out.connections = static_cast<int>(graph.links.size());
  summariseRacks(graph, out);
  std::map<std::pair<int, int>, RackLink> links;  // (rack, switch): rack, then switch order
  for (const RenderLink& link : graph.links) {
    // A connection inside one rack on one rail counts once for that pair.
    std::set<std::pair<int, int>> pairs{{link.from.rack, link.from.switchIndex}, {link.to.rack, link.to.switchIndex}};
    for (const auto& key : pairs) {
      RackLink& l = links[key];
      l.rack = key.first;
      l.switchIndex = key.second;
      l.bytes += link.bytes;
      ++l.connections;
      if (link.violation()) ++l.violations;
    }
    for (const int rack : std::set<int>{link.from.rack, link.to.rack}) {
      RackSummary& summary = out.racks[static_cast<size_t>(rack)];
      ++summary.connections;
      summary.bytes += link.bytes;
      if (link.violation()) ++summary.violations;
    }
  }
  for (auto& [key, link] : links) {
    const RailSwitch& sw = out.switches[static_cast<size_t>(link.switchIndex)];
    link.rail = sw.rail;
    link.plane = sw.plane;
    if (link.violations > 0) ++out.violationLinks;
    out.links.push_back(link);
  }
  std::stable_partition(out.links.begin(), out.links.end(), [](const RackLink& l) { return l.violations == 0; });
  return out;
}

}  // namespace railtune::analysis::paths
