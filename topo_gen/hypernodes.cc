#include "topo_gen/hypernodes.h"

#include <map>

#include "topo_gen/sched_common.h"

namespace railtune::topo {
namespace {

HyperNode named(const std::string& prefix, const std::string& what, int tier, const std::string& tierName) {
  HyperNode node{prefix + what, tier, tierName, {}};
  requireObjectName(node.name, "HyperNode name for " + tierName);
  return node;
}

void addDomainTier(const fabric::Fabric& fabric, std::vector<HyperNode>& out) {
  for (const fabric::NvlDomain& domain : fabric.domains) {
    HyperNode node = named("nvl-", domain.name, 1, "nvlink-domain");
    for (const std::string& host : domain.hosts) node.members.push_back({"Node", host});
    out.push_back(std::move(node));
  }
}

void addRailGroupTier(const fabric::Fabric& fabric, std::vector<HyperNode>& out) {
  for (const fabric::RailGroup& group : fabric.network.railGroups) {
    HyperNode node = named("rg-", group.name, 2, "rail-group");
    for (const std::string& domain : group.domains) node.members.push_back({"HyperNode", "nvl-" + domain});
    out.push_back(std::move(node));
  }
}

void addSpineTier(const fabric::Fabric& fabric, std::vector<HyperNode>& out) {
  std::vector<std::string> order;  // spines in the order rail groups first name them
  std::map<std::string, std::vector<HyperNodeMember>> members;
  for (const fabric::RailGroup& group : fabric.network.railGroups) {
    if (group.spine.empty()) continue;
    if (members.find(group.spine) == members.end()) order.push_back(group.spine);
    members[group.spine].push_back({"HyperNode", "rg-" + group.name});
  }
  for (const std::string& spine : order) {
    HyperNode node = named("spine-", spine, 3, "spine");
    node.members = std::move(members[spine]);
    out.push_back(std::move(node));
  }
}

}  // namespace

std::vector<HyperNode> hyperNodes(const fabric::Fabric& fabric) {
  std::vector<HyperNode> nodes;
  addDomainTier(fabric, nodes);
  addRailGroupTier(fabric, nodes);
  addSpineTier(fabric, nodes);
  return nodes;
}

std::string hyperNodesYaml(const std::vector<HyperNode>& nodes) {
  std::string yaml;
  for (const HyperNode& node : nodes) {
    yaml +=
        "---\napiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata:\n  name: " + yamlQuote(node.name) +
        "\nspec:\n  tier: " + std::to_string(node.tier) + "\n  tierName: " + yamlQuote(node.tierName) +
        "\n  members:\n";
    for (const HyperNodeMember& member : node.members)
      yaml += "    - type: " + member.type +
              "\n      selector:\n        exactMatch:\n          name: " + yamlQuote(member.name) + "\n";
  }
  return yaml;
}

}  // namespace railtune::topo
