#include "topo_gen/kueue.h"

#include <stdexcept>

#include "topo_gen/sched_common.h"

namespace railtune::topo {

std::vector<std::string> kueueLevels(const fabric::Fabric& fabric) {
  bool everyHostHasGroup = !fabric.hosts.empty();
  bool everyHostHasSpine = everyHostHasGroup;
  for (const fabric::Host& host : fabric.hosts) {
    const fabric::RailGroup* group = railGroupOf(fabric, domainOf(fabric, host));
    everyHostHasGroup = everyHostHasGroup && group != nullptr;
    everyHostHasSpine = everyHostHasSpine && group != nullptr && !group->spine.empty();
  }
  std::vector<std::string> levels;
  if (everyHostHasSpine) levels.emplace_back(kLabelSpine);
  if (everyHostHasGroup) levels.emplace_back(kLabelRailGroup);
  levels.emplace_back(kLabelNvlinkDomain);
  levels.emplace_back(kLabelHostname);
  return levels;
}

std::string kueueTopologyYaml(const fabric::Fabric& fabric, const std::string& name, const std::string& apiVersion) {
  bool known = false;
  for (const char* version : kKueueApiVersions) known = known || apiVersion == version;
  if (!known) throw std::invalid_argument("Kueue API version '" + apiVersion + "': expected v1beta2 or v1beta1");
  const std::string objectName = name.empty() ? fabric.name : name;
  requireObjectName(objectName, "Kueue Topology name");
  std::string yaml = "apiVersion: kueue.x-k8s.io/" + apiVersion +
                     "\nkind: Topology\nmetadata:\n  name: " + yamlQuote(objectName) + "\nspec:\n  levels:\n";
  for (const std::string& level : kueueLevels(fabric)) yaml += "    - nodeLabel: " + yamlQuote(level) + "\n";
  return yaml;
}

}  // namespace railtune::topo
