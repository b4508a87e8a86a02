// Which built-in hardware profile (emulator/data/graphs/) models a GPU, by the name NCCL's and
// nccl-tests' device lines print (cudaDeviceProp::name).
#include <string_view>

#include "emulator/nccl_model/terms.h"

namespace railtune::ncclmodel {
namespace {

struct GpuProfile {
  std::string_view gpu;  // without the "NVIDIA " prefix
  std::string_view profile;
};

// Exact names only: an H100 PCIe or H100 NVL card has no NVSwitch, and an H200 has other NVLink
// speeds, so neither is a DGX H100 to NCCL's search. "H100 80GB HBM3" is the SXM module the DGX uses.
constexpr GpuProfile kGpuProfiles[] = {
    {"GB300", "gb300-nvl72"},       {"GB200", "gb200-nvl72"}, {"B200", "dgx-b200"},
    {"H100 80GB HBM3", "dgx-h100"}, {"H100", "dgx-h100"},
};
constexpr std::string_view kVendorPrefix = "NVIDIA ";

}  // namespace

std::optional<std::string> profileForGpu(const std::string& gpuName) {
  std::string_view name = gpuName;
  if (name.substr(0, kVendorPrefix.size()) == kVendorPrefix) name.remove_prefix(kVendorPrefix.size());
  for (const GpuProfile& g : kGpuProfiles)
    if (g.gpu == name) return std::string(g.profile);
  return std::nullopt;
}

std::optional<std::string> gpuForProfile(const std::string& profile) {
  for (const GpuProfile& g : kGpuProfiles)
    if (g.profile == profile) return std::string(kVendorPrefix) + std::string(g.gpu);
  return std::nullopt;
}

}  // namespace railtune::ncclmodel
