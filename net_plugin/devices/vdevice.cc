// NIC fusion (see vdevice.h for the rules, which are NCCL's IB transport's).
#include "net_plugin/devices/vdevice.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "net_plugin/engine.h"

namespace railtune::net {
namespace {

void checkMembers(std::span<const NetDevice> physical, std::span<const int> members, size_t existing,
                  size_t maxMembers) {
  if (members.empty()) throw VirtualDeviceError("makeVDevice: a virtual device needs at least one device");
  const size_t limit = std::min(maxMembers, static_cast<size_t>(kMaxVirtualDevices));
  if (members.size() > limit) {
    throw VirtualDeviceError("makeVDevice: " + std::to_string(members.size()) + " devices, at most " +
                             std::to_string(limit));
  }
  if (existing >= kMaxVirtualDeviceTotal) {
    throw VirtualDeviceError("makeVDevice: already " + std::to_string(existing) + " virtual devices, the limit");
  }
  for (size_t i = 0; i < members.size(); ++i) {
    const int dev = members[i];
    if (dev < 0 || static_cast<size_t>(dev) >= physical.size()) {
      throw VirtualDeviceError("makeVDevice: device " + std::to_string(dev) + " does not exist (there are " +
                               std::to_string(physical.size()) + ")");
    }
    if (std::find(members.begin(), members.begin() + static_cast<std::ptrdiff_t>(i), dev) !=
        members.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw VirtualDeviceError("makeVDevice: device " + std::to_string(dev) + " is listed twice");
    }
    const NetDevice& device = physical[static_cast<size_t>(dev)];
    if (device.linkLayer != physical[static_cast<size_t>(members[0])].linkLayer) {
      throw VirtualDeviceError("makeVDevice: " + device.name + " and " +
                               physical[static_cast<size_t>(members[0])].name + " have different link layers");
    }
  }
}

// The position of `plane` among the distinct planes of all physical devices, in device order.
int planeIndex(std::span<const NetDevice> physical, int plane) {
  std::vector<int> distinct;
  for (const NetDevice& device : physical) {
    if (std::find(distinct.begin(), distinct.end(), device.plane) == distinct.end()) distinct.push_back(device.plane);
  }
  const auto index = std::find(distinct.begin(), distinct.end(), plane) - distinct.begin();
  if (index >= kPlaneMaxIndex) {
    throw VirtualDeviceError("makeVDevice: more than " + std::to_string(kPlaneMaxIndex) + " distinct planes");
  }
  return static_cast<int>(index);
}

}  // namespace

VirtualDevice makeVirtualDevice(std::span<const NetDevice> physical, std::span<const int> members, size_t existing,
                                size_t maxMembers) {
  checkMembers(physical, members, existing, maxMembers);
  VirtualDevice result;
  result.members.assign(members.begin(), members.end());
  NetDevice& merged = result.merged;
  merged = physical[static_cast<size_t>(members[0])];
  if (members.size() == 1) return result;
  int64_t speed = 0;
  merged.plane = kPlaneVirtualBit;
  for (size_t i = 0; i < members.size(); ++i) {
    const NetDevice& device = physical[static_cast<size_t>(members[i])];
    if (i > 0) merged.name += "+" + device.name;
    speed = std::min<int64_t>(speed + device.speedMbps, INT_MAX);
    if (device.rail < 0 || device.rail != merged.rail) merged.rail = -1;
    merged.plane |= 1 << planeIndex(physical, device.plane);
  }
  merged.speedMbps = static_cast<int>(speed);
  return result;
}

}  // namespace railtune::net
