// The device list from the rail map, and the order in which the sources are tried (see device_list.h).
#include "net_plugin/devices/device_list.h"

#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/identity.h"
#include "formats/rail_map.h"
#include "net_plugin/devices/device_sources.h"

namespace railtune::net {
namespace {

const RdmaDevice* findRdma(const std::vector<RdmaDevice>& rdma, const std::string& name) {
  for (const RdmaDevice& device : rdma) {
    if (device.name == name) return &device;
  }
  return nullptr;
}

const RdmaPort* findPort(const RdmaDevice* device, int number) {
  if (device == nullptr) return nullptr;
  for (const RdmaPort& port : device->ports) {
    if (port.number == number) return &port;
  }
  return nullptr;
}

// One map NIC as a device; sysfs supplies what the map does not carry (PCI path, GUID, link layer).
NetDevice deviceFromMapNic(const formats::RailMapNic& nic, const DeviceInputs& in, size_t index) {
  const RdmaDevice* sys = findRdma(in.rdma, nic.hca);
  const RdmaPort* port = findPort(sys, nic.port);
  NetDevice device;
  device.name = nic.hca;
  device.netdev = !nic.netdev.empty() || sys == nullptr || sys->netdevs.empty() ? nic.netdev : sys->netdevs.front();
  const auto address = in.addresses.find(device.netdev);
  if (address != in.addresses.end()) device.ipv4 = address->second;
  device.pciPath = sys != nullptr ? sys->pciPath : "";
  device.linkLayer = port != nullptr ? port->linkLayer : "";
  device.guid = sys != nullptr && sys->guid != 0 ? sys->guid : index;
  device.port = nic.port;
  device.rail = nic.rail;
  device.plane = nic.plane;
  device.speedMbps = nic.speedMbps > 0                        ? nic.speedMbps
                     : port != nullptr && port->speedMbps > 0 ? port->speedMbps
                                                              : kUnknownSpeedMbps;
  return device;
}

}  // namespace

const char* deviceSourceName(DeviceSource source) {
  switch (source) {
    case DeviceSource::RailMap:
      return "rail map";
    case DeviceSource::Rdma:
      return "RDMA";
    case DeviceSource::Interfaces:
      return "interfaces";
  }
  return "?";
}

void applyHcaRailPlane(const formats::NcclIfList& ibHca, int entry, NetDevice* device) {
  if (entry < 0) return;
  const formats::NcclIfEntry& chosen = ibHca.entries[static_cast<size_t>(entry)];
  if (device->rail < 0) device->rail = chosen.rail;
  if (device->plane < 0) device->plane = chosen.plane;
}

bool devicesFromRailMap(const DeviceInputs& in, DeviceList* out) {
  const ParamValue<std::string> path = readString("RAILTUNE_RAIL_MAP", in.options.env);
  if (!path.ok()) throw std::runtime_error(path.error);
  if (path.value.empty()) return out->notes.push_back("no rail map (RAILTUNE_RAIL_MAP unset)"), false;
  const formats::RailMap map = [&] {
    try {
      return formats::readRailMapFile(path.value);
    } catch (const formats::RailMapError& e) {  // the message names the file; say which variable named it
      std::vector<std::string> problems = e.problems();
      for (std::string& problem : problems) problem.insert(0, "RAILTUNE_RAIL_MAP: ");
      throw formats::RailMapError(std::move(problems));
    }
  }();
  const std::string host = resolveIdentity(in.options.env).host;
  const formats::RailMapHost* entry = map.findHost(host);
  if (entry == nullptr) {
    return out->notes.push_back("host '" + host + "' is not in the rail map " + path.value), false;
  }
  std::set<std::string> seen;
  for (const formats::RailMapGpu& gpu : entry->gpus) {
    for (const formats::RailMapNic& nic : gpu.nics) {
      if (!seen.insert(nic.hca).second) continue;
      const formats::NcclIfMatch match = formats::matchNcclIfList(in.ibHca, nic.hca, nic.port);
      if (!match.accepted) {
        out->notes.push_back(nic.hca + ":" + std::to_string(nic.port) + " left out by NCCL_IB_HCA");
        continue;
      }
      NetDevice device = deviceFromMapNic(nic, in, out->devices.size());
      applyHcaRailPlane(in.ibHca, match.entry, &device);
      out->devices.push_back(std::move(device));
    }
  }
  out->source = DeviceSource::RailMap;
  out->notes.push_back("devices of host '" + host + "' from the rail map " + path.value);
  return true;
}

DeviceList buildDeviceList(const DeviceListOptions& options) {
  const AddressTable addresses =
      options.addressFile.empty() ? readLiveAddresses() : readAddressFile(options.addressFile);
  const formats::NcclIfList ibHca =
      formats::parseNcclIfList(options.env("NCCL_IB_HCA").value_or(""), formats::kMaxIbHcaEntries);
  const std::vector<RdmaDevice> rdma = readRdmaDevices(options.root);
  const DeviceInputs in{options, addresses, ibHca, rdma};
  DeviceList list;
  if (!devicesFromRailMap(in, &list) && !devicesFromRdma(in, &list)) devicesFromInterfaces(in, &list);
  return list;
}

std::string outOfBandAddress(const DeviceListOptions& options) {
  const AddressTable addresses =
      options.addressFile.empty() ? readLiveAddresses() : readAddressFile(options.addressFile);
  const formats::NcclIfList noFilter = formats::parseNcclIfList("", formats::kMaxIbHcaEntries);
  const std::vector<RdmaDevice> noRdma;
  const DeviceInputs in{options, addresses, noFilter, noRdma};
  DeviceList list;
  devicesFromInterfaces(in, &list);
  for (const NetDevice& device : list.devices)
    if (!device.ipv4.empty()) return device.ipv4;
  return "";
}

}  // namespace railtune::net
