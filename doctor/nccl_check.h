// The nccl.library line: which NCCL this machine's loader finds (or --nccl-lib names) and its version,
// read by calling ncclGetVersion in a probe child (probe.h), so a broken library cannot take doctor down.
#pragma once

#include "doctor/check.h"
#include "doctor/context.h"

namespace railtune::doctor {

inline constexpr const char* kDefaultNcclLibrary = "libnccl.so.2";

NcclFound checkNccl(const DoctorOptions& options, Report& report);

}  // namespace railtune::doctor
