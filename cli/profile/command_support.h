// What both `railtune profile` subcommands do around their analysis: reading the logs, reporting bad lines and
// skipped files on stderr, and refusing a --job the logs do not hold or logs with nothing to analyse (the rail map
// option: formats/rail_map_choice.h).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "analysis/profile/logs.h"
#include "formats/rail_map.h"

namespace railtune::cli {

// "N lines skipped" with the first messages, and the files passed over; nothing when all was read.
void reportProblems(const analysis::profile::ProfileLogs& logs, std::ostream& err);

// The logs READ names, their problems reported on ERR. Throws std::runtime_error (main's status 2) when JOB names a
// job they do not hold, or when they hold no collective record (nor, with HANG_RECORDS_COUNT, a hang record).
analysis::profile::ProfileLogs readLogsToAnalyse(const analysis::profile::ReadOptions& read,
                                                 const std::optional<std::string>& job, bool hangRecordsCount,
                                                 std::ostream& err);

}  // namespace railtune::cli
