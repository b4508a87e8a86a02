// The gpu.* lines, from NVML when present (fabric/discover's NVML source: dlopen, never linked, and
// here loaded in a probe child, nvml_probe.h, so that a damaged or hanging library cannot take doctor
// down): the driver and GPUs, and each GPU's NVLink fabric registration (state, status, health), the thing NCCL's
// multi-node NVLink (MNNVL) needs to be completed.
#pragma once

#include "doctor/check.h"
#include "doctor/context.h"
#include "doctor/elf_fit.h"

namespace railtune::doctor {

void checkGpus(const DoctorOptions& options, const Platform& platform, Report& report);

}  // namespace railtune::doctor
