// What both `railtune profile` subcommands do around their analysis: reporting bad lines and skipped
// files on stderr, and naming a --job the logs do not hold (the rail map option: cli/rail_map_option.h).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "analysis/profile/logs.h"
#include "formats/rail_map.h"

namespace railtune::cli {

// "N lines skipped" with the first messages, and the files passed over; nothing when all was read.
void reportProblems(const analysis::profile::ProfileLogs& logs, std::ostream& err);

// An error message when --job names a job the logs do not hold ("" otherwise).
std::string missingJob(const analysis::profile::ProfileLogs& logs, const std::optional<std::string>& job);

}  // namespace railtune::cli
