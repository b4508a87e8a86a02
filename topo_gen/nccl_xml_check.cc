#include "topo_gen/nccl_xml_check.h"

#include <stdexcept>
#include <vector>

#include "topo_gen/nccl_xml.h"

namespace railtune::topo {
namespace {

const fabric::RailMapNic* findMapNic(const fabric::RailMapHost& host, const std::string& hca, int port) {
  for (const fabric::RailMapGpu& gpu : host.gpus)
    for (const fabric::RailMapNic& nic : gpu.nics)
      if (nic.hca == hca && nic.port == port) return &nic;
  return nullptr;
}

const fabric::Nic* findTopoNic(const fabric::Host& host, const std::string& hca, int port) {
  for (const fabric::Nic& nic : host.nics)
    if (nic.hca == hca && nic.port == port) return &nic;
  return nullptr;
}

std::string nicName(const std::string& hca, int port) {
  return hca + " port " + std::to_string(port);
}

}  // namespace

void checkNcclXmlLimits(const fabric::Fabric& fabric, fabric::Diagnostics& out) {
  for (const fabric::Host& host : fabric.hosts) {
    try {
      for (const std::string& v : ncclLimitViolations(buildNcclXml(host)))
        out.error(host.loc, "host " + host.name + ": NCCL topology XML: " + v);
    } catch (const std::invalid_argument& e) {
      out.error(host.loc, std::string("NCCL topology XML: ") + e.what());
    }
  }
}

void checkTopoAgainstRailMap(const fabric::Host& topoHost, const fabric::RailMap& railMap, const std::string& hostName,
                             const fabric::SourceLoc& topoFile, fabric::Diagnostics& diagnostics) {
  const std::string name = hostName.empty() ? topoHost.name : hostName;
  const fabric::RailMapHost* mapHost = railMap.findHost(name);
  if (mapHost == nullptr) return diagnostics.error(topoFile, "host " + name + ": not in the rail map");
  std::vector<std::string> out;
  const std::string prefix = "host " + name + ": ";
  for (const fabric::Nic& nic : topoHost.nics) {
    if (nic.hca.empty()) continue;  // a partial file's PCI function without <net>
    const fabric::RailMapNic* m = findMapNic(*mapHost, nic.hca, nic.port);
    if (m == nullptr) {
      out.push_back(prefix + "NIC " + nicName(nic.hca, nic.port) + " is in the topology file but not in the rail map");
      continue;
    }
    if (m->rail != nic.rail)
      out.push_back(prefix + "NIC " + nicName(nic.hca, nic.port) + ": topology file says rail " +
                    std::to_string(nic.rail) + ", rail map says rail " + std::to_string(m->rail));
    if (m->plane != nic.plane)
      out.push_back(prefix + "NIC " + nicName(nic.hca, nic.port) + ": topology file says plane " +
                    std::to_string(nic.plane) + ", rail map says plane " + std::to_string(m->plane));
  }
  for (const fabric::RailMapGpu& gpu : mapHost->gpus)
    for (const fabric::RailMapNic& m : gpu.nics)
      if (findTopoNic(topoHost, m.hca, m.port) == nullptr)
        out.push_back(prefix + "NIC " + nicName(m.hca, m.port) + " is in the rail map but not in the topology file");
  for (std::string& message : out) diagnostics.error(topoFile, std::move(message));
}

void checkTopoFileAgainstRailMap(const std::string& topoPath, const std::string& railMapPath,
                                 const std::string& hostName, fabric::Diagnostics& out) {
  fabric::Host topoHost;
  fabric::RailMap railMap;
  try {
    topoHost = readNcclXmlFile(topoPath);
  } catch (const NcclXmlError& e) {
    return out.error(e.where(), e.reason());
  }
  try {
    railMap = fabric::readRailMapFile(railMapPath);
  } catch (const fabric::RailMapError& e) {
    // RailMapError's text starts with the path; the diagnostic's position carries it instead.
    const std::string text = e.what();
    const std::string prefix = railMapPath + ": ";
    return out.error(fabric::SourceLoc{railMapPath, 0, 0},
                     text.rfind(prefix, 0) == 0 ? text.substr(prefix.size()) : text);
  }
  checkTopoAgainstRailMap(topoHost, railMap, hostName, fabric::SourceLoc{topoPath, 0, 0}, out);
}

}  // namespace railtune::topo
