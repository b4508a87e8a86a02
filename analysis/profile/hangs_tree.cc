// The stopped link or NIC of a hung tree collective (hangs_tree.h). Each test compares flows of one rank's own
// hang record, on one channel: a sender's and a receiver's step counts never mix.
#include "analysis/profile/hangs_tree.h"

#include <climits>
#include <map>
#include <tuple>

namespace railtune::analysis::profile {
namespace {

using FlowKey = std::tuple<int, int, bool, int>;  // rank, channel, send, peer

class TreeLinks {
 public:
  TreeLinks(const HungCollective& hung, const std::function<bool(int)>& usable) {
    for (const StuckRank& s : hung.stuck) {
      if (!s.watchdog || !usable(s.rank)) continue;
      for (const StuckFlow& f : s.flows)
        if (f.peer >= 0 && f.outstanding > 0) outstanding_[{s.rank, f.channel, f.send, f.peer}] = f.outstanding;
    }
  }

  // Links (channel, from, to) whose sender's send and receiver's receive are both outstanding and that
  // no other link explains.
  std::set<std::tuple<int, int, int>> unexplained() const {
    std::set<std::tuple<int, int, int>> out;
    for (const auto& [key, steps] : outstanding_) {
      const auto [from, channel, isSend, to] = key;
      if (!isSend) continue;
      const auto found = outstanding_.find({to, channel, false, from});
      if (found == outstanding_.end()) continue;
      const uint32_t send = steps, recv = found->second;  // copies: lambdas below cannot capture bindings
      // The sender starves: another link into it has no more progress (as many steps outstanding or
      // more), so the data this link forwards may never have come; the link back from the receiver
      // does not count (a parent sends its child nothing that the child's own link up carries).
      const bool starves = any(from, channel, false, to, [&](uint32_t o) { return o >= send; });
      // The sender's other link out has less progress: a broadcast step goes to every child or to
      // none, so this one waits for the slowest (NCCL_STEPS apart at most).
      const bool fanOut = any(from, channel, true, to, [&](uint32_t o) { return o > send; });
      // The receiver is blocked: a link out of it has less progress, it has not forwarded what it holds
      // and its slots stay full.
      const bool blocked = any(to, channel, true, from, [&](uint32_t o) { return o > recv; });
      // The receiver's other link in has less progress: a reduce step needs every child's data, so the
      // receiver holds this one's steps until the slowest child's come.
      const bool fanIn = any(to, channel, false, from, [&](uint32_t o) { return o > recv; });
      if (!starves && !fanOut && !blocked && !fanIn) out.insert({channel, from, to});
    }
    return out;
  }

  // Both the sender's send and the receiver's receive of the link are outstanding.
  bool stuck(int channel, int from, int to) const {
    return outstanding_.contains({from, channel, true, to}) && outstanding_.contains({to, channel, false, from});
  }

 private:
  // Whether a flow of `rank` on `channel` in direction `send`, with a peer other than `except`, has an
  // outstanding step count that `test` accepts.
  template <typename Test>
  bool any(int rank, int channel, bool send, int except, Test test) const {
    for (auto it = outstanding_.lower_bound({rank, channel, send, INT32_MIN});
         it != outstanding_.end() && std::get<0>(it->first) == rank && std::get<1>(it->first) == channel &&
         std::get<2>(it->first) == send;
         ++it)
      if (std::get<3>(it->first) != except && test(it->second)) return true;
    return false;
  }

  std::map<FlowKey, uint32_t> outstanding_;
};

}  // namespace

bool isTree(const HungCollective& hung) {
  return hung.algorithm == "TREE";
}

namespace {

// With no NIC: the links that may have stopped by themselves. A link whose way back has completed is a
// broadcast (down) link: the reduce (up) link of the pair finished. An unexplained down link whose
// sender's host also sends other unexplained down links is fed over NVLink (invisible to the records)
// by a parent that starves: the reduce stopped somewhere, and the link up where it stopped has its way
// back (the broadcast to it) stuck too. So the unexplained links that are not known or presumed down
// links are the candidates; with none, a broadcast link stopped and all unexplained links are. Two
// pairs or more stopped both ways are a NIC that could not be told (ties): no link.
void chooseLinks(const HungCollective& hung, const TreeLinks& links, TreeEvidence& out) {
  std::set<std::pair<int, int>> pairs;
  for (const auto& [channel, a, b] : out.bothWays) pairs.insert({a, b});
  if (pairs.size() >= 2) return;
  std::map<int, std::string> hostOf;
  for (const StuckRank& s : hung.stuck) hostOf[s.rank] = s.host;
  std::set<std::string> starvedHosts;
  for (const auto& [channel, from, to] : out.unexplained)
    if (!links.stuck(channel, to, from)) starvedHosts.insert(hostOf[from]);
  for (const auto& [channel, from, to] : out.unexplained)
    if (links.stuck(channel, to, from) && !starvedHosts.contains(hostOf[from]))
      out.candidates.insert({channel, from, to});
  if (out.candidates.empty()) out.candidates = out.unexplained;
}

}  // namespace

TreeEvidence treeEvidence(const HungCollective& hung, const std::function<bool(int rank)>& usable) {
  TreeEvidence out;
  const TreeLinks treeLinks(hung, usable);
  out.unexplained = treeLinks.unexplained();
  const std::set<std::tuple<int, int, int>>& links = out.unexplained;
  std::map<int, std::set<int>> peers, bothWays;  // rank -> peers of its unexplained links, of those both ways
  std::map<int, std::pair<bool, bool>> inOut;    // rank -> it has unexplained links in, out
  for (const auto& [channel, from, to] : links) {
    peers[from].insert(to), peers[to].insert(from);
    inOut[from].second = true, inOut[to].first = true;
    if (links.contains({channel, to, from})) {
      out.bothWays.insert({channel, std::min(from, to), std::max(from, to)});
      bothWays[from].insert(to);
    }
  }
  // The NIC's rank: unexplained links to the most peers (two at least), among the ranks with a pair
  // stopped both ways; when no rank has one (the links back were explained by others that the NIC
  // stopped too), among the ranks with unexplained links both in and out (a starved parent has only
  // links out unexplained, a starved child only links in). A tie, even after counting the peers
  // stopped both ways, names none.
  const bool anyBothWays = !bothWays.empty();
  std::pair<size_t, size_t> best{0, 0}, second{0, 0};
  for (const auto& [rank, with] : peers) {
    if (anyBothWays ? !bothWays.contains(rank) : !inOut[rank].first || !inOut[rank].second) continue;
    const std::pair<size_t, size_t> score{with.size(), anyBothWays ? bothWays[rank].size() : 0};
    if (score > best)
      second = best, best = score, out.nicRank = rank;
    else if (score > second)
      second = score;
  }
  if (best.first < 2 || second == best) {
    out.nicRank = -1;
    chooseLinks(hung, treeLinks, out);
    return out;
  }
  std::set<std::pair<int, int>> seen;
  for (const auto& [channel, from, to] : links)
    if ((from == out.nicRank || to == out.nicRank) && seen.insert({from, to}).second)
      out.nicLinks.push_back({from, to});
  return out;
}

}  // namespace railtune::analysis::profile
