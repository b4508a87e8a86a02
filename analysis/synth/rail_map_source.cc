// See rail_map_source.h.
#include "analysis/synth/rail_map_source.h"

#include "analysis/synth/placement.h"
#include "fabric/default_cluster.h"
#include "fabric/rail_map_write.h"

namespace railtune::analysis::synth {

formats::RailMap loadRailMap(const std::string& fabricPath, const std::string& railMapPath) {
  if (!fabricPath.empty() && !railMapPath.empty()) throw SynthError("--fabric and --rail-map exclude each other");
  if (!railMapPath.empty()) return formats::readRailMapFile(railMapPath);
  // Through the written rail map and its reader, so the job sees exactly what the plugins would.
  const std::string text = fabric::writeRailMap(fabric::loadFabricOrDefault(fabricPath));
  return formats::parseRailMap(text, fabricPath.empty() ? "the default cluster's rail map" : fabricPath);
}

}  // namespace railtune::analysis::synth
