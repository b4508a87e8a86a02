// Checks `railtune topo check` runs for the NCCL topology XML: would a host's file break NCCL's parser
// limits, and does a topology file (ours or hand-edited) agree with the rail map on rails and planes.
// Findings are errors appended to the same fabric::Diagnostics list `railtune topo check` prints, each
// naming the host (and NIC) it is about.
#pragma once

#include <string>

#include "fabric/diagnostics.h"
#include "fabric/model.h"
#include "formats/rail_map.h"

namespace railtune::topo {

// For every host: the XML railtune would emit exceeds NCCL's limits (elements, attributes, name and value
// lengths), or cannot be built at all (a GPU or NIC on a NUMA node with no CPU, a malformed bus id).
// Reported at the host's declaration.
void checkNcclXmlLimits(const fabric::Fabric& fabric, fabric::Diagnostics& out);

// For every host with multi-plane NICs (plane >= 0): each plane device needs the NIC ASIC's GUID, and the
// planes of one NIC (same rail) must share it. NCCL keys a NIC ASIC on the topology file's `guid` (topo.cc:
// net.asic, else a per-device id) and shares bandwidth between devices of one ASIC and port (search.cc);
// without it the two planes look like two NICs. Profiles leave GUIDs unknown (0): discovery or an override
// fills them. Reported at each NIC's declaration.
void checkPlaneGuids(const fabric::Fabric& fabric, fabric::Diagnostics& out);

// `topoHost` is a topology file read back (readNcclXml); `hostName` names its entry in the rail map
// ("" = the file's <system name>). Reports NICs whose rail or plane differ, NICs the file has and the map
// lacks, and the other way round. Reported at `topoFile` (the topology file's path).
void checkTopoAgainstRailMap(const fabric::Host& topoHost, const formats::RailMap& railMap, const std::string& hostName,
                             const fabric::SourceLoc& topoFile, fabric::Diagnostics& out);

// The same from files: reads the topology file and the rail map, and reports either file's parse error
// (with its position) or their disagreements. `hostName` as above.
void checkTopoFileAgainstRailMap(const std::string& topoPath, const std::string& railMapPath,
                                 const std::string& hostName, fabric::Diagnostics& out);

}  // namespace railtune::topo
