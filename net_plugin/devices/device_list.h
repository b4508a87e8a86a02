// The devices the net plugin offers NCCL, in railtune's own terms (the engine turns each into
// DeviceProperties). Where they come from, in order:
//   1. the rail map (RAILTUNE_RAIL_MAP) entry of this host (RAILTUNE_HOST, else NCCL_HOSTID, else the
//      hostname): one device per distinct HCA, in the map's GPU-then-rail order, named after the HCA;
//   2. otherwise discovered: each RDMA device with an ACTIVE port (its lowest one), with its netdev;
//   3. without RDMA hardware: plain network interfaces, chosen as NCCL's socket transport chooses them
//      (NCCL_SOCKET_IFNAME, else "ib*", else anything but docker*/lo/virbr*, else docker*, lo, virbr*).
// RDMA devices (1 and 2) are filtered by NCCL_IB_HCA with NCCL's syntax (formats/nccl_if_list.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/params.h"

namespace railtune::net {

inline constexpr int kUnknownSpeedMbps = 10000;  // NCCL's socket transport assumes 10 Gb/s when unknown

struct NetDevice {
  std::string name;       // the HCA ("mlx5_0") or, for a plain interface, the interface ("eth0")
  std::string netdev;     // the interface TCP traffic uses; "" when the HCA has none
  std::string ipv4;       // that interface's address; "" when it has none
  std::string pciPath;    // NCCL computes GPU-NIC distance from it; "" = virtual (NULL to NCCL)
  std::string linkLayer;  // "InfiniBand", "Ethernet" (RoCE); "" for a plain interface
  uint64_t guid = 0;      // sys_image_guid; for a plain interface its index, as NCCL's socket transport
  int port = 1;           // the HCA port; 0 for a plain interface
  int rail = -1;          // -1: unknown
  int plane = -1;         // -1: single plane / unknown
  int speedMbps = kUnknownSpeedMbps;
};

enum class DeviceSource { RailMap, Rdma, Interfaces };
const char* deviceSourceName(DeviceSource source);  // "rail map", "RDMA", "interfaces"

struct DeviceList {
  DeviceSource source = DeviceSource::Interfaces;
  std::vector<NetDevice> devices;
  std::vector<std::string> notes;  // INFO lines: where the devices came from, what was filtered and why
};

struct DeviceListOptions {
  std::string root = "/";   // sysfs root: "/" live, a fake tree in tests
  std::string addressFile;  // "": getifaddrs; else an address file (addresses.h)
  EnvLookup env = processEnv;
};

// Throws formats::RailMapError for a rail map that cannot be read, AddressFileError for a bad address
// file, std::runtime_error for a bad RAILTUNE_RAIL_MAP value: each message names the file and what.
DeviceList buildDeviceList(const DeviceListOptions& options);

// The address NCCL's IB transport would set its connections up through (its ncclIbIfAddr): the first
// interface with an IPv4 address that NCCL's socket rules choose (NCCL_SOCKET_IFNAME, else "ib*", else
// anything but docker*/lo/virbr*...). "" when there is none. Throws as buildDeviceList for a bad address file.
std::string outOfBandAddress(const DeviceListOptions& options);

}  // namespace railtune::net
