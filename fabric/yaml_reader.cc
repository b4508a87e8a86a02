// The cluster description reader (fabric/yaml_reader.h): parses the text, picks the form (a list
// under `domains` is the full form, a number the compact one) and turns every yaml-cpp failure into
// a FabricError at the position yaml-cpp reports.
#include "fabric/yaml_reader.h"
#include "common/regular_file.h"

#include <fstream>
#include <sstream>

#include "fabric/yaml_parts.h"

namespace railtune::fabric {

Fabric readFabricYaml(const std::string& text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw FabricError(SourceLoc{file, e.mark.line + 1, e.mark.column + 1}, "not valid YAML: " + e.msg);
  }
  if (!root.IsMap())
    throw FabricError(SourceLoc{file, 1, 1}, "a cluster description is a YAML map (see docs/fabric.md)");
  try {
    if (root["domains"] && root["domains"].IsSequence()) return yaml::readFullForm(root, file);
    return yaml::readCompactForm(root, file);
  } catch (const YAML::Exception& e) {
    // Conversions are checked before they run; this is for anything yaml-cpp still rejects.
    throw FabricError(SourceLoc{file, e.mark.line + 1, e.mark.column + 1}, e.msg);
  }
}

Fabric loadFabricFile(const std::string& path) {
  const RegularFile file = readRegularFile(path, kMaxInputFileBytes);
  if (!file.ok()) throw FabricError(SourceLoc{path, 0, 0}, "cannot read the cluster description: " + file.reason);
  return readFabricYaml(file.bytes, path);
}

Fabric readFabricYaml(const std::string& text, const std::string& file, Diagnostics& keyProblems) {
  const yaml::CollectKeyProblems collect(keyProblems);
  return readFabricYaml(text, file);
}

Fabric loadFabricFile(const std::string& path, Diagnostics& keyProblems) {
  const yaml::CollectKeyProblems collect(keyProblems);
  return loadFabricFile(path);
}

}  // namespace railtune::fabric
