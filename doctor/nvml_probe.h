// NVML read in a probe child (probe.h), as NCCL and the plugins are: a damaged libnvidia-ml.so.1 (a
// truncated copy makes ld.so die with SIGBUS) or one whose nvmlInit never returns must not take
// doctor down with it. The child dlopens the library, runs discovery's NVML reader
// (fabric/discover/nvml_source.h) and sends the inventory back as one JSON line over the probe
// channel; the parent reads it under the probe's deadline.
#pragma once

#include <optional>
#include <string>

#include "doctor/probe.h"
#include "fabric/discover/inventory.h"

namespace railtune::doctor {

struct NvmlLoad {
  ProbeResult probe;        // how the child ended
  std::string dlopenError;  // the loader's message when dlopen failed ("" when it loaded)
  std::string path;         // the file the loader opened (link map), when it loaded
  // What readNvml found (or, when dlopen failed, how readNvml words the failure), when the child answered.
  std::optional<fabric::discover::NvmlInventory> inventory;
  std::string answerError;  // the child ended normally but its answer was missing or malformed
};

// The parent's side: `railtune doctor probe -- nvml LIBRARY` under the deadline.
NvmlLoad loadNvmlInChild(const std::string& library, int timeoutSeconds);

// `railtune topo discover`'s NVML: readNvml's inventory from the child, or one with loaded=false whose
// error says how the child ended (crashed, timed out) when it did not answer. `library` "" means
// RAILTUNE_NVML_LIBRARY, else libnvidia-ml.so.1, as for readNvml.
fabric::discover::NvmlInventory readNvmlInChild(const std::string& library, int timeoutSeconds);

// The child's side of mode `nvml LIBRARY`: keys error (dlopen failed), path, inventory (JSON).
int probeNvmlChild(const std::string& library);

}  // namespace railtune::doctor
