// buildPathGraph: the job's connections joined with the rail map into racks, hosts, GPUs, NICs, rail
// switches and one link per connection. The rail map says where each host sits and how its GPUs are
// meant to be bound; the records add what the map does not know (hosts, NICs, GPUs seen only in logs).
#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "analysis/paths/path_render.h"
#include "analysis/paths/path_render_links.h"
#include "common/natural_order.h"

namespace railtune::analysis::paths {
namespace {

constexpr const char* kUnknownRack = "unknown rack";

struct HostDraft {
  std::string rack;
  bool unknownRack = true;
  bool logged = false;
  std::map<int, std::set<std::string>> gpus;           // GPU index -> HCAs the rail map binds it to
  std::map<std::string, RenderNic, NaturalLess> nics;  // by HCA
};

class GraphBuilder {
 public:
  GraphBuilder(const JobPaths& job, const formats::RailMap* railMap) : job_(job), railMap_(railMap) {}
  PathGraph build(const CheckReport& report);

 private:
  HostDraft& draft(const std::string& host);
  void noteEnd(const ConnectionEnd& end, bool local);
  bool anyPlane() const;
  void placeHosts();
  void collectSwitches();
  LinkEnd endOf(const std::string& host, const std::string& hca, int gpu, int rank) const;
  void addLinks(const CheckReport& report);

  const JobPaths& job_;
  const formats::RailMap* railMap_;
  bool planes_ = false;
  std::unordered_map<std::string, HostDraft> drafts_;
  std::unordered_map<std::string, std::pair<int, int>> hostIndex_;  // name -> (rack, host)
  std::map<std::pair<int, int>, int> switchIndex_;                  // (rail, plane) -> index
  PathGraph graph_;
};

HostDraft& GraphBuilder::draft(const std::string& host) {
  auto [it, inserted] = drafts_.try_emplace(host);
  if (!inserted) return it->second;
  HostDraft& d = it->second;
  const formats::RailMapHost* mapped = railMap_ ? railMap_->findHost(host) : nullptr;
  if (mapped == nullptr) return d;
  d.rack = mapped->domain;
  d.unknownRack = false;
  for (const formats::RailMapGpu& gpu : mapped->gpus) {
    auto& bound = d.gpus[gpu.index];
    for (const formats::RailMapNic& nic : gpu.nics) {
      bound.insert(nic.hca);
      d.nics.try_emplace(nic.hca, RenderNic{nic.hca, nic.rail, nic.plane});
    }
  }
  return d;
}

void GraphBuilder::noteEnd(const ConnectionEnd& end, bool local) {
  HostDraft& d = draft(end.host);
  if (local) d.logged = true;
  if (end.gpu >= 0) d.gpus.try_emplace(end.gpu);
  auto [nic, inserted] = d.nics.try_emplace(end.hca, RenderNic{end.hca, end.rail, end.plane});
  // The map knows a NIC's cabling; a record fills in only what the map left unknown.
  if (!inserted && nic->second.rail < 0) nic->second.rail = end.rail;
  if (!inserted && nic->second.plane < 0) nic->second.plane = end.plane;
}

bool nicOrder(const RenderNic& a, const RenderNic& b) {
  // Unknown rails (-1) after the known ones; HCAs in natural order (mlx5_2 before mlx5_11).
  auto key = [](const RenderNic& n) { return std::make_tuple(n.rail < 0, n.rail, n.plane); };
  if (key(a) != key(b)) return key(a) < key(b);
  return naturalLess(a.hca, b.hca);
}

// Racks by name in natural order (rack2 before rack10), the unknown rack last.
struct RackKeyLess {
  bool operator()(const std::pair<bool, std::string>& a, const std::pair<bool, std::string>& b) const {
    return a.first != b.first ? a.first < b.first : naturalLess(a.second, b.second);
  }
};

RenderHost hostFrom(const std::string& name, const HostDraft& d) {
  RenderHost host{name, d.logged, {}, {}};
  for (const auto& [hca, nic] : d.nics) host.nics.push_back(nic);
  std::sort(host.nics.begin(), host.nics.end(), nicOrder);
  for (const auto& [index, hcas] : d.gpus) {
    RenderGpu gpu{index, {}};
    for (size_t n = 0; n < host.nics.size(); ++n)
      if (hcas.count(host.nics[n].hca) != 0) gpu.intendedNics.push_back(static_cast<int>(n));
    host.gpus.push_back(std::move(gpu));
  }
  return host;
}

bool GraphBuilder::anyPlane() const {
  for (const auto& [name, d] : drafts_)
    for (const auto& [hca, nic] : d.nics)
      if (nic.plane >= 0) return true;
  return false;
}

void GraphBuilder::placeHosts() {
  std::map<std::pair<bool, std::string>, std::map<std::string, const HostDraft*, NaturalLess>, RackKeyLess> racks;
  for (const auto& [name, d] : drafts_) racks[{d.unknownRack, d.unknownRack ? kUnknownRack : d.rack}][name] = &d;
  for (const auto& [key, hosts] : racks) {
    RenderRack rack{key.second, key.first, {}};
    for (const auto& [name, d] : hosts) {
      hostIndex_[name] = {static_cast<int>(graph_.racks.size()), static_cast<int>(rack.hosts.size())};
      rack.hosts.push_back(hostFrom(name, *d));
    }
    graph_.racks.push_back(std::move(rack));
  }
}

void GraphBuilder::collectSwitches() {
  std::set<std::pair<int, int>> seen;
  for (const RenderRack& rack : graph_.racks)
    for (const RenderHost& host : rack.hosts)
      for (const RenderNic& nic : host.nics) seen.insert({nic.rail, planes_ ? nic.plane : -1});
  for (const auto& [rail, plane] : seen) {
    switchIndex_[{rail, plane}] = static_cast<int>(graph_.switches.size());
    graph_.switches.push_back(RailSwitch{rail, plane});
  }
}

LinkEnd GraphBuilder::endOf(const std::string& hostName, const std::string& hca, int gpu, int rank) const {
  const auto [rackIndex, hostIdx] = hostIndex_.at(hostName);
  const RenderHost& host = graph_.racks[static_cast<size_t>(rackIndex)].hosts[static_cast<size_t>(hostIdx)];
  LinkEnd end{rackIndex, hostIdx, -1, -1, rank, -1};
  for (size_t g = 0; g < host.gpus.size(); ++g)
    if (host.gpus[g].index == gpu) end.gpu = static_cast<int>(g);
  for (size_t n = 0; n < host.nics.size(); ++n) {
    if (host.nics[n].hca != hca) continue;
    end.nic = static_cast<int>(n);
    end.switchIndex = switchIndex_.at({host.nics[n].rail, planes_ ? host.nics[n].plane : -1});
  }
  return end;
}

void GraphBuilder::addLinks(const CheckReport& report) {
  graph_.links = buildLinks(job_, report, [this](const std::string& host, const std::string& hca, int gpu, int rank) {
    return endOf(host, hca, gpu, rank);
  });
}

}  // namespace

int PathGraph::hostCount() const {
  int count = 0;
  for (const RenderRack& rack : racks) count += static_cast<int>(rack.hosts.size());
  return count;
}

PathGraph buildPathGraph(const JobPaths& job, const CheckReport& report, const formats::RailMap* railMap) {
  return GraphBuilder(job, railMap).build(report);
}

PathGraph GraphBuilder::build(const CheckReport& report) {
  graph_.job = job_.job;
  graph_.violationFindings = report.violations();
  graph_.counts = renderCounts(report);
  for (const std::string& host : job_.hosts) draft(host).logged = true;
  for (const Connection& c : job_.connections) {
    noteEnd(c.local, true);
    noteEnd(c.remote, false);
  }
  // One switch per plane when the map says the fabric has planes, or (without a map) when a NIC names one.
  planes_ = railMap_ ? railMap_->planes > 1 : anyPlane();
  placeHosts();
  collectSwitches();
  addLinks(report);
  return std::move(graph_);
}

}  // namespace railtune::analysis::paths
