// The waits-for graph of a job's hung operations and its sinks, the root causes (hangs.h, internal).
// Nodes are processes (host, pid): a rank of one communicator is a process, and one process may be a rank
// of several, so the communicators' hangs combine. A process is alive when it wrote a hang record that
// did not resolve. Edges, from an alive stuck rank:
//   - each flow with outstanding steps: a send to p waits on p consuming, a receive from p waits on p
//     producing;
//   - each rank of the same operation that is stuck without a hang record, or silent: the operation
//     cannot complete without it.
// Sinks, in this order: processes others wait on with no hang record of their own (stopped, killed,
// frozen, or never entered); then, where no alive end reaches such a process, the links both of whose
// ends wait on them (the sender's send and the receiver's receive outstanding), grouped by NIC when
// several share one; in a tree collective, the link or NIC that no other link's progress explains
// (hangs_tree.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analysis/profile/hangs.h"
#include "analysis/profile/progress.h"

namespace railtune::analysis::profile {

struct ProcessId {
  std::string host;
  int pid = 0;
  auto operator<=>(const ProcessId&) const = default;
};

// Every rank of the job whose process is known: from its records and its hang records.
using RankProcesses = std::map<CommRank, ProcessId>;

// A link chosen as a root cause, by the operation it was found in and its two ranks there.
struct ChosenLink {
  size_t hung = 0;  // index into the hung operations
  int from = -1, to = -1;
};

struct GraphAnswer {
  std::vector<RootCause> causes;  // ranks, then NICs, then links; text left empty
  std::vector<ChosenLink> links;  // one per Link cause and per link of a NIC cause, for their ends
};

GraphAnswer findRootCauses(const std::vector<HungCollective>& hung, const RankProcesses& processes);

}  // namespace railtune::analysis::profile
