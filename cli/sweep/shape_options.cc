// The NVLink-domain options of `railtune sweep` (shape_options.h).
#include "cli/sweep/shape_options.h"

#include <algorithm>

#include "fabric/yaml_reader.h"
#include "formats/rail_map_choice.h"

namespace railtune::cli {
namespace {

// "InfiniBand" / "Ethernet" in NCCL's words (NET/IB's "/IB", "/RoCE").
std::string ncclLinkLayer(const std::string& fabricWord) {
  return fabricWord == "Ethernet" ? "RoCE" : fabricWord == "InfiniBand" ? "IB" : "";
}

// The slowest port, in Gb/s (0 when no port says).
int slowestGbps(int currentGbps, int speedMbps) {
  if (speedMbps <= 0) return currentGbps;
  const int gbps = speedMbps / 1000;
  return currentGbps == 0 ? gbps : std::min(currentGbps, gbps);
}

sweep::DomainFacts railMapFacts(const formats::RailMap& map) {
  sweep::DomainFacts out;
  out.from = sweep::ShapeSource::RailMap;
  out.fabric.name = map.cluster;
  if (map.network.linkLayer) out.fabric.linkLayer = *map.network.linkLayer == qp::LinkLayer::Ethernet ? "RoCE" : "IB";
  for (const formats::RailMapHost& host : map.hosts) {
    out.domainOfHost[host.name] = host.domain;
    for (const formats::RailMapGpu& gpu : host.gpus) {
      out.fabric.nicsPerGpu = std::max(out.fabric.nicsPerGpu, static_cast<int>(gpu.nics.size()));
      for (const formats::RailMapNic& nic : gpu.nics)
        out.fabric.nicGbps = slowestGbps(out.fabric.nicGbps, nic.speedMbps);
    }
  }
  return out;
}

sweep::DomainFacts fabricFacts(const fabric::Fabric& cluster) {
  sweep::DomainFacts out;
  out.from = sweep::ShapeSource::Fabric;
  out.fabric.name = cluster.name;
  out.fabric.linkLayer = ncclLinkLayer(cluster.network.linkLayer);
  for (const fabric::Host& host : cluster.hosts) {
    out.domainOfHost[host.name] = host.domain;
    if (!host.gpus.empty())
      out.fabric.nicsPerGpu = std::max(out.fabric.nicsPerGpu, static_cast<int>(host.nics.size() / host.gpus.size()));
    for (const fabric::Nic& nic : host.nics) out.fabric.nicGbps = slowestGbps(out.fabric.nicGbps, nic.speedMbps);
  }
  return out;
}

}  // namespace

void ShapeOptions::add(CLI::App& app) {
  app.add_option("--rail-map", railMap,
                 "rail map: each host's NVLink domain and the network (default: RAILTUNE_RAIL_MAP)");
  app.add_option("--fabric", fabric, "cluster description (railtune topo): each host's NVLink domain and the network");
  app.add_option("--nvl-domains", nvlDomains,
                 "the hosts form N NVLink domains, in the order the output lists them (no rail map or fabric)")
      ->check(CLI::PositiveNumber);
  app.add_option("--mnnvl", mnnvl,
                 "on|off: NCCL counted an NVLink domain of several hosts as one node (default: on "
                 "when a domain holds several hosts)")
      ->check(CLI::IsMember({"on", "off"}));
}

sweep::DomainFacts clusterFacts(const std::string& path, bool fromFabric) {
  if (fromFabric) return fabricFacts(fabric::loadFabricFile(path));
  return railMapFacts(formats::readRailMapFile(path));
}

sweep::DomainFacts ShapeOptions::facts() const {
  sweep::DomainFacts out;
  if (!fabric.empty()) {
    out = clusterFacts(fabric, true);
  } else if (nvlDomains == 0 || !railMap.empty()) {  // --nvl-domains alone: RAILTUNE_RAIL_MAP is not wanted
    if (const std::optional<formats::RailMap> map = formats::readChosenRailMap(railMap)) out = railMapFacts(*map);
  }
  out.nvlDomains = nvlDomains;
  out.mnnvl = mnnvl;
  if (out.domainOfHost.empty() && (nvlDomains > 0 || !mnnvl.empty())) out.from = sweep::ShapeSource::Option;
  return out;
}

}  // namespace railtune::cli
