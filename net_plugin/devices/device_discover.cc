// Discovered devices: RDMA devices from sysfs, else plain network interfaces chosen as NCCL's socket
// transport chooses them (see device_list.h).
#include <string>
#include <vector>

#include "net_plugin/devices/device_sources.h"

namespace railtune::net {
namespace {

const RdmaPort* firstUsablePort(const RdmaDevice& device, const formats::NcclIfList& ibHca, int* entry) {
  for (const RdmaPort& port : device.ports) {
    // NCCL keeps ACTIVE ports with an InfiniBand or Ethernet link layer that pass NCCL_IB_HCA.
    if (!port.active || (port.linkLayer != "InfiniBand" && port.linkLayer != "Ethernet")) continue;
    const formats::NcclIfMatch match = formats::matchNcclIfList(ibHca, device.name, port.number);
    if (match.accepted) return *entry = match.entry, &port;
  }
  return nullptr;
}

bool anyActivePort(const std::vector<RdmaDevice>& rdma) {
  for (const RdmaDevice& device : rdma) {
    for (const RdmaPort& port : device.ports) {
      if (port.active) return true;
    }
  }
  return false;
}

std::string addressOf(const AddressTable& addresses, const std::string& netdev) {
  const auto it = addresses.find(netdev);
  return it == addresses.end() ? std::string() : it->second;
}

// The interfaces passing one NCCL interface list that are up and have an IPv4 address.
std::vector<NetInterface> pickInterfaces(const std::vector<NetInterface>& all, const AddressTable& addresses,
                                         const std::string& list) {
  const formats::NcclIfList filter = formats::parseNcclIfList(list, formats::kMaxSocketIfEntries);
  std::vector<NetInterface> picked;
  for (const NetInterface& netIf : all) {
    if (picked.size() == formats::kMaxSocketIfEntries) break;
    if (netIf.operstate == "down" || addressOf(addresses, netIf.name).empty()) continue;
    if (formats::matchNcclIfList(filter, netIf.name, -1).accepted) picked.push_back(netIf);
  }
  return picked;
}

}  // namespace

bool devicesFromRdma(const DeviceInputs& in, DeviceList* out) {
  if (!anyActivePort(in.rdma)) return out->notes.push_back("no active RDMA port"), false;
  for (const RdmaDevice& sys : in.rdma) {
    int entry = -1;
    const RdmaPort* port = firstUsablePort(sys, in.ibHca, &entry);
    if (port == nullptr) {
      out->notes.push_back(sys.name + ": no active port passing NCCL_IB_HCA");
      continue;
    }
    NetDevice device;
    device.name = sys.name;
    device.netdev = sys.netdevs.empty() ? "" : sys.netdevs.front();
    device.ipv4 = addressOf(in.addresses, device.netdev);
    device.pciPath = sys.pciPath;
    device.linkLayer = port->linkLayer;
    device.guid = sys.guid;
    device.port = port->number;
    device.speedMbps = port->speedMbps > 0 ? port->speedMbps : kUnknownSpeedMbps;
    applyHcaRailPlane(in.ibHca, entry, &device);
    out->devices.push_back(std::move(device));
  }
  out->source = DeviceSource::Rdma;
  out->notes.push_back("devices discovered from the RDMA devices in sysfs");
  return true;
}

void devicesFromInterfaces(const DeviceInputs& in, DeviceList* out) {
  const std::vector<NetInterface> all = readNetInterfaces(in.options.root);
  const std::string userList = in.options.env("NCCL_SOCKET_IFNAME").value_or("");
  std::vector<NetInterface> picked;
  if (userList.size() > 1) {  // NCCL ignores a one-character NCCL_SOCKET_IFNAME
    picked = pickInterfaces(all, in.addresses, userList);
    out->notes.push_back("interfaces chosen by NCCL_SOCKET_IFNAME=" + userList);
  } else {
    // NCCL's order without NCCL_SOCKET_IFNAME (its NCCL_COMM_ID subnet match is not repeated here).
    for (const char* list : {"ib", "^docker,lo,virbr", "docker", "lo", "virbr"}) {
      picked = pickInterfaces(all, in.addresses, list);
      if (!picked.empty()) {
        out->notes.push_back(std::string("interfaces chosen by NCCL's default list '") + list + "'");
        break;
      }
    }
  }
  for (const NetInterface& netIf : picked) {
    NetDevice device;
    device.name = netIf.name;
    device.netdev = netIf.name;
    device.ipv4 = addressOf(in.addresses, netIf.name);
    device.pciPath = netIf.pciPath;
    device.guid = out->devices.size();
    device.port = 0;
    device.speedMbps = netIf.speedMbps > 0 ? netIf.speedMbps : kUnknownSpeedMbps;
    out->devices.push_back(std::move(device));
  }
  out->source = DeviceSource::Interfaces;
}

}  // namespace railtune::net
