// The datasets `railtune sweep rules` and `sweep compare` read, gathered for the rules (aggregate.h), with every
// line skipped and every output whose rows `sweep parse` dropped told as a warning naming file:line.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "nccl-tests-integration/rules/aggregate.h"

namespace railtune::sweep {

// warn: one warning line (without a prefix); at most maxWarnings of each kind, then one "... and N more" line.
// Each group whose NVLink domains were only assumed on NVL72-like trays is warned once (Aggregate::unsureDomains).
// keep: the rows to gather (`sweep rules --gpu/--fabric`), all when none; the others are counted in *left.
// Throws std::runtime_error naming a file that cannot be read, or (after the warnings) when no row could be read.
Aggregate readDatasets(const std::vector<std::string>& paths, size_t maxWarnings,
                       const std::function<void(std::string_view)>& warn,
                       const std::function<bool(const DatasetRow&)>& keep = nullptr, size_t* left = nullptr);

// The same reading with the rows and the source lines handed to the caller (`sweep fit` gathers its own
// points, fit/points.h): the same warnings; throws the same way when no row could be read.
void readDatasetRows(const std::vector<std::string>& paths, size_t maxWarnings,
                     const std::function<void(std::string_view)>& warn, const DatasetSink& rows,
                     const DatasetSourceSink& sources);

}  // namespace railtune::sweep
