// The NVML source of `railtune topo discover`: per GPU its PCI bus id, name, UUID, compute capability,
// active NVLinks, C2C links and the GPU fabric info (cluster UUID, clique id, state, health) that
// NCCL's MNNVL and GPU Feature Discovery's `nvidia.com/gpu.clique` label come from.
//
// NVML is opened with dlopen (never linked), so the CLI runs on hosts without an NVIDIA driver; every
// entry point is looked up on its own and a missing or failing one leaves its datum unknown and adds
// a note, never an error. Only a missing library or a failed nvmlInit makes `loaded` false.
#pragma once

#include <cstdint>
#include <string>

#include "fabric/discover/inventory.h"

namespace railtune::fabric::discover {

inline constexpr const char* kNvmlDefaultLibrary = "libnvidia-ml.so.1";

// `library` non-empty: that file; else RAILTUNE_NVML_LIBRARY; else libnvidia-ml.so.1. NvmlGpu::numa is
// left at -1: NVML is not asked, hwloc gives each GPU's NUMA node.
NvmlInventory readNvml(const std::string& library);

// NVML's 16-byte cluster UUID as lowercase 8-4-4-4-12 text.
std::string formatClusterUuid(const unsigned char (&uuid)[16]);
bool isZeroClusterUuid(const std::string& clusterUuid);

// What GPU Feature Discovery writes as `nvidia.com/gpu.clique`: "<clusterUuid>.<cliqueId>" when the
// GPU's fabric registration is completed (state 3) and its cluster UUID is not all zero, else "".
std::string cliqueLabel(const NvmlGpu& gpu);

}  // namespace railtune::fabric::discover
