// What `railtune emu net-job` prints: one row per collective (bytes per rank, iterations, the slowest
// rank's time per iteration, verified bytes) and one row per rank (host, GPU, HCA, plugin device,
// connections over the plugin and over the NVLink stand-in), how many WARNs the plugins logged (the
// WARNs themselves: plugin_warnings.h, for stderr), then the errors if any.
#pragma once

#include <string>

#include "emulator/net_job/launcher.h"

namespace railtune::emu::netjob {

std::string formatJobReport(const JobOptions& options, const JobResult& result);

}  // namespace railtune::emu::netjob
