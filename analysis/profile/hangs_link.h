// The suspect link of a hung operation (hangs.h, internal): the directed rank pair most outstanding
// flows point at, a link both of whose ends report outstanding steps first, with each end's host, NIC,
// rail and GPU as far as the records, path logs and rail map tell.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "analysis/profile/hangs.h"

namespace railtune::analysis::profile {

// hosts: rank -> host of the operation's communicator, from its records.
std::optional<SuspectLink> suspectLink(const HungCollective& hung, const std::map<int, std::string>& hosts,
                                       const ProfileLogs& logs, uint32_t job, const formats::RailMap* railMap);

}  // namespace railtune::analysis::profile
