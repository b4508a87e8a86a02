// "Which phase of the step": the job's collectives grouped by the application's user tag (profiler v7,
// ncclCollConfig_t userTag: forward, backward, optimizer...) and by the NCCL path that ran them (tuned,
// symmetric kernel, copy engine), and per group the offenders `profile stragglers` named that were late
// in a persistent share of its collectives. Only named offenders are broken down: a group of a few
// dozen collectives is too small to tell a straggler from ordinary noise on its own. A symmetric-kernel
// or copy-engine collective is never pooled with tuned ones: they are different choices, which NCCL
// made without the tuner. Lateness itself is measured per collective (lateness.h), where every rank ran
// the same path.
#pragma once

#include <vector>

#include "analysis/profile/collectives.h"
#include "analysis/profile/lateness.h"
#include "analysis/profile/user_tags.h"

namespace railtune::analysis::profile {

// Per collective of the index; all untagged and tuned when the logs carry no v7 traits.
std::vector<CollectiveTrait> collectiveTraits(const ProfileLogs& logs, const CollectiveIndex& index);

// Empty when every collective is untagged and tuned (logs of profiler v1..v6): nothing to group.
// Groups by tag (untagged first), then path.
std::vector<TagGroup> groupByTag(const ProfileLogs& logs, const CollectiveIndex& index,
                                 const std::vector<CollectiveTrait>& traits, const LatenessResult& measured,
                                 const Placement& placement, const std::vector<Offender>& offenders,
                                 const StragglerOptions& options);

}  // namespace railtune::analysis::profile
