// `railtune topo check`'s whole job but its printing: a cluster description, and optionally a rail map and an
// NCCL topology file, read and checked as everything that reads them would: every unknown or duplicated key, the
// fabric's own checks (fabric/validate.h), NCCL's XML limits for every host and the plane GUIDs; the rail map
// through the reader the plugins use; the topology file's rails and planes against the rail map.
#pragma once

#include <string>
#include <vector>

#include "fabric/diagnostics.h"

namespace railtune::topo {

struct ClusterCheckRequest {
  std::string fabric = {};    // "" = the built-in default cluster
  std::string railMap = {};   // "" = none
  std::string topoFile = {};  // NCCL topology XML to compare with the rail map; "" = none
  std::string host = {};      // the topology file's entry in the rail map; "" = its <system name>
};

// One line per file checked, after the findings: what was checked in it, and whether it passed.
struct CheckedFile {
  std::string name;
  std::string checked;  // what was checked in it
  std::string facts;    // what it holds, when read ("2 NVLink domains, 36 hosts, 4 rails x 1 planes")
  size_t errors = 0;
  std::string line() const;  // "NAME: ok (FACTS); checked: CHECKED" or "NAME: N error(s) ..."
};

struct ClusterCheck {
  fabric::Diagnostics diagnostics;  // every finding, "file:line:column: error: message"
  std::vector<CheckedFile> files;   // the description, then the rail map and the topology file when given
};

// Never throws on what it reads: a file that cannot be read is a finding naming it.
ClusterCheck checkCluster(const ClusterCheckRequest& request);

}  // namespace railtune::topo
