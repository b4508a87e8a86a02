// NIC fusion (net v9+ makeVDevice): NCCL asks for one virtual device made of several physical ones
// (NICs sharing a PCI parent, NCCL_NET_MERGE_LEVEL / NCCL_NET_FORCE_MERGE). The merge follows NCCL's own
// IB transport so that NCCL sees the same numbers from railtune as from its IB plugin:
//   - name: the members' names joined by '+' ("mlx5_0+mlx5_1"), in the order asked;
//   - speed: the members' sum (saturating at INT_MAX);
//   - rail: the members' common rail, else -1 (a device spanning rails has no rail);
//   - plane: one member keeps its own; several give the virtual bit (1 << 14) plus one bit per member's
//     plane index (the position of its plane among the distinct planes of all physical devices);
//   - everything else (netdev, address, PCI path, GUID, port, link layer): the first member's.
// Refused, with a message: no member, more than kMaxVirtualDevices (8, NCCL 2.30 and net v12), a member
// out of range or repeated, members with different link layers, more than 256 virtual devices in all, or
// more than 14 distinct planes.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <vector>

#include "net_plugin/devices/device_list.h"

namespace railtune::net {

inline constexpr size_t kMaxVirtualDeviceTotal = 256;  // NCCL's MAX_IB_VDEVS
inline constexpr int kPlaneMaxIndex = 14;              // NCCL_IB_PLANE_MAX_INDEX
inline constexpr int kPlaneVirtualBit = 1 << kPlaneMaxIndex;

struct VirtualDevice {
  NetDevice merged;
  std::vector<int> members;  // indexes into the physical list
};

class VirtualDeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Pure. `existing`: how many virtual devices there already are. `maxMembers`: the ABI's limit
// (4 for net v9..v11, 8 for v12). Throws VirtualDeviceError.
VirtualDevice makeVirtualDevice(std::span<const NetDevice> physical, std::span<const int> members, size_t existing,
                                size_t maxMembers);

}  // namespace railtune::net
