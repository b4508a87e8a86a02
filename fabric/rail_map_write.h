// Writes the rail map (formats/rail_map.h, docs/formats.md) for every host of a fabric model.
#pragma once

#include <string>

#include "fabric/model.h"

namespace railtune::fabric {

// JSON, 2-space indented, hosts in model order, each GPU's NICs in rail then plane order. Throws
// std::invalid_argument naming the host and NIC when a compute NIC has no rail or no nearest GPU
// (the map would otherwise leave it out silently).
std::string writeRailMap(const Fabric& fabric);

}  // namespace railtune::fabric
