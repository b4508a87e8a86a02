#include "doctor/gpu_checks.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <set>

#include "common/params.h"
#include "common/regular_file.h"
#include "doctor/elf_info.h"
#include "doctor/nvml_probe.h"
#include "fabric/discover/nvml_source.h"

namespace railtune::doctor {
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

// The NVML library doctor loads, and whether the user named it (--nvml-library, RAILTUNE_NVML_LIBRARY):
// a library the user named that does not load is a failure; the default one missing only means no
// NVIDIA driver here.
struct NvmlChoice {
  std::string library;
  std::string origin;  // "--nvml-library PATH", "RAILTUNE_NVML_LIBRARY=PATH", "libnvidia-ml.so.1"
  bool named = false;
};

NvmlChoice chooseNvml(const DoctorOptions& options) {
  if (!options.nvmlLibrary.empty()) return {options.nvmlLibrary, "--nvml-library " + options.nvmlLibrary, true};
  const ParamValue<std::string> fromEnv = readString("RAILTUNE_NVML_LIBRARY");
  if (fromEnv.ok() && !fromEnv.value.empty()) return {fromEnv.value, "RAILTUNE_NVML_LIBRARY=" + fromEnv.value, true};
  return {discover::kNvmlDefaultLibrary, discover::kNvmlDefaultLibrary, false};
}

constexpr const char* kNamedFix =
    "point --nvml-library (or RAILTUNE_NVML_LIBRARY) at the driver's libnvidia-ml.so.1, or leave both unset";

// A path the user named is looked at before anything loads it: what is not there, not a regular file
// (a FIFO would block the loader's open forever), or whose ELF header does not fit this machine is
// refused by name. Returns the refusal, or the ELF reader's complaint about the rest of the file in
// `damage` (a truncated copy) and nullopt: such a file is still loaded, in the child, to see what the
// loader does with it. Names without a '/' are found by the loader's search path: nothing to stat.
std::optional<std::string> refuseBeforeLoad(const NvmlChoice& choice, const Platform& platform, std::string& damage) {
  if (choice.library.find('/') == std::string::npos) return std::nullopt;
  struct stat st {};
  if (::stat(choice.library.c_str(), &st) != 0) return "cannot load " + choice.origin + ": " + std::strerror(errno);
  if (!S_ISREG(st.st_mode))
    return choice.origin + ": " + choice.library + " is " + fileTypeName(st.st_mode) +
           ", not a regular file; not loaded";
  const ElfInfo elf = readElfFile(choice.library);
  if (auto mismatch = elfHeaderMismatch(choice.library, elf, platform)) return choice.origin + ": " + *mismatch;
  damage = elf.error;
  return std::nullopt;
}

void reportInventory(const NvmlChoice& choice, const discover::NvmlInventory& nvml, Report& report) {
  if (!nvml.loaded) {
    if (choice.named)
      report.add("gpu.nvml", Status::Fail, choice.origin + ": " + nvml.error,
                 "the library loaded but NVML did not start: check that the NVIDIA driver is loaded (nvidia-smi) and, "
                 "in a container, that the GPUs are passed in; or " +
                     std::string(kNamedFix));
    else
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

// The child's end when it did not answer with an inventory: crashed or timed out, dlopen failed, or an
// answer that cannot be read. Returns whether it reported one of these.
bool reportLoadProblem(const NvmlChoice& choice, const NvmlLoad& load, const std::string& damage, int timeoutSeconds,
                       Report& report) {
  const std::string damageNote = damage.empty() ? "" : " (ELF: " + damage + ")";
  if (!load.probe.finished() || load.probe.exitCode != 0) {
    report.add("gpu.nvml", Status::Fail,
               "loading NVML " + choice.origin + " in a child process: the child " +
                   load.probe.describeEnd(timeoutSeconds) + damageNote,
               choice.named ? "the file is damaged (a truncated copy makes ld.so crash) or hangs in nvmlInit: "
                              "point --nvml-library (or RAILTUNE_NVML_LIBRARY) at a working libnvidia-ml.so.1"
                            : "the driver's NVML is damaged or hangs in nvmlInit: reinstall the NVIDIA driver "
                              "(nvidia-smi should answer), or pass --no-nvml");
  } else if (!load.dlopenError.empty() && choice.named) {
    report.add("gpu.nvml", Status::Fail, "cannot load " + choice.origin + ": " + load.dlopenError + damageNote,
               kNamedFix);
  } else if (!load.dlopenError.empty()) {
    report.add("gpu.nvml", Status::Skip,
               "NVML not present: the loader finds no " + choice.library + " (" + load.dlopenError +
                   "): no NVIDIA driver on this host?");
  } else if (!load.inventory) {
    report.add("gpu.nvml", Status::Fail, "reading NVML " + choice.origin + " in a child process: " + load.answerError,
               kNamedFix);
  } else {
    return false;
  }
  return true;
}

}  // namespace

void checkGpus(const DoctorOptions& options, const Platform& platform, Report& report) {
  if (options.noNvml) {
    report.add("gpu.nvml", Status::Skip, "NVML not read (--no-nvml)");
    return;
  }
  const NvmlChoice choice = chooseNvml(options);
  std::string damage;
  if (const auto refusal = refuseBeforeLoad(choice, platform, damage)) {
    report.add("gpu.nvml", Status::Fail, *refusal, kNamedFix);
    return;
  }
  const NvmlLoad load = loadNvmlInChild(choice.library, options.timeoutSeconds);
  if (reportLoadProblem(choice, load, damage, options.timeoutSeconds, report)) return;
  reportInventory(choice, *load.inventory, report);
}

}  // namespace railtune::doctor
