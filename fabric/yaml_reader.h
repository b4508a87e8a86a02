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

}  // namespace railtune::fabric
