// How far each link of a stuck collective got, for the hang scenarios' hang records (hangs_suite.h).
// A collective's channel is a set of directed links between ranks, each carrying the same number of
// steps; step s of a link may complete once the links it depends on have done enough: the data it
// forwards (a ring's previous hop, a tree's children) and a free slot at the receiver (the receiver
// forwarded the step NCCL_STEPS = 8 before it). A fault freezes links from a round on (a stopped
// rank's links, a link or NIC that went down; a rank that never entered, from round 0); the others go on
// until nothing moves. A flow's outstanding steps are then what the profiler's capture reports for an
// open ProxyOp: the steps not done (capture_complete.cc, collectFlows: open + announced, not started);
// NCCL posts steps, and starts their ProxyStep events, up to NCCL_STEPS ahead of those done in both
// directions (NCCL 2.30.7 src/transport/net.cc:1335-1336 send, :1532-1536 receive).
#pragma once

#include <functional>
#include <utility>
#include <vector>

namespace railtune::eval::hangs {

inline constexpr int kNcclSteps = 8;  // NCCL_STEPS: slots per connection

struct SimLink {
  int from = -1, to = -1;                 // ranks of the communicator
  bool network = true;                    // false: NVLink, no proxy and no flow in the records
  std::vector<std::pair<int, int>> deps;  // (link, lead): step s needs done(link) >= s + 1 - lead
};

struct SimPlan {
  std::vector<SimLink> links;
  int nSteps = 1;
};

using IsNetwork = std::function<bool(int from, int to)>;

// A ring over `order` (ranks of the communicator in ring order), all-reduce: 2(n-1) steps.
SimPlan ringPlan(const std::vector<int>& order, const IsNetwork& network);
// A binary tree over `order` (order[0] the root), reduce up then broadcast down, nSteps chunks.
SimPlan treePlan(const std::vector<int>& order, const IsNetwork& network, int nSteps);
// NVLS-like: each group (an NVLink domain) reduces into its leader over NVLink, the leaders all-reduce
// in a ring over the network, and each leader hands the result back to its group.
SimPlan nvlsPlan(const std::vector<std::vector<int>>& groups, const std::vector<int>& leaders,
                 const IsNetwork& network);

// freezeAt[l]: the round from which link l no longer moves (-1: never). Returns done steps per link.
std::vector<int> simulate(const SimPlan& plan, const std::vector<int>& freezeAt);

}  // namespace railtune::eval::hangs
