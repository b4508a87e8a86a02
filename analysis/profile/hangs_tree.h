// Which link or NIC of a hung tree collective stopped (hangs_graph.h, internal).
// In a tree the reduce (up) and broadcast (down) halves run on the two links of each parent/child pair,
// and at the fixed point of a hang most links of both halves merely wait, often with as many steps
// outstanding as the link that stopped (every broadcast link waits on the root), so least progress
// alone cannot tell them apart. A link is explained, and waits, when on its channel:
//   - its sender starves: another link into the sender has as many steps outstanding or more (the data
//     it forwards never came; the link back from the receiver does not count);
//   - its sender's other link out has more outstanding (a broadcast step goes to every child at once);
//   - its receiver is blocked: a link out of the receiver has more outstanding (its slots stay full);
//   - its receiver's other link in has more outstanding (a reduce step needs every child's data).
// A link no other explains may have stopped by itself, or may be fed over NVLink, which the records do
// not show. A NIC that went down stops its rank's links in both directions: its rank is the one with
// unexplained links to the most peers (two at least), among the ranks with a pair unexplained both
// ways, else among those with unexplained links both in and out. Otherwise a link stopped: a down link
// (its way back, the up link, completed) sent from a host that sends other unexplained down links is
// fed over NVLink by a starving parent, and the stopped up link has its way back stuck too; the
// remaining unexplained links are the candidates, the least progressed one named when it is unique.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "analysis/profile/hangs.h"

namespace railtune::analysis::profile {

struct TreeEvidence {
  std::set<std::tuple<int, int, int>> unexplained;  // (channel, from, to): links no other link explains
  // (channel, rank, rank), the lower rank first: pairs whose links both ways on that channel are
  // unexplained.
  std::set<std::tuple<int, int, int>> bothWays;
  int nicRank = -1;                           // the one rank with such pairs to two peers or more; -1 none
  std::vector<std::pair<int, int>> nicLinks;  // that rank's unexplained links (from, to), both directions
  // With no NIC: (channel, from, to), the unexplained links that may have stopped by themselves.
  std::set<std::tuple<int, int, int>> candidates;
};

bool isTree(const HungCollective& hung);

// usable(rank): the rank wrote a hang record and waits on no stopped process.
TreeEvidence treeEvidence(const HungCollective& hung, const std::function<bool(int rank)>& usable);

}  // namespace railtune::analysis::profile
