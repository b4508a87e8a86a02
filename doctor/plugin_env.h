// The env.NCCL_{NET,TUNER,PROFILER}_PLUGIN lines: what NCCL will open for each variable as set in
// this environment, resolved by NCCL's own rules (src/plugin/plugin_open.cc, imitated by the
// emulator's openPluginLibrary) inside a probe child, and whether what it opens defines a symbol of
// that kind. Also env.NCCL_NET, the net-name filter that can make NCCL pass over railtune's plugin.
#pragma once

#include "doctor/check.h"
#include "doctor/context.h"

namespace railtune::doctor {

void checkPluginVariables(const DoctorOptions& options, Report& report);

}  // namespace railtune::doctor
