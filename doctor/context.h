// What `railtune doctor` was asked (its options, less how to print) and what earlier checks learned that later ones
// use.
#pragma once

#include <optional>
#include <string>

#include "formats/rail_map.h"

namespace railtune::doctor {

struct DoctorOptions {
  std::string ncclLib;      // "" = dlopen("libnccl.so.2") through the loader's search path
  bool noNccl = false;      // do not look for NCCL: its line is skip, ABI lines name reference releases
  std::string pluginDir;    // the folder holding railtune's plugins (the CLI's default: lib/ beside its binary)
  std::string railMap;      // "" = RAILTUNE_RAIL_MAP, else none
  std::string host;         // "" = RAILTUNE_HOST, NCCL_HOSTID, else the hostname (common/identity.h)
  std::string root = "/";   // where /sys and /dev are read (tests: a fixture tree)
  std::string nvmlLibrary;  // "" = RAILTUNE_NVML_LIBRARY, else libnvidia-ml.so.1
  bool noNvml = false;
  int timeoutSeconds = 10;  // per probe child
};

struct NcclFound {
  bool present = false;
  int versionCode = 0;  // ncclGetVersion's answer
  std::string path;     // as the loader resolved it
};

// NCCL's version code as text: 22809 -> "2.28.9"; codes below 10000 use NCCL's pre-2.9 encoding
// (major*1000 + minor*100 + patch).
std::string ncclVersionText(int versionCode);

// A path below DoctorOptions::root ("/sys/class/infiniband" under root "fixture" -> "fixture/sys/...").
std::string underRoot(const std::string& root, const std::string& absolute);

}  // namespace railtune::doctor
