// Scoring one paths scenario (eval/paths/paths_suite.cc): what survived the mangling is the truth (a logical
// connection with at least one intact connect record, the hosts with at least one intact line, the injected
// violations among those connections); `paths check` and `paths render` run in process on the folder, exactly as
// the commands run them, and their printed counts (the check's JSON, the picture's heading and links) must equal
// that truth and each other; every violation must be found, none invented, and every damaged line named.
#pragma once

#include <string>
#include <vector>

#include "eval/common/suite.h"
#include "eval/paths/paths_job.h"
#include "eval/paths/paths_mangle.h"

namespace railtune::eval::paths {

struct Score {
  Counters counters;
  std::vector<std::string> misses;  // each a sentence: what the truth was and what the analysis said
};

Score scoreScenario(const GeneratedJob& job, const std::vector<OutFile>& files, const std::string& dir);

}  // namespace railtune::eval::paths
