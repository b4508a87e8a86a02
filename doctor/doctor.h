// railtune doctor as a library: will railtune work on this node (or in this image)? runChecks runs every
// check in order (the host's platform, NCCL, the plugin files and their ABI, the loader, the plugin and
// RAILTUNE_*/NCCL_* variables, the rail map, the RDMA devices, the topology file, the GPUs) and returns the
// report; `railtune doctor` prints it, tests and the packages' post-install check can read it.
// docs/doctor.md describes every check.
//
// Anything that loads a foreign library (NCCL, the plugins, what NCCL_*_PLUGIN names, NVML) runs in a child
// process (probe.h): the running program started again as `PROGRAM doctor probe -- MODE ARGS...`, so a
// program that calls runChecks must answer that command line with probeChildMain, as railtune does.
#pragma once

#include <string>

#include "doctor/check.h"
#include "doctor/context.h"

namespace railtune::doctor {

struct DoctorRun {
  std::string host;  // the host the checks looked for in the rail map
  Report report;
};

// Never throws for what it finds: each problem is a line of the report.
DoctorRun runChecks(const DoctorOptions& options);

}  // namespace railtune::doctor
