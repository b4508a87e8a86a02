// GPUs of the discovered host: NVML is authoritative for what it reports (index, sm, NVLinks, C2C);
// hwloc adds the NUMA node and stands in for NVML where there is no driver (then sm and NVLinks are
// unknown unless a profile was named).
#include <algorithm>

#include "fabric/discover/assemble_parts.h"

namespace railtune::fabric::discover::detail {
namespace {

constexpr uint16_t kNvidia = 0x10de;

bool isGpu(const HwlocPciDevice& dev) {
  return dev.vendorId == kNvidia && (dev.classId == 0x0300 || dev.classId == 0x0302) && dev.subtype != "NVSwitch";
}

// "NVIDIA GB300" -> "GB300": the model name labels and messages use.
std::string shortModel(const std::string& name) {
  const std::string prefix = "NVIDIA ";
  return name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : name;
}

int numaOf(const Sources& sources, const std::string& busId, int fallback) {
  const HwlocPciDevice* dev = hwlocDevice(sources, busId);
  if (dev && dev->numa >= 0) return dev->numa;
  return fallback >= 0 ? fallback : 0;
}

std::vector<Gpu> fromNvml(const Sources& sources, Discovery& out) {
  std::vector<Gpu> gpus;
  for (const NvmlGpu& n : sources.nvml->gpus) {
    Gpu gpu;
    gpu.index = n.index;
    gpu.busId = n.busId;
    gpu.sm = n.sm;
    gpu.numa = numaOf(sources, n.busId, n.numa);
    gpu.nvlinks = n.nvlinksActive;
    gpu.c2cLinks = n.c2cLinks;
    gpu.c2cBwMBps = n.c2cBwMBps;
    gpu.model = shortModel(n.name);
    gpu.loc.file = "NVML";
    if (sources.hwloc && !hwlocDevice(sources, n.busId))
      add(out, Severity::Note, "GPU " + std::to_string(n.index) + " (" + n.busId + "): not in hwloc's PCI tree");
    gpus.push_back(gpu);
  }
  return gpus;
}

std::vector<Gpu> fromHwloc(const Sources& sources, const Profile* profile, Discovery& out) {
  std::vector<const HwlocPciDevice*> devices;
  for (const HwlocPciDevice& dev : sources.hwloc->pciDevices)
    if (isGpu(dev)) devices.push_back(&dev);
  std::sort(devices.begin(), devices.end(), [](auto* a, auto* b) { return a->busId < b->busId; });
  std::vector<Gpu> gpus;
  for (const HwlocPciDevice* dev : devices) {
    Gpu gpu;
    gpu.index = static_cast<int>(gpus.size());  // NVML numbers GPUs in PCI bus order
    gpu.busId = dev->busId;
    gpu.numa = dev->numa >= 0 ? dev->numa : 0;
    for (const HwlocOsDev& os : dev->osdevs)
      if (auto model = os.info.find("GPUModel"); model != os.info.end()) gpu.model = shortModel(model->second);
    if (profile) {
      gpu.sm = profile->gpu.sm;
      gpu.nvlinks = profile->gpu.nvlinks;
      gpu.c2cLinks = profile->gpu.c2cLinks;
      gpu.c2cBwMBps = profile->gpu.c2cBwMBps;
      if (gpu.model.empty()) gpu.model = profile->gpu.model;
    }
    gpu.loc.file = "hwloc";
    gpus.push_back(gpu);
  }
  if (!gpus.empty())
    add(out, profile ? Severity::Note : Severity::Warning,
        profile ? "no NVML: sm, NVLink and C2C counts are profile " + profile->name + "'s, not measured"
                : "no NVML: sm and NVLink counts unknown (0); pass --profile or run where the NVIDIA driver is "
                  "loaded, NCCL's topology file needs the sm");
  return gpus;
}

}  // namespace

std::vector<Gpu> assembleGpus(const Sources& sources, const Profile* profile, Discovery& out) {
  if (sources.nvml && sources.nvml->loaded && !sources.nvml->gpus.empty()) return fromNvml(sources, out);
  if (sources.hwloc) return fromHwloc(sources, profile, out);
  return {};
}

}  // namespace railtune::fabric::discover::detail
