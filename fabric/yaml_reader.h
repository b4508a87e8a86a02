// The cluster description (YAML, docs/fabric.md): the compact form (a profile, how many racks, how
// many rails; expanded by fabric/expand.h) or the full form (every domain, host, GPU, NIC and
// switch). Errors throw FabricError with the file:line:column of the offending key or value.
#pragma once

#include <string>

#include "fabric/diagnostics.h"
#include "fabric/model.h"

namespace railtune::fabric {

// `file` names the text in messages and SourceLocs.
Fabric readFabricYaml(const std::string& text, const std::string& file);

// Reads `path` (errors name it); what `--fabric FILE` options call.
Fabric loadFabricFile(const std::string& path);

// The same, but unknown and duplicated keys go to `keyProblems` (every one, each at its
// file:line:column) and the reading goes on without them; any other error still throws FabricError.
// What `railtune topo check` calls, to report every such key in one run.
Fabric readFabricYaml(const std::string& text, const std::string& file, Diagnostics& keyProblems);
Fabric loadFabricFile(const std::string& path, Diagnostics& keyProblems);

}  // namespace railtune::fabric
