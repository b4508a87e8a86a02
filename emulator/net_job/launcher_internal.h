// Shared by launcher.cc and launcher_fork.cc; not a public interface.
#pragma once

#include "emulator/net_job/launcher.h"

namespace railtune::emu::netjob {

// Forks one process per rank, waits for all (bounded), fills result.ranks and result.errors.
void runRanks(const JobOptions& options, JobResult& result);

// The lines of a rank's stderr from the first sanitizer report on (ASan, UBSan, TSan, LSan; at most
// 40), "" when there is none. A rank ends with _exit, so TSan's "reports found" exit status never
// comes: this is how a race in a rank fails the job.
std::string sanitizerReport(const std::string& stderrFile);

}  // namespace railtune::emu::netjob
