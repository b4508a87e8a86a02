// Internals of assembleHost (assemble.cc), one file per part: GPUs (assemble_gpus.cc), NICs and
// rails (assemble_nics.cc), NVLink fabric health and the clique label (assemble_health.cc).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "fabric/discover/assemble.h"
#include "fabric/profiles.h"

namespace railtune::fabric::discover::detail {

void add(Discovery& out, Severity severity, std::string text);

// hwloc's PCI device by bus id (nullptr when hwloc was not read or does not list it).
const HwlocPciDevice* hwlocDevice(const Sources& sources, const std::string& busId);

// GPUs in index order; `profile` (may be null) fills what neither NVML nor hwloc knows.
std::vector<Gpu> assembleGpus(const Sources& sources, const Profile* profile, Discovery& out);

// Compute NICs with rails, planes and nearest GPUs, in rail then plane order.
std::vector<Nic> assembleNics(const Sources& sources, const std::vector<Gpu>& gpus, const DiscoverOptions& options,
                              Discovery& out);

// The clique every GPU reports ("" = none or not completed), with findings for fabric state,
// health, disagreeing GPUs and the node's nvidia.com/gpu.clique label.
std::string assembleClique(const Sources& sources, const DiscoverOptions& options, Discovery& out);

// PCI bridges two upstream chains share below their host bridges (whose keys differ between hwloc
// and sysfs, so they are not compared); >= 1 means both sit behind one PCI switch or root port.
int sharedSwitchDepth(const std::vector<std::string>& a, const std::vector<std::string>& b);

}  // namespace railtune::fabric::discover::detail
