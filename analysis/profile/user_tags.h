// The user tag (profiler v7: ncclCollConfig_t userTag, set by the application per call) and the NCCL
// path of a collective, as the reports name them, and --tag-names, the names a user gives the tags.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "formats/profile_record.h"

namespace railtune::analysis::profile {

// A collective's tag and path: what its ranks' records say (the most common value where they differ).
struct CollectiveTrait {
  bool tagged = false;  // a tag other than 0 (NCCL's "untagged")
  uint64_t userTag = 0;
  formats::profile::OperationPath path = formats::profile::OperationPath::Tuned;
  bool mixed = false;  // its ranks' records named different tags or paths
};

// `--tag-names 1=forward,2=backward,3=optimizer`: tag -> name. Throws std::invalid_argument naming the
// item for a malformed one (a tag that is not an unsigned 64-bit integer, an empty name, a tag twice).
using TagNames = std::map<uint64_t, std::string>;
TagNames parseTagNames(std::string_view text);

}  // namespace railtune::analysis::profile
