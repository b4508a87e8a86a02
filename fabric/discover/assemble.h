// Joins what discovery read on one host (hwloc, sysfs, NVML: inventory.h) into the fabric model: a
// one-domain, one-host Fabric in the full form, plus findings that say what was guessed, skipped or
// looks wrong. Pure: no I/O, so every rule is tested from fixtures.
//
// Rules (docs/fabric.md, "Discovery"):
//  - GPUs: NVML's list when NVML loaded (its index, sm, NVLinks, C2C, fabric), else hwloc's NVIDIA
//    display/3D controllers in bus order; NUMA from hwloc, else NVML.
//  - NICs: RDMA devices from sysfs (else hwloc's OpenFabrics devices). Devices with one system image
//    GUID (or one PCI device) are the planes of one physical NIC.
//  - Nearest GPU: the GPU sharing the deepest PCI switch with the NIC; with none (GB200: GPUs hang off
//    Grace by C2C) the k-th NIC of a NUMA node pairs with the k-th GPU of that node.
//  - Compute NICs (the ones NCCL should use): `hcas` when given; else those sharing a PCI switch with
//    a GPU; else the NIC model (PCI device id) whose count matches the GPUs. Others are reported.
//  - Rails: compute NICs ordered by nearest GPU, then bus id; rail r = r-th. Planes: a NIC's devices in
//    function order, plane -1 when every NIC has one device.
#pragma once

#include <string>
#include <vector>

#include "fabric/discover/inventory.h"
#include "fabric/model.h"

namespace railtune::fabric::discover {

struct DiscoverOptions {
  std::string host;               // host name (required)
  std::string domain;             // "" = from the NVLink clique, else the host name
  std::string rack;               // "" = the domain name
  std::string profile;            // "" = guessed from the GPUs (sm, C2C, count); "none" = no profile
  std::vector<std::string> hcas;  // explicit compute NICs (RDMA device names), "" = rules above
  std::string cliqueLabel;        // nvidia.com/gpu.clique as read from the node; "" = not given
  bool cliqueLabelGiven = false;  // the label was looked for (absent label = "" and given)
};

enum class Severity { Note, Warning, Error };

struct Finding {
  Severity severity = Severity::Note;
  std::string text;
};

struct Sources {
  const HwlocTopology* hwloc = nullptr;  // nullptr = not read
  const SysfsInventory* sysfs = nullptr;
  const NvmlInventory* nvml = nullptr;
};

struct Discovery {
  Fabric fabric;                  // one domain, one host (empty host lists when nothing was found)
  std::vector<Finding> findings;  // in the order they were made
  bool hasErrors() const;
};

Discovery assembleHost(const Sources& sources, const DiscoverOptions& options);

// The profile a host's GPUs suggest: sm 103 with C2C -> gb300-nvl72, sm 100 with C2C -> gb200-nvl72,
// 8 x sm 90 -> dgx-h100, 8 x sm 100 -> dgx-b200; "" when none fits.
std::string guessProfile(const std::vector<Gpu>& gpus);

}  // namespace railtune::fabric::discover
