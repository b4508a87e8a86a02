// Internal to the YAML reader: the element readers the compact form's overrides and the full form
// share, and the full form itself.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "fabric/model.h"
#include "fabric/yaml_nodes.h"

namespace railtune::fabric::yaml {

inline constexpr int kMaxIndex = 1 << 20;  // bounds for counts and indices: far above any machine

MapReader gpuReader(const YAML::Node& node, const std::string& file);
MapReader nicReader(const YAML::Node& node, const std::string& file);
void readGpu(const MapReader& map, Gpu& gpu);  // the keys present overwrite `gpu`
void readNic(const MapReader& map, Nic& nic);  // the keys present overwrite `nic`

// The switches' adaptiveRouting, trafficClass and serviceLevel, keys of `network` (full form) or of
// the cluster (compact form).
void readSwitchPolicy(const MapReader& map, Network& net);

Fabric readFullForm(const YAML::Node& root, const std::string& file);

}  // namespace railtune::fabric::yaml

namespace railtune::fabric::yaml {

Fabric readCompactForm(const YAML::Node& root, const std::string& file);

}  // namespace railtune::fabric::yaml
