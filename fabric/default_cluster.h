// railtune's embedded default cluster (fabric/default_cluster.yaml, compiled in): 2 GB300 NVL72
// racks, 4 rails. What every `--fabric` option reads when no file is given.
#pragma once

#include <string>
#include <string_view>

#include "fabric/model.h"

namespace railtune::fabric {

std::string_view defaultClusterYaml();
Fabric loadDefaultCluster();

// `path` empty: the default cluster; else loadFabricFile(path). Throws FabricError.
Fabric loadFabricOrDefault(const std::string& path);

}  // namespace railtune::fabric
