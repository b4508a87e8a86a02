// What discovery reads on one host, before it becomes part of the fabric model. Each source (an
// hwloc topology, the sysfs RDMA and network classes, NVML) fills its own record; `assemble.h`
// joins them into a fabric::Host. Keeping the raw records separate lets tests feed each source
// from a fixture (hwloc XML, a fake sysfs tree, a fake NVML library) and lets `railtune topo
// discover --report` show exactly what each source said.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace railtune::fabric::discover {

// ---- hwloc (hwloc_source.h) ----------------------------------------------------------------------

enum class OsDevKind { Gpu, Coproc, Network, OpenFabrics, Storage, Dma, Other };

struct HwlocOsDev {
  std::string name;                         // "nvml0", "cuda0", "mlx5_0", "ib0"
  OsDevKind kind = OsDevKind::Other;        // from osdev_type (2.x enum or 3.0 bitmask)
  std::map<std::string, std::string> info;  // <info name= value=/>: Backend, GPUModel, NodeGUID...
};

struct HwlocPciDevice {
  std::string busId;      // normalised "dddd:bb:dd.f"
  uint16_t classId = 0;   // class and subclass: 0x0302 3D controller, 0x0207 IB, 0x0200 eth
  uint16_t vendorId = 0;  // 0x10de NVIDIA, 0x15b3 Mellanox
  uint16_t deviceId = 0;
  std::string subtype;                // hwloc's `subtype` attribute ("NVSwitch"), "" = none
  double linkGBps = 0;                // pci_link_speed
  int numa = -1;                      // os_index of the first NUMA node local to it; -1 = unknown
  std::vector<std::string> upstream;  // bridges above it, host bridge first; opaque keys that are equal
                                      // for the same bridge (two devices share a PCI switch when their
                                      // upstream lists share an element past the host bridge)
  std::vector<HwlocOsDev> osdevs;
};

struct HwlocNuma {
  int osIndex = 0;
  std::string cpumap;  // Linux cpumap form, as /sys/devices/system/node/nodeN/cpumap: "ffffffff,ffffffff"
};

struct HwlocPackage {
  int osIndex = 0;
  std::vector<int> numas;  // NUMA os_index values inside the package
  std::string vendor;      // CPUVendor: "GenuineIntel", "AuthenticAMD", "NVIDIA" (Grace reports "NVIDIA"
                           // or is derived from the ARM implementer), "" = unknown
  std::string model;       // CPUModel
  int familyId = -1;       // CPUFamilyNumber, x86 only
  int modelId = -1;        // CPUModelNumber, x86 only
};

struct HwlocTopology {
  std::string version;       // topology version attribute: "2.0", "3.0"
  std::string architecture;  // info "Architecture" of the Machine: "x86_64", "aarch64"; "" = unknown
  std::string product;       // info "DMIProductName", "" = unknown
  std::vector<HwlocPackage> packages;
  std::vector<HwlocNuma> numas;
  std::vector<HwlocPciDevice> pciDevices;  // in document order
  std::vector<std::string> warnings;       // "source:line:column: ..." for what was left out but is no error
};

// ---- sysfs (sysfs_source.h) ----------------------------------------------------------------------

struct GidEntry {
  int index = 0;
  std::string gid;     // "fe80:0000:0000:0000:b83f:d203:00a1:b2c3" as sysfs prints it
  std::string type;    // gid_attrs/types/N: "IB/RoCE v1", "RoCE v2"; "" = unreadable (hidden in a container)
  std::string netdev;  // gid_attrs/ndevs/N, "" = none
};

struct RdmaPort {
  int port = 1;
  std::string state;           // "ACTIVE", "DOWN", ... (the word after "N: " in ports/P/state)
  std::string linkLayer;       // "InfiniBand" or "Ethernet"
  int rateMbps = 0;            // ports/P/rate "400 Gb/sec (4X NDR)" -> 400000; 0 = unknown
  std::string rateText;        // the rate line as read
  std::vector<GidEntry> gids;  // non-zero GIDs only
};

struct RdmaDevice {
  std::string name;                   // "mlx5_0"
  std::string busId;                  // PCI function of device/, "" = not PCI (soft RoCE, ...)
  std::vector<std::string> upstream;  // PCI bridges above it from the realpath of device/, host bridge first
  int numa = -1;                      // device/numa_node; -1 = unknown
  uint16_t vendorId = 0, deviceId = 0;
  uint64_t nodeGuid = 0;             // node_guid
  uint64_t sysImageGuid = 0;         // sys_image_guid: equal on the planes of one multi-plane NIC
  std::string boardId, fwVersion;    // board_id, fw_ver
  std::vector<std::string> netdevs;  // device/net/*
  std::vector<RdmaPort> ports;
};

struct NetDevice {
  std::string name;       // "ibp3s0", "eth0"
  std::string busId;      // "" = virtual
  int speedMbps = -1;     // speed; -1 = unknown
  std::string operstate;  // "up", "down", ...
  std::string address;    // hardware address
  int type = 0;           // ARPHRD: 1 Ethernet, 32 InfiniBand
  int mtu = 0;
};

struct SysfsInventory {
  std::vector<RdmaDevice> rdma;    // sorted by name
  std::vector<NetDevice> net;      // sorted by name
  std::vector<std::string> notes;  // what could not be read, one line each ("mlx5_2: ports/1/rate: ...")
};

// ---- NVML (nvml_source.h) ------------------------------------------------------------------------

struct NvmlGpu {
  int index = 0;
  std::string busId;  // normalised
  std::string name;   // "NVIDIA GB300"
  std::string uuid;   // "GPU-..."
  int sm = 0;         // compute capability * 10
  int numa = -1;
  int nvlinksActive = 0;  // links reporting NVML_FEATURE_ENABLED
  int nvlinksProbed = 0;  // links NVML answered for
  int c2cLinks = 0;       // 0 = none or unknown
  int c2cBwMBps = 0;
  bool fabricInfo = false;  // nvmlDeviceGetGpuFabricInfo(V) answered
  std::string clusterUuid;  // canonical lowercase 8-4-4-4-12; all zero = not in an NVLink fabric
  uint32_t cliqueId = 0;
  int fabricState = 0;      // 0 not supported, 1 not started, 2 in progress, 3 completed
  int fabricStatus = 0;     // nvmlReturn_t of the fabric registration (0 = success)
  uint32_t healthMask = 0;  // V2 only; 0 = healthy or unknown
};

struct NvmlInventory {
  bool loaded = false;  // the library opened and nvmlInit succeeded
  std::string library;  // what was opened
  std::string error;    // why not loaded, "" when loaded
  std::string driverVersion;
  std::vector<NvmlGpu> gpus;
  std::vector<std::string> notes;  // calls that failed, one line each
};

}  // namespace railtune::fabric::discover
