// The rail map a synthetic job is placed on: a rail map file (`--rail-map`), else the rail map of a
// fabric description (`--fabric`, as `railtune topo rail-map` writes it), else that of the embedded
// default cluster (2 GB300 NVL72 racks, 4 rails).
#pragma once

#include <string>

#include "formats/rail_map.h"

namespace railtune::analysis::synth {

// Throws formats::RailMapError, fabric::FabricError (file:line:column) or SynthError (both given).
formats::RailMap loadRailMap(const std::string& fabricPath, const std::string& railMapPath);

}  // namespace railtune::analysis::synth
