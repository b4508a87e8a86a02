// The user tag (profiler v7: ncclCollConfig_t userTag, set by the application per call) and the NCCL
// path of a collective, as the reports name them, and --tag-names, the names a user gives the tags.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/profile/phase_causes.h"
#include "formats/profile_record.h"

namespace railtune::analysis::profile {

// A collective's tag and path: what its ranks' records say (the most common value where they differ).
struct CollectiveTrait {
  bool tagged = false;  // a tag other than 0 (NCCL's "untagged")
  uint64_t userTag = 0;
  formats::profile::ExecPath path = formats::profile::ExecPath::Tuned;
  bool mixed = false;  // its ranks' records named different tags or paths
};

// One user tag and path of a job, and the ranks late in a persistent share of its collectives
// (tag_groups.h).
struct TagGroupRank {
  int rank = -1;
  std::string host;
  bool hasComm = false;
  uint64_t comm = 0;
  uint64_t collectivesLate = 0, collectives = 0;
  double medianLatenessUs = 0;
  Cause cause = Cause::Unknown;
};

struct TagGroup {
  bool tagged = false;
  uint64_t userTag = 0;
  formats::profile::ExecPath path = formats::profile::ExecPath::Tuned;
  uint64_t collectives = 0, lateEvents = 0;
  uint64_t mixed = 0;               // of its collectives, those whose ranks disagreed on tag or path
  std::vector<TagGroupRank> ranks;  // by collectives late, then lateness
};

// `--tag-names 1=forward,2=backward,3=optimizer`: tag -> name. Throws std::invalid_argument naming the
// item for a malformed one (a tag that is not an unsigned 64-bit integer, an empty name, a tag twice).
using TagNames = std::map<uint64_t, std::string>;
TagNames parseTagNames(std::string_view text);

}  // namespace railtune::analysis::profile
