// Text forms of NVML's fabric data: the cluster UUID and the clique label GPU Feature Discovery writes.
#include "fabric/discover/nvml_source.h"

namespace railtune::fabric::discover {

std::string formatClusterUuid(const unsigned char (&uuid)[16]) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  for (size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    text += kDigits[uuid[i] >> 4];
    text += kDigits[uuid[i] & 0xf];
  }
  return text;
}

bool isZeroClusterUuid(const std::string& clusterUuid) {
  return clusterUuid.find_first_not_of("0-") == std::string::npos;
}

// GFD labels a node only for a GPU that go-nvlib calls fabric-attached: registration completed, a
// non-zero cluster UUID and a successful registration status; otherwise it writes no label at all.
std::string cliqueLabel(const NvmlGpu& gpu) {
  constexpr int kFabricStateCompleted = 3;
  if (!gpu.fabricInfo || gpu.fabricState != kFabricStateCompleted || gpu.fabricStatus != 0) return "";
  if (gpu.clusterUuid.empty() || isZeroClusterUuid(gpu.clusterUuid)) return "";
  return gpu.clusterUuid + "." + std::to_string(gpu.cliqueId);
}

}  // namespace railtune::fabric::discover
