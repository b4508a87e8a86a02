// The devices as NCCL counts them: virtual devices (net v9+), each made of one or more physical ones.
// The table starts with one virtual device per physical device (same index), as NCCL's IB transport
// does; makeVirtual appends a fused one. It hands out the engine's DeviceProperties, whose strings
// must outlive the engine: each device's name and PCI path are stored once and never move.
// Thread-safe: NCCL calls devices/getProperties/makeVDevice from several communicators' init paths.
#pragma once

#include <cstddef>
#include <deque>
#include <mutex>
#include <span>
#include <vector>

#include "net_plugin/devices/device_list.h"
#include "net_plugin/devices/vdevice.h"
#include "net_plugin/engine.h"

namespace railtune::net {

// What the transport supports, the same for every device it carries; the transport sets these. The
// defaults are the ABI sheet's suggested getProperties values.
struct TransportLimits {
  unsigned pointerSupport = kPointerHost;
  int maxComms = 1 << 20;
  int maxRecvs = kMaxRecvs;
  size_t maxP2pBytes = size_t{1} << 40;   // NCCL_MAX_NET_SIZE_BYTES, the largest NCCL accepts
  size_t maxCollBytes = size_t{1} << 29;  // MAX_COLLNET_SIZE
  float latencyUs = 0.0f;
  bool regIsGlobal = false;  // a registration on one comm serves every comm (the verbs transport: one PD per port)
};

class DeviceTable {
 public:
  DeviceTable(std::vector<NetDevice> physical, const TransportLimits& limits);

  int count() const;                            // virtual devices
  DeviceProperties properties(int vdev) const;  // throws NetError(InvalidArgument) for an unknown index
  const NetDevice& device(int vdev) const;      // the merged view; same errors
  std::span<const NetDevice> physical() const { return physical_; }

  // NCCL's makeVDevice: fuses `members` (physical indexes) and returns the new virtual index. Throws
  // VirtualDeviceError (vdevice.h) when NCCL's limits refuse it; `maxMembers` is the ABI's (4 or 8).
  int makeVirtual(std::span<const int> members, size_t maxMembers);

 private:
  const VirtualDevice& entry(int vdev) const;

  std::vector<NetDevice> physical_;
  TransportLimits limits_;
  mutable std::mutex mutex_;
  std::deque<VirtualDevice> entries_;  // a deque: entries (and their names) stay put as it grows
};

}  // namespace railtune::net
