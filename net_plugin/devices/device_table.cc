// Virtual devices and their properties (see device_table.h).
#include "net_plugin/devices/device_table.h"

#include <string>

namespace railtune::net {

DeviceTable::DeviceTable(std::vector<NetDevice> physical, const TransportLimits& limits)
    : physical_(std::move(physical)), limits_(limits) {
  for (size_t i = 0; i < physical_.size(); ++i) {
    const int member = static_cast<int>(i);
    entries_.push_back(makeVirtualDevice(physical_, std::span<const int>(&member, 1), 0, kMaxVirtualDevices));
  }
}

int DeviceTable::count() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int>(entries_.size());
}

const VirtualDevice& DeviceTable::entry(int vdev) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (vdev < 0 || static_cast<size_t>(vdev) >= entries_.size()) {
    throw NetError(
        ErrorKind::InvalidArgument, "unknown", vdev,
        "device " + std::to_string(vdev) + " does not exist (there are " + std::to_string(entries_.size()) + ")");
  }
  return entries_[static_cast<size_t>(vdev)];  // never removed, never moved: the reference stays valid
}

const NetDevice& DeviceTable::device(int vdev) const {
  return entry(vdev).merged;
}

DeviceProperties DeviceTable::properties(int vdev) const {
  const VirtualDevice& virtualDevice = entry(vdev);
  const NetDevice& merged = virtualDevice.merged;
  DeviceProperties props;
  props.name = merged.name.c_str();
  props.pciPath = merged.pciPath.empty() ? nullptr : merged.pciPath.c_str();
  props.guid = merged.guid;
  props.pointerSupport = limits_.pointerSupport;
  props.regIsGlobal = limits_.regIsGlobal;
  props.speedMbps = merged.speedMbps;
  props.port = merged.port;
  props.latencyUs = limits_.latencyUs;
  props.maxComms = limits_.maxComms;
  props.maxRecvs = limits_.maxRecvs;
  props.nPhysicalDevices = static_cast<int>(virtualDevice.members.size());
  for (size_t i = 0; i < virtualDevice.members.size(); ++i) props.physicalDevices[i] = virtualDevice.members[i];
  props.maxP2pBytes = limits_.maxP2pBytes;
  props.maxCollBytes = limits_.maxCollBytes;
  props.maxMultiRequestSize = 1;
  props.railId = merged.rail;
  props.planeId = merged.plane;
  return props;
}

int DeviceTable::makeVirtual(std::span<const int> members, size_t maxMembers) {
  const std::lock_guard<std::mutex> lock(mutex_);
  entries_.push_back(makeVirtualDevice(physical_, members, entries_.size(), maxMembers));
  return static_cast<int>(entries_.size()) - 1;
}

}  // namespace railtune::net
