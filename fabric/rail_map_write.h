// Writes the rail map (formats/rail_map.h, docs/formats.md) for every host of a fabric model.
#pragma once

#include <string>

#include "fabric/model.h"
#include "formats/measured_env.h"

namespace railtune::fabric {

// JSON, 2-space indented, hosts in model order, each GPU's NICs in rail then plane order. Throws
// std::invalid_argument naming the host and NIC when a compute NIC has no rail or no nearest GPU
// (the map would otherwise leave it out silently).
// measured (with its source): network settings measured on this fabric (`railtune topo rail-map --measured`),
// written as `network.measured` for the net plugin's QP policy; empty: none.
std::string writeRailMap(const Fabric& fabric, const formats::MeasuredEnv& measured = {},
                         const std::string& measuredSource = "");

}  // namespace railtune::fabric
