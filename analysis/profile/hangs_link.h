// The ends of a link of a hung operation (hangs.h, internal; the waits-for graph, hangs_graph.h, chooses
// it): each end's host, NIC, rail and GPU as far as the records, path logs and rail map tell, and the
// outstanding flows that point at it.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "analysis/profile/hangs.h"

namespace railtune::analysis::profile {

// hosts: rank -> host of the operation's communicator, from its records.
SuspectLink describeLink(const HungCollective& hung, int from, int to, const std::map<int, std::string>& hosts,
                         const ProfileLogs& logs, uint32_t job, const formats::RailMap* railMap);

}  // namespace railtune::analysis::profile
