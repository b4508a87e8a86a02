// The three sources of device_list.h, one function each (device_list.cc, device_discover.cc).
#pragma once

#include <string>
#include <vector>

#include "formats/nccl_if_list.h"
#include "net_plugin/devices/addresses.h"
#include "net_plugin/devices/device_list.h"
#include "net_plugin/devices/sysfs.h"

namespace railtune::net {

struct DeviceInputs {
  const DeviceListOptions& options;
  const AddressTable& addresses;
  const formats::NcclIfList& ibHca;  // NCCL_IB_HCA
  const std::vector<RdmaDevice>& rdma;
};

// Each returns false (and adds a note saying why) when its source does not apply.
bool devicesFromRailMap(const DeviceInputs& in, DeviceList* out);
bool devicesFromRdma(const DeviceInputs& in, DeviceList* out);
void devicesFromInterfaces(const DeviceInputs& in, DeviceList* out);

// The first NCCL_IB_HCA entry's rail/plane fill in what the source left unknown (NCCL 2.30's syntax).
void applyHcaRailPlane(const formats::NcclIfList& ibHca, int entry, NetDevice* device);

}  // namespace railtune::net
