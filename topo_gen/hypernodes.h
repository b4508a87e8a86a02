// Volcano HyperNodes (topology.volcano.sh/v1alpha1, current schema: integer spec.tier, each member
// `type: Node|HyperNode` with exactly one selector, here always exactMatch.name) for network-topology-
// aware scheduling: tier 1 = an NVLink domain (members: its nodes), tier 2 = a rail group (members:
// its tier-1 HyperNodes), tier 3 = a spine (members: the tier-2 HyperNodes it joins).
#pragma once

#include <string>
#include <vector>

#include "fabric/model.h"

namespace railtune::topo {

struct HyperNodeMember {
  std::string type;  // "Node" or "HyperNode"
  std::string name;  // exactMatch.name
};

struct HyperNode {
  std::string name;  // Kubernetes object name: "nvl-<domain>", "rg-<rail group>", "spine-<spine>"
  int tier = 1;
  std::string tierName;  // "nvlink-domain", "rail-group", "spine"
  std::vector<HyperNodeMember> members;
};

// Tier 1 first (domain order), then tier 2, then tier 3. Rail groups without a spine get no tier-3
// parent; a cluster without rail groups gets tier 1 only. Throws std::invalid_argument when a name
// would not be a valid Kubernetes object name.
std::vector<HyperNode> hyperNodes(const fabric::Fabric& fabric);

// One YAML document per HyperNode, each starting with "---".
std::string hyperNodesYaml(const std::vector<HyperNode>& nodes);

}  // namespace railtune::topo
