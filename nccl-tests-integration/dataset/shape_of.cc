// A run's communicator shape (shape_of.h).
#include "nccl-tests-integration/dataset/shape_of.h"

#include <algorithm>
#include <set>
#include <utility>

namespace railtune::sweep {
namespace {

// Ranks per domain: the domains' common size, or 0 when they differ or do not divide the ranks.
void setRanksPerDomain(Shape& shape, const std::map<std::string, int>& ranksOfDomain) {
  shape.ranksPerDomain = 0;
  if (!ranksOfDomain.empty()) {
    const int first = ranksOfDomain.begin()->second;
    const bool even =
        std::all_of(ranksOfDomain.begin(), ranksOfDomain.end(), [&](const auto& d) { return d.second == first; });
    shape.ranksPerDomain = even ? first : 0;
  } else if (shape.nvlDomains > 0 && shape.ranks % shape.nvlDomains == 0 &&
             (shape.hosts == 0 || shape.hosts % shape.nvlDomains == 0)) {
    shape.ranksPerDomain = shape.ranks / shape.nvlDomains;
  }
}

// One note for the hosts a rail map or fabric does not name: a map of another cluster misses every host of the
// run, and a line per host would bury the one cause.
std::string unknownHostsNote(const std::vector<std::string>& unknown, size_t hosts) {
  if (unknown.size() == 1)
    return "host " + unknown[0] + " is not in the rail map or fabric; it counts as its own NVLink domain";
  std::string named;
  for (size_t i = 0; i < unknown.size() && i < 3; ++i) named += (i ? ", " : "") + unknown[i];
  if (unknown.size() > 3) named += " and " + std::to_string(unknown.size() - 3) + " more";
  return std::to_string(unknown.size()) + " of the run's " + std::to_string(hosts) +
         " hosts are not in the rail map or fabric (" + named + "); each counts as its own NVLink domain";
}

// Domains from a rail map or fabric: returns whether a domain holds several hosts.
bool domainsOfHosts(const HostLayout& layout, const DomainFacts& known, Shape& shape, std::vector<std::string>& notes) {
  std::map<std::string, int> ranksOfDomain, hostsOfDomain;
  std::vector<std::string> unknown;
  for (const auto& [host, ranks] : layout.ranksOfHost) {
    const auto it = known.domainOfHost.find(host);
    const std::string domain = it == known.domainOfHost.end() ? "host:" + host : it->second;
    if (it == known.domainOfHost.end()) unknown.push_back(host);
    ranksOfDomain[domain] += ranks;
    ++hostsOfDomain[domain];
  }
  if (!unknown.empty()) notes.push_back(unknownHostsNote(unknown, layout.ranksOfHost.size()));
  shape.nvlDomains = static_cast<int>(ranksOfDomain.size());
  setRanksPerDomain(shape, ranksOfDomain);
  return std::any_of(hostsOfDomain.begin(), hostsOfDomain.end(), [](const auto& d) { return d.second > 1; });
}

// Nodes and domains from what the caller knows, before NCCL's word.
void countsFromCaller(const HostLayout& layout, const DomainFacts& known, Shape& shape,
                      std::vector<std::string>& notes) {
  bool severalHostsInADomain = false;
  if (!known.domainOfHost.empty() && layout.complete) {
    severalHostsInADomain = domainsOfHosts(layout, known, shape, notes);
  } else {
    if (known.nvlDomains > 0) {
      shape.nvlDomains = known.nvlDomains;
      severalHostsInADomain = shape.hosts > known.nvlDomains;
      if (shape.hosts > 0 && shape.hosts % known.nvlDomains != 0)
        notes.push_back(std::to_string(shape.hosts) + " hosts do not split evenly into " +
                        std::to_string(known.nvlDomains) + " NVLink domains");
    } else {
      shape.nvlDomains = shape.hosts;  // every host its own NVLink domain (no MNNVL)
    }
    setRanksPerDomain(shape, {});
  }
  const bool told = (!known.domainOfHost.empty() && layout.complete) || known.nvlDomains > 0 || !known.mnnvl.empty();
  shape.source = told ? (known.from == ShapeSource::Assumed ? ShapeSource::Option : known.from) : ShapeSource::Assumed;
  const bool mnnvl = known.mnnvl == "on" || (known.mnnvl.empty() && severalHostsInADomain);
  shape.nodes = mnnvl ? shape.nvlDomains : shape.hosts;
}

// NCCL's own count: taken where nothing better was told, and over the caller's where they disagree.
void countsFromNccl(const NcclFacts& nccl, Shape& shape, std::vector<std::string>& notes) {
  if (nccl.nRanks <= 0) return;
  if (shape.ranks > 0 && nccl.nRanks != shape.ranks) {
    notes.push_back("NCCL's \"comm ... nRanks " + std::to_string(nccl.nRanks) +
                    "\" line is of another communicator than the device lines' " + std::to_string(shape.ranks) +
                    " ranks: not used");
    return;
  }
  if (nccl.disagree) notes.push_back("NCCL's \"comm ...\" lines disagree on nNodes or MNNVL: the first is used");
  const bool assumed = shape.source == ShapeSource::Assumed;
  if (!assumed && nccl.nNodes == shape.nodes) return;
  if (!assumed)
    notes.push_back("NCCL says nNodes " + std::to_string(nccl.nNodes) + " (MNNVL " + std::to_string(nccl.mnnvl) +
                    ") where the " + shapeSourceName(shape.source) + " gives " + std::to_string(shape.nodes) +
                    " nodes: NCCL's count is kept");
  shape.nodes = nccl.nNodes;
  if (shape.ranks <= 0) shape.ranks = nccl.nRanks;
  // With MNNVL NCCL counts an NVLink domain (clique) of several hosts as one node.
  if (nccl.mnnvl == 1 || shape.hosts <= 0 || shape.nvlDomains <= 0) {
    shape.nvlDomains = nccl.nNodes;
    setRanksPerDomain(shape, {});
  }
  shape.source = ShapeSource::NcclLog;
}

// The network: NCCL's transport and link layer over the rail map's or fabric's; none on one node.
FabricId fabricOf(const FabricId& told, const NcclFacts& nccl, int nodes, std::vector<std::string>& notes) {
  FabricId fabric = told;
  fabric.transport = nccl.network;
  const bool ibDevicesUsed = nccl.network.empty() || nccl.network == "IB";
  if (ibDevicesUsed && !nccl.linkLayer.empty()) {
    if (!told.linkLayer.empty() && told.linkLayer != nccl.linkLayer && nodes > 1)
      notes.push_back("NCCL's NET/IB devices are " + nccl.linkLayer + " where the rail map or fabric says " +
                      told.linkLayer + ": NCCL's word is kept");
    fabric.linkLayer = nccl.linkLayer;
  }
  if (nodes == 1) {  // one node: NVLink only, whatever network the hosts have
    fabric = FabricId{};
    fabric.transport = "nvlink";
    fabric.name = told.name;
  }
  return fabric;
}

bool mayBeNvl72Tray(const std::string& gpu) {
  // GB200 and GB300 trays (4 GPUs); a driver that does not know the part yet names it "Graphics Device".
  return gpu.find("GB2") != std::string::npos || gpu.find("GB3") != std::string::npos ||
         gpu.find("Graphics Device") != std::string::npos;
}

}  // namespace

HostLayout layoutOf(const TestRun& run) {
  HostLayout layout;
  std::set<int> ranks;
  int maxRank = -1, maxDevice = -1;
  for (const DeviceLine& d : run.devices) {
    ranks.insert(d.rank);
    maxRank = std::max(maxRank, d.rank);
    maxDevice = std::max(maxDevice, d.device);
    if (layout.ranksOfHost[d.host]++ == 0) layout.hostOrder.push_back(d.host);
  }
  layout.ranks = maxRank + 1;
  layout.complete = !run.devices.empty() && static_cast<int>(ranks.size()) == layout.ranks;
  if (layout.complete) {
    layout.hosts = static_cast<int>(layout.hostOrder.size());
  } else if (maxDevice >= 0 && layout.ranks % (maxDevice + 1) == 0) {
    // A fragment (only the last device lines kept): as many ranks on every host as the highest device index says.
    layout.hosts = layout.ranks / (maxDevice + 1);
  }
  return layout;
}

Shape shapeOf(const HostLayout& layout, const DomainFacts& known, const TestRun& run, std::vector<std::string>& notes) {
  Shape shape;
  shape.ranks = layout.ranks;
  shape.hosts = layout.hosts;
  shape.gpu = run.devices.empty() ? "" : run.devices.back().gpu;
  countsFromCaller(layout, known, shape, notes);
  const NcclFacts& nccl = run.nccl.any() ? run.nccl : known.probe;
  countsFromNccl(nccl, shape, notes);
  shape.fabric = fabricOf(known.fabric, nccl, shape.nodes, notes);
  if (std::string warning = unsureDomainsWarning(shape); !warning.empty()) notes.push_back(std::move(warning));
  return shape;
}

std::string unsureDomainsWarning(const Shape& s) {
  if (s.source != ShapeSource::Assumed || s.hosts <= 1 || s.nvlDomains != s.hosts || s.ranks <= 0 ||
      s.ranks % s.hosts != 0 || s.ranks / s.hosts > 4 || !mayBeNvl72Tray(s.gpu))
    return "";
  const std::string hosts = std::to_string(s.hosts), perHost = std::to_string(s.ranks / s.hosts);
  return hosts + " hosts of " + perHost + " " + s.gpu + " GPUs counted as " + std::to_string(s.nodes) + " nodes, " +
         hosts + " NVLink domains of " + perHost +
         " (no MNNVL information): if the trays share NVL72 racks with MNNVL (NCCL's default there), parse with "
         "--nvl-domains N, --rail-map FILE or --fabric FILE, or rerun with NCCL_DEBUG=INFO so that NCCL's \"MNNVL "
         "1\" line says so";
}

}  // namespace railtune::sweep
