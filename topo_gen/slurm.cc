#include "topo_gen/slurm.h"

#include <algorithm>
#include <stdexcept>

#include "topo_gen/sched_common.h"
#include "topo_gen/slurm_hostlist.h"

namespace railtune::topo {
namespace {

// topology.conf is whitespace- and '='-separated and hostlists use ',' and brackets, so a name with
// any of those would change the meaning of the line it is on.
const std::string& slurmName(const std::string& name, const char* what) {
  if (name.empty() || name.find_first_of(" \t\r\n=,[]#") != std::string::npos)
    throw std::invalid_argument(
        std::string(what) + " '" + name +
        "' cannot be written to topology.conf (empty, or has a space, '=', ',', '[', ']' or '#')");
  return name;
}

std::vector<std::string> slurmNames(const std::vector<std::string>& names, const char* what) {
  for (const std::string& name : names) slurmName(name, what);
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) {
    if (!text.empty()) text += ',';
    text += name;
  }
  return text;
}

// "18,36,72": the common domain size, doubled while a block of that size still fits the cluster.
std::string blockSizes(const fabric::Fabric& fabric) {
  if (fabric.domains.empty()) return "";
  const size_t base = fabric.domains.front().hosts.size();
  for (const fabric::NvlDomain& domain : fabric.domains)
    if (domain.hosts.size() != base || base == 0) return "";
  std::string sizes;
  for (size_t size = base; size <= fabric.hosts.size(); size *= 2) {
    if (!sizes.empty()) sizes += ',';
    sizes += std::to_string(size);
  }
  return sizes;
}

std::string blockConf(const fabric::Fabric& fabric) {
  std::string conf = "# Slurm topology.conf (topology/block) for " + fabric.name +
                     ", from railtune topo slurm: one block per NVLink domain.\n";
  for (const fabric::NvlDomain& domain : fabric.domains) {
    if (domain.hosts.empty()) continue;
    conf += "BlockName=" + slurmName(domain.name, "NVLink domain") +
            " Nodes=" + compressHostlist(slurmNames(domain.hosts, "host")) + "\n";
  }
  const std::string sizes = blockSizes(fabric);
  if (!sizes.empty()) conf += "BlockSizes=" + sizes + "\n";
  return conf;
}

std::vector<std::string> leavesOf(const fabric::Fabric& fabric, const std::string& railGroup) {
  std::vector<std::string> leaves;
  for (const fabric::Switch& sw : fabric.network.switches)
    if (sw.tier == fabric::SwitchTier::Leaf && sw.railGroup == railGroup) leaves.push_back(sw.name);
  return leaves;
}

std::string railGroupLines(const fabric::Fabric& fabric, const fabric::RailGroup& group) {
  std::vector<std::string> hosts;
  for (const std::string& domainName : group.domains)
    for (const fabric::NvlDomain& domain : fabric.domains)
      if (domain.name == domainName) hosts.insert(hosts.end(), domain.hosts.begin(), domain.hosts.end());
  std::string lines;
  const std::vector<std::string> leaves = leavesOf(fabric, group.name);
  if (!leaves.empty()) lines += "# " + group.name + ": rail leaves " + joined(leaves) + "\n";
  if (hosts.empty()) return lines;
  return lines + "SwitchName=" + slurmName(group.name, "rail group") +
         " Nodes=" + compressHostlist(slurmNames(hosts, "host")) + "\n";
}

// Spines in the order rail groups name them, each with the rail groups under it.
std::string spineLines(const fabric::Fabric& fabric, std::vector<std::string>& spines) {
  std::string lines;
  for (const fabric::RailGroup& group : fabric.network.railGroups)
    if (!group.spine.empty() && std::find(spines.begin(), spines.end(), group.spine) == spines.end())
      spines.push_back(group.spine);
  for (const std::string& spine : spines) {
    std::vector<std::string> groups;
    for (const fabric::RailGroup& group : fabric.network.railGroups)
      if (group.spine == spine) groups.push_back(group.name);
    lines += "SwitchName=" + slurmName(spine, "spine") + " Switches=" + joined(groups) + "\n";
  }
  return lines;
}

std::string coreLines(const fabric::Fabric& fabric, const std::vector<std::string>& spines) {
  std::string lines;
  for (const fabric::Switch& core : fabric.network.switches) {
    if (core.tier != fabric::SwitchTier::Core) continue;
    std::vector<std::string> below;
    for (const fabric::Switch& sw : fabric.network.switches)
      if (std::find(spines.begin(), spines.end(), sw.name) != spines.end() &&
          std::find(sw.up.begin(), sw.up.end(), core.name) != sw.up.end())
        below.push_back(sw.name);
    if (!below.empty())
      lines += "SwitchName=" + slurmName(core.name, "core switch") + " Switches=" + joined(below) + "\n";
  }
  return lines;
}

std::string treeConf(const fabric::Fabric& fabric) {
  if (fabric.network.railGroups.empty())
    throw std::invalid_argument("fabric '" + fabric.name +
                                "' declares no rail groups, so there is no switch tree for topology/tree "
                                "(use --plugin block)");
  std::string conf = "# Slurm topology.conf (topology/tree) for " + fabric.name +
                     ", from railtune topo slurm: rail groups, then spines, then cores.\n";
  for (const fabric::RailGroup& group : fabric.network.railGroups) conf += railGroupLines(fabric, group);
  std::vector<std::string> spines;
  conf += spineLines(fabric, spines);
  return conf + coreLines(fabric, spines);
}

}  // namespace

std::string slurmTopologyConf(const fabric::Fabric& fabric, SlurmTopologyPlugin plugin) {
  return plugin == SlurmTopologyPlugin::Block ? blockConf(fabric) : treeConf(fabric);
}

}  // namespace railtune::topo
