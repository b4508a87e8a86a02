// Kueue Topology (kueue.x-k8s.io/v1beta1) for topology-aware scheduling: levels by the node labels
// of topo_gen/labels.h, coarsest first: spine, rail group, NVLink domain, kubernetes.io/hostname.
#pragma once

#include <string>
#include <vector>

#include "fabric/model.h"

namespace railtune::topo {

// The node-label keys of the levels. A level is left out when some host lacks it (no rail group,
// or a rail group without a spine), since Kueue needs every node of the flavor to carry each level.
std::vector<std::string> kueueLevels(const fabric::Fabric& fabric);

// The Topology object named `name` (default: the fabric's name), a single YAML document.
std::string kueueTopologyYaml(const fabric::Fabric& fabric, const std::string& name = "");

}  // namespace railtune::topo
