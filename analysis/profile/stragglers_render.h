// `railtune profile stragglers` output: a table for people, JSON (railtune.profile_stragglers.v1,
// docs/formats/profile-stragglers.schema.json) for tests and tools.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/profile/stragglers.h"

namespace railtune::analysis::profile {

// `top`: how many of the late collectives the table lists per job.
std::string renderStragglersTable(const StragglerReport& report, const StragglerOptions& options, size_t top);
std::string renderStragglersJson(const StragglerReport& report);

// "rank 1 on r000-t00 (r000)", "r001-t01 (r001)", "r002"; and one offender as the JSON lists it.
std::string offenderName(const Offender& o);
nlohmann::json offenderJson(const Offender& o);

// "5d3c0f1e2a4b6c7d", or "-" without a communicator id.
std::string commName(bool hasComm, uint64_t comm);
// "3, 17-19, 40" (sorted input).
std::string rankRanges(const std::vector<int>& ranks, size_t maxItems);

}  // namespace railtune::analysis::profile
