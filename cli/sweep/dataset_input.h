// The datasets `railtune sweep rules` and `sweep compare` read, gathered for the rules (rules/aggregate.h),
// with every line skipped reported as a warning naming file:line.
#pragma once

#include <string>
#include <vector>

#include "nccl-tests-integration/rules/aggregate.h"

namespace railtune::cli {

// Throws std::runtime_error naming a file that cannot be read, or when no row could be read at all.
sweep::Aggregate readDatasets(const std::vector<std::string>& paths, size_t maxWarnings);

}  // namespace railtune::cli
