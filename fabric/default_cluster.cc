// The embedded default cluster (fabric/default_cluster.h).
#include "fabric/default_cluster.h"

#include "fabric/embedded_data.h"
#include "fabric/yaml_reader.h"

namespace railtune::fabric {

std::string_view defaultClusterYaml() {
  return embedded::kDefaultCluster.text;
}

Fabric loadDefaultCluster() {
  return readFabricYaml(std::string(defaultClusterYaml()), "(built-in) default_cluster.yaml");
}

Fabric loadFabricOrDefault(const std::string& path) {
  return path.empty() ? loadDefaultCluster() : loadFabricFile(path);
}

}  // namespace railtune::fabric
