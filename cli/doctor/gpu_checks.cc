#include "cli/doctor/gpu_checks.h"

#include <set>

#include "common/params.h"
#include "fabric/discover/nvml_source.h"

namespace railtune::cli::doctor {
namespace {

namespace discover = fabric::discover;

const char* stateName(int state) {
  switch (state) {
    case 1:
      return "not started";
    case 2:
      return "in progress";
    case 3:
      return "completed";
  }
  return "not supported";
}

void checkFabric(const discover::NvmlInventory& nvml, Report& report) {
  std::vector<std::string> failed, pending, degraded;
  std::set<std::string> cliques;
  int inFabric = 0;
  for (const discover::NvmlGpu& gpu : nvml.gpus) {
    const std::string name = "GPU " + std::to_string(gpu.index);
    if (!gpu.fabricInfo || gpu.fabricState == 0) continue;
    ++inFabric;
    if (gpu.fabricState != 3)
      pending.push_back(name + " " + stateName(gpu.fabricState));
    else if (gpu.fabricStatus != 0)
      failed.push_back(name + " status " + std::to_string(gpu.fabricStatus));
    else if (gpu.healthMask != 0)
      degraded.push_back(name + " health mask " + std::to_string(gpu.healthMask));
    const std::string clique = discover::cliqueLabel(gpu);
    if (!clique.empty()) cliques.insert(clique);
  }
  const bool mnnvlForced = processEnv("NCCL_MNNVL_ENABLE").value_or("") == "1";
  auto list = [](const std::vector<std::string>& v) {
    std::string out;
    for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
  };
  if (inFabric == 0) {
    report.add("gpu.fabric", mnnvlForced ? Status::Fail : Status::Skip,
               "no GPU is in a multi-node NVLink fabric (fabric state not supported)",
               mnnvlForced ? "unset NCCL_MNNVL_ENABLE: this host has no NVLink fabric" : "");
  } else if (!failed.empty()) {
    report.add("gpu.fabric", Status::Fail, "NVLink fabric registration failed: " + list(failed),
               "check nvidia-fabricmanager / the NVLink switch trays and `nvidia-smi -q | grep -A4 Fabric`; NCCL runs "
               "without MNNVL");
  } else if (!pending.empty() || !degraded.empty()) {
    report.add(
        "gpu.fabric", Status::Warn,
        "NVLink fabric: " + list(pending) + (pending.empty() || degraded.empty() ? "" : ", ") + list(degraded),
        "wait for registration to complete (NCCL disables MNNVL until then) and check link health with nvidia-smi");
  } else if (cliques.size() > 1) {
    report.add("gpu.fabric", Status::Warn,
               "GPUs report " + std::to_string(cliques.size()) +
                   " different cliques: " + list({cliques.begin(), cliques.end()}),
               "the tray's GPUs should share one NVLink clique: check the fabric partition");
  } else {
    report.add("gpu.fabric", Status::Ok,
               std::to_string(inFabric) + " GPU(s) registered with the NVLink fabric, clique " +
                   (cliques.empty() ? std::string("none") : *cliques.begin()));
  }
}

}  // namespace

void checkGpus(const DoctorOptions& options, Report& report) {
  if (options.noNvml) {
    report.add("gpu.nvml", Status::Skip, "NVML not read (--no-nvml)");
    return;
  }
  const discover::NvmlInventory nvml = discover::readNvml(options.nvmlLibrary);
  if (!nvml.loaded) {
    report.add("gpu.nvml", Status::Skip, "NVML not present: " + nvml.error);
    return;
  }
  if (nvml.gpus.empty()) {
    report.add("gpu.nvml", Status::Skip, "NVML " + nvml.library + " (driver " + nvml.driverVersion + ") lists no GPU");
    return;
  }
  report.add("gpu.nvml", Status::Ok,
             "driver " + nvml.driverVersion + ", " + std::to_string(nvml.gpus.size()) +
                 " GPU(s): " + nvml.gpus.front().name + (nvml.notes.empty() ? "" : "; " + nvml.notes.front()));
  checkFabric(nvml, report);
}

}  // namespace railtune::cli::doctor
