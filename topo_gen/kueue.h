// Kueue Topology (kueue.x-k8s.io/v1beta2, or v1beta1 for Kueue before 0.15) for topology-aware
// scheduling: levels by the node labels of topo_gen/labels.h, coarsest first: spine, rail group, NVLink
// domain, kubernetes.io/hostname. The two versions' Topology has the same spec (levels[].nodeLabel): only
// apiVersion differs. Kueue serves v1beta2 since 0.15 and stores it since 0.16; v1beta1 is deprecated.
#pragma once

#include <string>
#include <vector>

#include "fabric/model.h"

namespace railtune::topo {

// The node-label keys of the levels. A level is left out when some host lacks it (no rail group,
// or a rail group without a spine), since Kueue needs every node of the flavor to carry each level.
std::vector<std::string> kueueLevels(const fabric::Fabric& fabric);

// The API versions written: "v1beta2" (the default) and "v1beta1".
inline constexpr const char* kKueueApiVersions[] = {"v1beta2", "v1beta1"};

// The Topology object named `name` (default: the fabric's name), a single YAML document, in Kueue's API
// version `apiVersion` (one of kKueueApiVersions; std::invalid_argument for another).
std::string kueueTopologyYaml(const fabric::Fabric& fabric, const std::string& name = "",
                              const std::string& apiVersion = kKueueApiVersions[0]);

}  // namespace railtune::topo
