// The fabric.* and topo.* lines: the rail map (--rail-map, RAILTUNE_RAIL_MAP) and this host's entry,
// the map's HCAs against the RDMA devices sysfs lists here (fabric/discover's sysfs source, under
// --root), and NCCL_TOPO_FILE (a readable regular file that NCCL's parser accepts and whose NICs
// agree with the rail map).
#pragma once

#include <optional>
#include <string>

#include "doctor/check.h"
#include "doctor/context.h"
#include "formats/rail_map.h"

namespace railtune::doctor {

struct RailMapState {
  std::optional<formats::RailMap> map;
  std::string hostName;  // the host doctor looks for in the map
  const formats::RailMapHost* host() const { return map ? map->findHost(hostName) : nullptr; }
};

RailMapState checkRailMap(const DoctorOptions& options, const std::string& hostName, Report& report);
void checkNics(const DoctorOptions& options, const RailMapState& railMap, Report& report);
void checkTopoFile(const RailMapState& railMap, Report& report);

}  // namespace railtune::doctor
