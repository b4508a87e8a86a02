#include "topo_gen/nccl_xml_check.h"

#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "topo_gen/nccl_xml.h"

namespace railtune::topo {
namespace {

const formats::RailMapNic* findMapNic(const formats::RailMapHost& host, const std::string& hca, int port) {
  for (const formats::RailMapGpu& gpu : host.gpus)
    for (const formats::RailMapNic& nic : gpu.nics)
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

namespace {

// One kind of GUID finding at one place: the NICs it is about, the first named, the rest counted. A compact
// description's 288 plane devices without a GUID are one finding at its `planes:` line, not 288.
struct GuidFinding {
  fabric::SourceLoc loc;
  bool missing = true;  // no guid; else a guid other than its plane 0's
  std::string first;    // "host rack00-tray00: NIC mlx5_0 (rail 0, plane 0)"
  std::string otherPlane;
  size_t nics = 0;
  std::set<std::string> hosts;
};

std::string guidFindingText(const GuidFinding& f) {
  const std::string what = f.nics == 1
                               ? f.first
                               : std::to_string(f.nics) + " plane devices on " + std::to_string(f.hosts.size()) +
                                     (f.hosts.size() == 1 ? " host" : " hosts") + " (the first: " + f.first + ")";
  if (!f.missing)
    return what + (f.nics == 1 ? " has" : " have") + " a guid other than " + f.otherPlane +
           ": the planes of one NIC share the ASIC's system image GUID";
  return what + (f.nics == 1 ? " has" : " have") +
         " no guid: NCCL keys the NIC ASIC on the topology file's guid and would take the planes for separate "
         "NICs; run `railtune topo discover`, set the NICs' guid, or give the compact form's `nicGuids` pattern";
}

}  // namespace

void checkPlaneGuids(const fabric::Fabric& fabric, fabric::Diagnostics& out) {
  std::vector<GuidFinding> findings;  // in the order first met
  std::map<std::tuple<std::string, int, int, bool>, size_t> index;
  const auto add = [&](const fabric::SourceLoc& loc, bool missing, const std::string& host, const std::string& what,
                       const std::string& otherPlane) {
    const auto [it, added] = index.try_emplace({loc.file, loc.line, loc.column, missing}, findings.size());
    if (added) findings.push_back(GuidFinding{loc, missing, what, otherPlane, 0, {}});
    GuidFinding& f = findings[it->second];
    ++f.nics;
    f.hosts.insert(host);
  };
  for (const fabric::Host& host : fabric.hosts) {
    for (const fabric::Nic& nic : host.nics) {
      if (nic.plane < 0) continue;
      const fabric::SourceLoc& loc = nic.loc.file.empty() ? host.loc : nic.loc;
      const std::string what = "host " + host.name + ": NIC " + nic.hca + " (rail " + std::to_string(nic.rail) +
                               ", plane " + std::to_string(nic.plane) + ")";
      if (nic.guid == 0) {
        add(loc, true, host.name, what, "");
        continue;
      }
      for (const fabric::Nic& other : host.nics)
        if (&other != &nic && other.rail == nic.rail && other.plane >= 0 && other.plane < nic.plane &&
            other.guid != 0 && other.guid != nic.guid)
          add(loc, false, host.name, what, "its plane " + std::to_string(other.plane) + " (" + other.hca + ")");
    }
  }
  for (const GuidFinding& f : findings) out.error(f.loc, guidFindingText(f));
}

void checkTopoAgainstRailMap(const fabric::Host& topoHost, const formats::RailMap& railMap, const std::string& hostName,
                             const fabric::SourceLoc& topoFile, fabric::Diagnostics& diagnostics) {
  const std::string name = hostName.empty() ? topoHost.name : hostName;
  const formats::RailMapHost* mapHost = railMap.findHost(name);
  if (mapHost == nullptr) return diagnostics.error(topoFile, "host " + name + ": not in the rail map");
  std::vector<std::string> out;
  const std::string prefix = "host " + name + ": ";
  for (const fabric::Nic& nic : topoHost.nics) {
    if (nic.hca.empty()) continue;  // a partial file's PCI function without <net>
    const formats::RailMapNic* m = findMapNic(*mapHost, nic.hca, nic.port);
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
  for (const formats::RailMapGpu& gpu : mapHost->gpus)
    for (const formats::RailMapNic& m : gpu.nics)
      if (findTopoNic(topoHost, m.hca, m.port) == nullptr)
        out.push_back(prefix + "NIC " + nicName(m.hca, m.port) + " is in the rail map but not in the topology file");
  for (std::string& message : out) diagnostics.error(topoFile, std::move(message));
}

void checkTopoFileAgainstRailMap(const std::string& topoPath, const std::string& railMapPath,
                                 const std::string& hostName, fabric::Diagnostics& out) {
  fabric::Host topoHost;
  formats::RailMap railMap;
  try {
    topoHost = readNcclXmlFile(topoPath);
  } catch (const NcclXmlError& e) {
    return out.error(e.where(), e.reason());
  }
  try {
    railMap = formats::readRailMapFile(railMapPath);
  } catch (const formats::RailMapError& e) {
    // Each problem reads "PATH:LINE:COLUMN: reason" or "PATH: reason"; the diagnostic carries the position.
    for (const std::string& problem : e.problems()) {
      fabric::SourceLoc loc{railMapPath, 0, 0};
      std::string text = problem;
      if (text.rfind(railMapPath + ":", 0) == 0) {
        text = text.substr(railMapPath.size() + 1);
        int used = 0;
        if (std::sscanf(text.c_str(), "%d:%d: %n", &loc.line, &loc.column, &used) == 2 && used > 0)
          text = text.substr(static_cast<size_t>(used));
        else if (text.rfind(' ', 0) == 0)
          text = text.substr(1);
      }
      out.error(loc, text);
    }
    return;
  }
  checkTopoAgainstRailMap(topoHost, railMap, hostName, fabric::SourceLoc{topoPath, 0, 0}, out);
}

}  // namespace railtune::topo
