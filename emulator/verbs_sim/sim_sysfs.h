// A fake sysfs tree for one host of a simulated fabric, in the formats the kernel prints, so that code which
// reads /sys/class/infiniband (railtune's plugin through RAILTUNE_NET_SYSFS_ROOT, NCCL's GID type lookup)
// sees the same devices as the simulated libibverbs.
#pragma once

#include <string>

#include "emulator/verbs_sim/sim_fabric.h"

namespace railtune::verbs_sim {

// Writes under rootDir:
//   sys/class/infiniband/<dev>/{node_guid,sys_image_guid,node_type,device -> ../../../devices/pci0000:00/<pci>}
//   sys/class/infiniband/<dev>/ports/<p>/{state,phys_state,rate,link_layer,lid,gids/<i>,gid_attrs/types/<i>}
//   Ethernet ports also: sys/devices/pci0000:00/<pci>/net/<if>/{operstate,speed} and sys/class/net/<if>.
// Returns "" or the first error.
std::string writeSysfsTree(const SimFabric& fabric, int host, const std::string& rootDir);

}  // namespace railtune::verbs_sim
