// The check's steps (path_check.cc runs them in order). Internal to railtune_paths.
#pragma once

#include <vector>

#include "analysis/paths/path_check.h"
#include "analysis/paths/path_check_map.h"

namespace railtune::analysis::paths::detail {

// One logical connection: the sender's record, the receiver's, or both (never neither).
struct Logical {
  long send = -1, recv = -1;  // indices into JobPaths::connections
};

// Every logical connection once: a send record with its paired receive, or a record whose peer did not log.
std::vector<Logical> logicalConnections(const JobPaths& job);

// The rail the sender's NIC is on, and the receiver's (from whichever record knows it; -1 unknown).
int senderRail(const JobPaths& job, const Logical& l);
int receiverRail(const JobPaths& job, const Logical& l);

// Violations: wrong rail at either end or between the ends; configuration digests that differ. Returns how many
// connections it could not judge (no end's rail held to its GPU's, and not both ends' rails known).
int findCrossRail(const JobPaths& job, const std::vector<Logical>& logical, const RailMapIndex& map,
                  std::vector<Finding>* findings);
void findDigestMismatches(const JobPaths& job, const std::vector<Logical>& logical, std::vector<Finding>* findings);

// Notes: host pairs whose rail counts differ by direction; rails of the plan nobody used; hosts named
// as peers that logged nothing.
void findAsymmetricRails(const JobPaths& job, const std::vector<Logical>& logical, std::vector<Finding>* findings);
void findUnusedRails(const JobPaths& job, const RailMapIndex& map, std::vector<Finding>* findings);
void findMissingHosts(const JobPaths& job, std::vector<Finding>* findings);
// Notes: per process, the connections it never closed and when it was last heard of.
void findNeverClosed(const JobPaths& job, std::vector<UnclosedProcess>* unclosed, std::vector<Finding>* findings);

// ib connections: each record's verbs facts; a note per logical connection that carried data on some QPs and none
// on others.
std::vector<VerbsUse> verbsUse(const JobPaths& job);
void findIdleQps(const JobPaths& job, const std::vector<Logical>& logical, std::vector<Finding>* findings);

}  // namespace railtune::analysis::paths::detail
