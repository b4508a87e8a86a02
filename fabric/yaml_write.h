// Writes a fabric model as the full form of the cluster description (docs/fabric.md), the form
// `railtune topo discover` produces and `railtune topo merge` joins. What readFabricYaml reads back
// is the same model (positions aside): tests hold the writer to that.
#pragma once

#include <string>

#include "fabric/model.h"

namespace railtune::fabric {

// `header` is written first as YAML comments, one per line ("" = none).
std::string writeFabricYaml(const Fabric& fabric, const std::string& header = "");

}  // namespace railtune::fabric
