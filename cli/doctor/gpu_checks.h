// The gpu.* lines, from NVML when present (fabric/discover's NVML source: dlopen, never linked): the
// driver and GPUs, and each GPU's NVLink fabric registration (state, status, health), the thing NCCL's
// multi-node NVLink (MNNVL) needs to be completed.
#pragma once

#include "cli/doctor/check.h"
#include "cli/doctor/context.h"

namespace railtune::cli::doctor {

void checkGpus(const DoctorOptions& options, Report& report);

}  // namespace railtune::cli::doctor
