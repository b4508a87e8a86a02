// The plugin.<kind>.* lines for railtune's four libraries (net, tuner, profiler, env) in the plugin folder: the file is
// there, its ELF fits this machine, the symbol version NCCL will bind, and a real dlopen in a child.
#pragma once

#include "doctor/check.h"
#include "doctor/context.h"
#include "doctor/elf_fit.h"

namespace railtune::doctor {

void checkPlugins(const DoctorOptions& options, const NcclFound& nccl, const Platform& platform, Report& report);

// The plugin.<kind>.load line: dlopen(path, RTLD_NOW | RTLD_LOCAL) in a probe child.
Check loadCheck(const std::string& id, const std::string& path, int timeoutSeconds);

}  // namespace railtune::doctor
