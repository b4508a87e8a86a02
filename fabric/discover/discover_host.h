// `railtune topo discover`'s whole job but its printing: this host read from hwloc (or an hwloc XML export),
// sysfs (or a fake tree) and NVML, assembled into its part of the cluster description and checked
// (docs/fabric.md, "Discovery").
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "fabric/diagnostics.h"
#include "fabric/discover/assemble.h"
#include "fabric/discover/inventory.h"

namespace railtune::fabric::discover {

struct HostDiscoveryRequest {
  DiscoverOptions assemble;     // host (required), domain, rack, profile, compute NICs, the clique label
  std::string hwlocXml;         // "" = the live topology
  bool noHwloc = false;         // hwloc not read
  std::string sysfsRoot = "/";  // the folder holding sys/class/{infiniband,net}
  std::string nodeLabels;       // `kubectl get node NAME -o json`, or a JSON object of labels; "" = none
  // NVML as the caller reads it (in a child under a deadline: a truncated library makes ld.so die); empty:
  // NVML is not read.
  std::function<NvmlInventory()> readNvml;
};

struct HostDiscovery {
  std::vector<Finding> findings;  // in the order made: hwloc, sysfs, NVML, the assembly, the NICs
  // The sources could not be used (an hwloc export with errors): nothing else is set, nothing is to be written.
  std::string refusal;
  Discovery found;                  // the description and its assembly's findings (also in `findings`)
  fabric::Diagnostics diagnostics;  // the description's validation (empty when no GPU was found)
  bool noGpu = false;               // not a GPU compute host: nothing to describe
  std::string header;               // the comment the YAML starts with: where each source was read from
};

// Throws std::runtime_error naming the file for a node-labels file that cannot be read or is not labels.
HostDiscovery discoverHost(const HostDiscoveryRequest& request);

// The node's nvidia.com/gpu.clique label ("" when absent) from `kubectl get node NAME -o json` or a plain JSON
// object of labels. Throws std::runtime_error naming PATH when it is not one of those.
std::string cliqueFromNodeLabels(const std::string& path);

}  // namespace railtune::fabric::discover
