// NVLink fabric state of the discovered host, as NVML reports it, and the node's
// `nvidia.com/gpu.clique` label checked against it. railtune reads that label and never writes it:
// GPU Feature Discovery owns it and writes "<ClusterUUID>.<CliqueID>" once fabric registration
// completed. A stale or missing label sends Kueue/Volcano placement by clique to the wrong racks.
#include <set>

#include "fabric/discover/assemble_parts.h"
#include "fabric/discover/nvml_source.h"

namespace railtune::fabric::discover::detail {
namespace {

constexpr int kFabricNotSupported = 0, kFabricCompleted = 3;

std::string gpuName(const NvmlGpu& gpu) {
  return "GPU " + std::to_string(gpu.index) + " (" + gpu.busId + ")";
}

// NVML's health mask packs 2-bit fields (value 1 = the condition holds): degraded bandwidth at bit 0,
// route recovery in progress at bit 2, route unhealthy at bit 4, access timeout recovery at bit 6.
std::string healthProblems(uint32_t mask) {
  static const char* const kFields[] = {"degraded NVLink bandwidth", "route recovery in progress", "route unhealthy",
                                        "access timeout recovery"};
  std::string problems;
  for (unsigned field = 0; field < 4; ++field)
    if (((mask >> (2 * field)) & 0x3u) == 1) problems += (problems.empty() ? "" : ", ") + std::string(kFields[field]);
  return problems;
}

std::string stateName(int state) {
  switch (state) {
    case 1:
      return "not started";
    case 2:
      return "in progress";
    default:
      return "state " + std::to_string(state);
  }
}

// The clique of one GPU, with findings about its registration; "" when it has none.
std::string gpuClique(const NvmlGpu& gpu, Discovery& out) {
  if (!gpu.fabricInfo || gpu.fabricState == kFabricNotSupported) return "";
  if (gpu.fabricState != kFabricCompleted) {
    add(out, Severity::Warning,
        gpuName(gpu) + ": NVLink fabric registration " + stateName(gpu.fabricState) +
            ": NCCL runs without MNNVL/NVLS until Fabric Manager (IMEX) completes it");
    return "";
  }
  if (gpu.fabricStatus != 0) {
    add(out, Severity::Error,
        gpuName(gpu) + ": NVLink fabric registration failed (NVML status " + std::to_string(gpu.fabricStatus) + ")");
    return "";
  }
  if (const std::string problems = healthProblems(gpu.healthMask); !problems.empty())
    add(out, Severity::Warning, gpuName(gpu) + ": NVLink fabric health: " + problems);
  return cliqueLabel(gpu);  // GPU Feature Discovery's rule, so the label check compares like with like
}

void checkLabel(const std::string& clique, const DiscoverOptions& options, Discovery& out) {
  if (!options.cliqueLabelGiven) return;
  const std::string& label = options.cliqueLabel;
  if (label == clique) {
    if (!clique.empty()) add(out, Severity::Note, "nvidia.com/gpu.clique matches NVML: " + clique);
  } else if (label.empty()) {
    add(out, Severity::Warning,
        "node has no nvidia.com/gpu.clique label but NVML reports clique " + clique +
            ": is GPU Feature Discovery running? (railtune does not write the label)");
  } else if (clique.empty()) {
    add(out, Severity::Warning,
        "nvidia.com/gpu.clique is " + label + " but NVML reports no completed NVLink fabric: the label is stale");
  } else {
    add(out, Severity::Error,
        "nvidia.com/gpu.clique is " + label + " but NVML reports " + clique +
            ": the label is stale or belongs to another node");
  }
}

}  // namespace

std::string assembleClique(const Sources& sources, const DiscoverOptions& options, Discovery& out) {
  std::set<std::string> cliques;
  if (sources.nvml && sources.nvml->loaded)
    for (const NvmlGpu& gpu : sources.nvml->gpus)
      if (std::string clique = gpuClique(gpu, out); !clique.empty()) cliques.insert(clique);
  if (cliques.size() > 1) {
    std::string list;
    for (const std::string& c : cliques) list += (list.empty() ? "" : ", ") + c;
    add(out, Severity::Error, "GPUs of this host report different NVLink cliques: " + list);
  }
  const std::string clique = cliques.size() == 1 ? *cliques.begin() : "";
  checkLabel(clique, options, out);
  return clique;
}

}  // namespace railtune::fabric::discover::detail
