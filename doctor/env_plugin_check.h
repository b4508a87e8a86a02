// The env plugin's lines of `railtune doctor` (NCCL_ENV_PLUGIN=railtune, docs/training-image.md):
//  env.NCCL_ENV_PLUGIN  what NCCL opens for the variable as set here, by NCCL's own name rules (in a probe child);
//  plugin.env.answer    railtune's env plugin loaded in a probe child, bound as the NCCL found here (else 2.31.2)
//                       binds it, initialised with this host and rail map, and asked NCCL_IB_HCA: its answer, or the
//                       one WARN that says why it has none (then NCCL runs as without the plugin).
// The plugin.env.file/.elf/.abi/.load lines are checkPlugins' (plugin_checks.h), as for the other three libraries.
#pragma once

#include <string>
#include <vector>

#include "doctor/check.h"
#include "doctor/context.h"

namespace railtune::doctor {

void checkEnvPlugin(const DoctorOptions& options, const NcclFound& nccl, const std::string& host, Report& report);

// The probe child's side of plugin.env.answer: `env PATH VERSIONCODE RAILMAP HOST` (RAILMAP "" = as the environment
// says). Keys: symbol (the one bound), hca (the answer; absent when none), warn (the plugin's first WARN), error.
int probeEnvAnswer(const std::vector<std::string>& args);

}  // namespace railtune::doctor
