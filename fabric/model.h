// The fabric model: one cluster, described once, that every emitter (NCCL XML, rail map, labels,
// HyperNodes, Kueue, Slurm, launcher env) and every check reads. Sources (the YAML reader with its
// hardware profiles, discovery on a host) fill it; nothing downstream knows where a value came from
// except through `SourceLoc`, which lets `railtune topo check` point at the line that declared it.
//
// Vocabulary (rail-optimized NVL72 clusters):
//  - NVLink domain: the GPUs that share one NVLink fabric (an NVL72 rack; with MNNVL, NCCL's "node").
//  - host: one compute tray / OS instance (4 GPUs on GB200/GB300, 8 on DGX).
//  - rail r: the r-th NIC of every host; all rail-r NICs of a rail group hang off rail r's leaf.
//  - plane: a NIC port's independent network (CX8 can expose two planes per NIC); -1 = single plane.
//  - rail group: the set of racks whose NICs share one set of rail leaves (one leaf per rail, plane).
//  - spine: what joins the leaves of several rail groups.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace railtune::fabric {

// Where a value was declared: the YAML file and position, a profile data file, or "discovered".
struct SourceLoc {
  std::string file;         // "" = built in / computed
  int line = 0;             // 1-based; 0 = unknown
  int column = 0;           // 1-based; 0 = unknown
  std::string str() const;  // "file:line:column", or "file" or "(built-in)"
};

enum class CpuArch { X86_64, Arm64, Ppc64 };

struct Cpu {
  int numa = 0;
  CpuArch arch = CpuArch::Arm64;
  std::string vendor;    // "NVIDIA" (Grace), "GenuineIntel", "AuthenticAMD"
  std::string affinity;  // Linux cpumask string, "" = unknown
  int familyId = -1;     // x86 only; -1 = unset
  int modelId = -1;
  SourceLoc loc;
};

struct Gpu {
  int index = 0;      // CUDA/NVML index on the host
  std::string busId;  // "0000:01:00.0", lowercase, normalised by the reader
  int sm = 0;         // compute capability * 10: 90 (H100), 100 (B200/GB200), 103 (B300/GB300)
  int numa = 0;
  int nvlinks = 0;    // active NVLink links (NVL72: 18)
  int c2cLinks = 0;   // Grace C2C links (GB300: 5); 0 = no C2C
  int c2cBwMBps = 0;  // per C2C link, MB/s as NVML reports it (GB300: 44712)
  std::string model;  // "B300", for labels and messages
  SourceLoc loc;
};

struct Nic {
  std::string hca;     // RDMA device name as NCCL IB and railtune's net plugin report it: "mlx5_0"
  std::string netdev;  // "ibp3s0" / "eth2"; "" = unknown
  std::string busId;   // PCI function of the port
  int port = 1;        // IB port number
  int speedMbps = 0;   // per port: 400000 (NDR), 800000 (XDR)
  uint64_t guid = 0;   // node GUID of the NIC ASIC; 0 = unknown
  int rail = -1;       // -1 = not on a rail (an error for compute NICs)
  int plane = -1;      // -1 = single plane
  int numa = 0;
  int nearestGpu = -1;                   // index of the GPU sharing the NIC's PCI switch; -1 = none
  std::string linkLayer = "InfiniBand";  // or "Ethernet" (RoCE)
  int gidIndex = -1;  // the GID NCCL's IB transport would pick (IB: 0; RoCE: the first RoCE v2 IPv4 one); -1 = unknown
  std::string gid;    // that GID as sysfs prints it; its upper half is the IB subnet prefix, a RoCE
                      // v2 IPv4-mapped GID ends in the port's address; "" = unknown
  SourceLoc loc;
};

struct Host {
  std::string name;     // hostname = Kubernetes node name = Slurm NodeName
  std::string domain;   // NvlDomain::name
  int tray = 0;         // position in the domain (0-based)
  std::string profile;  // hardware profile it was expanded from, "" = declared fully
  std::vector<Cpu> cpus;
  std::vector<Gpu> gpus;
  std::vector<Nic> nics;  // compute NICs (the ones NCCL uses), ordered by rail then plane
  SourceLoc loc;
};

struct NvlDomain {
  std::string name;                // "rack-a01"
  std::string rack;                // physical rack id, "" = same as name
  std::string cliqueId;            // NVML clique id / GPU Feature Discovery `nvidia.com/gpu.clique` value; "" = unknown
  std::string railGroup;           // RailGroup::name
  std::vector<std::string> hosts;  // Host::name, tray order
  SourceLoc loc;
};

enum class SwitchTier { Leaf = 1, Spine = 2, Core = 3 };

struct Switch {
  std::string name;
  SwitchTier tier = SwitchTier::Leaf;
  int rail = -1;                // leaves: the rail they serve; -1 for spines/cores
  int plane = -1;               // leaves: the plane; -1 = single plane
  std::string railGroup;        // leaves: their rail group
  int speedGbps = 0;            // port speed
  std::vector<std::string> up;  // switches one tier up
  SourceLoc loc;
};

struct RailGroup {
  std::string name;  // "rg0"
  std::vector<std::string> domains;
  std::string spine;  // the spine (tier-2 switch or switch group name) joining it to others
  SourceLoc loc;
};

struct Network {
  int rails = 0;   // rails per host
  int planes = 1;  // planes per rail (1 = single plane)
  std::string linkLayer = "InfiniBand";
  // What the description says of the switches, for the QP policy (common/qp_policy.h); unset = unknown.
  std::optional<bool> adaptiveRouting;  // the switches route adaptively (Quantum AR, Spectrum-X RoCE AR)
  int trafficClass = -1;                // RoCE traffic class of the lossless class (DSCP x 4 + ECN bits); -1 unset
  int serviceLevel = -1;                // IB service level (the SL adaptive routing is enabled on); -1 unset
  std::vector<RailGroup> railGroups;
  std::vector<Switch> switches;  // leaves first, then spines, then cores
};

struct Fabric {
  std::string name;  // cluster name
  std::vector<NvlDomain> domains;
  std::vector<Host> hosts;  // domain order, then tray order
  Network network;
  SourceLoc loc;

  const Host* findHost(const std::string& name) const;
  const NvlDomain* findDomain(const std::string& name) const;
  const RailGroup* findRailGroup(const std::string& name) const;
  const Switch* leafFor(const std::string& railGroup, int rail, int plane) const;
};

// Canonical PCI bus id "dddd:bb:dd.f" (lowercase, 4-digit domain), or nullopt when not one.
std::optional<std::string> normalizeBusId(const std::string& text);

// True for a GID as sysfs prints it: 8 colon-separated groups of 4 hex digits.
bool isGidText(const std::string& text);

}  // namespace railtune::fabric
