// The env.* lines about variables: every RAILTUNE_* variable through the parameter registry (what
// `railtune config` checks, plus names the registry does not know: typos), and NCCL's variables that
// can undo a rail-optimized setup: NCCL_IB_HCA against the rail map, NCCL_CROSS_NIC, and
// NCCL_MNNVL_ENABLE against the IMEX channels under /dev.
#pragma once

#include "doctor/check.h"
#include "doctor/context.h"
#include "formats/rail_map.h"

namespace railtune::doctor {

void checkRailtuneVariables(Report& report);

// railHost: this host's rail map entry, nullptr when there is none.
void checkNcclVariables(const DoctorOptions& options, const formats::RailMap* railMap,
                        const formats::RailMapHost* railHost, Report& report);

}  // namespace railtune::doctor
