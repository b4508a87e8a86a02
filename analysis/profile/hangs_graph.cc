// The waits-for graph and its sinks (hangs_graph.h).
#include "analysis/profile/hangs_graph.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <set>
#include <tuple>

#include "analysis/profile/hangs_tree.h"

namespace railtune::analysis::profile {
namespace {

struct Node {
  bool hub = false;        // not a process: an operation, waiting on every rank absent from it
  bool alive = false;      // an unresolved hang record of its own
  bool candidate = false;  // stuck without a hang record, or silent, somewhere
  RootCause where;         // the first hung operation it is stuck in without a record
  std::vector<int> waitsOn;
  std::set<std::pair<bool, uint64_t>> waitedFromComms;
};

// A link both of whose ends wait on it, in one operation and channel.
struct LinkCandidate {
  int from = -1, to = -1;
  uint32_t send = 0, recv = 0;
  std::string fromHca, toHca;
  int fromRail = -1, toRail = -1;
  uint32_t score() const { return std::min(send, recv); }
};

class Graph {
 public:
  Graph(const std::vector<HungCollective>& hung, const RankProcesses& processes) : hung_(hung), processes_(processes) {}

  GraphAnswer answer() {
    buildNodes();
    buildEdges();
    GraphAnswer out;
    addRankSinks(out);
    addLinks(out);
    return out;
  }

 private:
  int nodeOf(bool hasComm, uint64_t comm, int rank) {
    const auto p = processes_.find(CommRank{hasComm, comm, rank});
    const std::string key = p != processes_.end() ? "p\x1f" + p->second.host + "\x1f" + std::to_string(p->second.pid)
                                                  : "r\x1f" + std::to_string(hasComm) + "\x1f" + std::to_string(comm) +
                                                        "\x1f" + std::to_string(rank);
    const auto [it, added] = ids_.try_emplace(key, static_cast<int>(nodes_.size()));
    if (added) {
      nodes_.emplace_back();
      if (p != processes_.end()) nodes_.back().where.host = p->second.host, nodes_.back().where.pid = p->second.pid;
    }
    return it->second;
  }

  int nodeOf(const HungCollective& h, int rank) { return nodeOf(h.hasComm, h.comm, rank); }

  void markCandidate(const HungCollective& h, int rank, int64_t lastSeq, bool wrote) {
    Node& n = nodes_[static_cast<size_t>(nodeOf(h, rank))];
    if (n.candidate) return;
    n.candidate = true;
    RootCause& w = n.where;
    w.hasComm = h.hasComm, w.comm = h.comm, w.rank = rank, w.op = h.op, w.seq = h.seq, w.from = h.from, w.to = h.to;
    w.lastCompletedSeq = lastSeq, w.wroteRecords = wrote;
  }

  void buildNodes() {
    for (const HungCollective& h : hung_) {
      for (const StuckRank& s : h.stuck) {
        if (s.watchdog)
          nodes_[static_cast<size_t>(nodeOf(h, s.rank))].alive = true;
        else
          markCandidate(h, s.rank, s.lastCompletedSeq, true);
      }
      for (const int rank : h.silent) markCandidate(h, rank, -1, false);
    }
  }

  void addEdge(int from, int to, const HungCollective& h) {
    if (from == to) return;
    nodes_[static_cast<size_t>(from)].waitsOn.push_back(to);
    nodes_[static_cast<size_t>(to)].waitedFromComms.insert({h.hasComm, h.comm});
  }

  // Each operation with absent ranks (stuck without a hang record, or silent) is a hub: its alive ranks
  // wait on it and it waits on each absent rank, so that the edges grow with waiters plus absent ranks,
  // not with their product (half of 8,192 ranks absent would be 16 M edges).
  void buildEdges() {
    for (const HungCollective& h : hung_) {
      std::vector<int> absent;
      for (const StuckRank& s : h.stuck)
        if (!s.watchdog) absent.push_back(nodeOf(h, s.rank));
      for (const int rank : h.silent) absent.push_back(nodeOf(h, rank));
      int hub = -1;
      if (!absent.empty()) {
        hub = static_cast<int>(nodes_.size());
        nodes_.emplace_back().hub = true;
        for (const int a : absent) addEdge(hub, a, h);
      }
      for (const StuckRank& s : h.stuck) {
        if (!s.watchdog) continue;
        const int self = nodeOf(h, s.rank);
        for (const StuckFlow& f : s.flows)
          if (f.peer >= 0 && f.outstanding > 0) addEdge(self, nodeOf(h, f.peer), h);
        if (hub >= 0) addEdge(self, hub, h);
      }
    }
    for (Node& n : nodes_) {
      std::sort(n.waitsOn.begin(), n.waitsOn.end());
      n.waitsOn.erase(std::unique(n.waitsOn.begin(), n.waitsOn.end()), n.waitsOn.end());
    }
  }

  // Processes that reach `sink` along the edges (hubs passed through, not counted), the sink itself not
  // counted.
  std::vector<int> waitersOf(int sink, const std::vector<std::vector<int>>& reverse) const {
    std::vector<char> seen(nodes_.size(), 0);
    std::deque<int> queue{sink};
    seen[static_cast<size_t>(sink)] = 1;
    std::vector<int> out;
    while (!queue.empty()) {
      const int n = queue.front();
      queue.pop_front();
      for (const int w : reverse[static_cast<size_t>(n)])
        if (!seen[static_cast<size_t>(w)]) {
          seen[static_cast<size_t>(w)] = 1;
          if (!nodes_[static_cast<size_t>(w)].hub) out.push_back(w);
          queue.push_back(w);
        }
    }
    return out;
  }

  void addRankSinks(GraphAnswer& out) {
    reverse_.assign(nodes_.size(), {});
    for (size_t n = 0; n < nodes_.size(); ++n)
      for (const int to : nodes_[n].waitsOn) reverse_[static_cast<size_t>(to)].push_back(static_cast<int>(n));
    const std::vector<std::vector<int>>& reverse = reverse_;
    reachesSink_.assign(nodes_.size(), 0);
    std::vector<RootCause> sinks;
    for (size_t n = 0; n < nodes_.size(); ++n) {
      const Node& node = nodes_[n];
      if (node.hub || node.alive || !node.candidate) continue;
      RootCause cause = node.where;
      cause.kind = CauseKind::Rank;
      const std::vector<int> waiters = waitersOf(static_cast<int>(n), reverse);
      for (const int w : waiters) reachesSink_[static_cast<size_t>(w)] = 1;
      cause.waiters = static_cast<int>(waiters.size());
      cause.comms = static_cast<int>(node.waitedFromComms.size());
      sinks.push_back(std::move(cause));
    }
    std::stable_sort(sinks.begin(), sinks.end(), [](const RootCause& a, const RootCause& b) {
      return std::tie(b.waiters, b.wroteRecords, a.hasComm, a.comm, a.rank) <
             std::tie(a.waiters, a.wroteRecords, b.hasComm, b.comm, b.rank);
    });
    out.causes = std::move(sinks);
  }

  std::function<bool(int)> usable(const HungCollective& h) {
    return [this, &h](int rank) { return freeOfSinks(h, rank); };
  }

  bool freeOfSinks(const HungCollective& h, int rank) {
    return reachesSink_[static_cast<size_t>(nodeOf(h, rank))] == 0;
  }

  // Per channel of one operation: the links both of whose ends wait on them and reach no stopped
  // process, keeping those with the least progress (most steps outstanding at both ends: where the data
  // stopped; the links after it drained what they had). More than two such links tie: nothing is named.
  std::vector<LinkCandidate> linksOf(const HungCollective& h) {
    const TreeEvidence tree = isTree(h) ? treeEvidence(h, usable(h)) : TreeEvidence{};
    if (tree.nicRank >= 0) return {};  // a NIC (addTreeNics), not a link
    std::map<int, std::vector<LinkCandidate>> byChannel;
    std::map<int, const StuckRank*> withRecord;  // rank -> its hang record's view
    for (const StuckRank& s : h.stuck)
      if (s.watchdog) withRecord.emplace(s.rank, &s);
    for (const StuckRank& sender : h.stuck) {
      if (!sender.watchdog || !freeOfSinks(h, sender.rank)) continue;
      for (const StuckFlow& send : sender.flows) {
        if (!send.send || send.outstanding == 0 || send.peer < 0) continue;
        const auto found = withRecord.find(send.peer);
        if (found == withRecord.end() || !freeOfSinks(h, send.peer)) continue;
        const StuckRank* receiver = found->second;
        // In a tree, only a link that may have stopped by itself (hangs_tree.h).
        if (isTree(h) && !tree.candidates.contains({send.channel, sender.rank, send.peer})) continue;
        for (const StuckFlow& recv : receiver->flows)
          if (!recv.send && recv.peer == sender.rank && recv.channel == send.channel && recv.outstanding > 0)
            byChannel[send.channel].push_back(LinkCandidate{sender.rank, send.peer, send.outstanding, recv.outstanding,
                                                            send.hca, recv.hca, send.rail, recv.rail});
      }
    }
    std::vector<LinkCandidate> kept;
    for (auto& [channel, links] : byChannel) {
      uint32_t best = 0;
      for (const LinkCandidate& l : links) best = std::max(best, l.score());
      std::vector<LinkCandidate> top;
      for (const LinkCandidate& l : links)
        if (l.score() == best) top.push_back(l);
      // A tree's broadcast sends each step to every child: two links tied there are a starved parent.
      if (top.size() <= (isTree(h) ? 1u : 2u)) kept.insert(kept.end(), top.begin(), top.end());
    }
    return kept;
  }

  struct KeptLink {
    size_t hung;
    LinkCandidate link;
    ProcessId fromProcess, toProcess;
  };

  ProcessId processOf(const HungCollective& h, int rank) const {
    const auto p = processes_.find(CommRank{h.hasComm, h.comm, rank});
    return p == processes_.end() ? ProcessId{} : p->second;
  }

  // The same links end at another NIC too (two hosts joined only by them): the NIC cause says both.
  template <typename Links, typename Members>
  void noteTwin(GraphAnswer& out, const std::pair<std::string, std::string>& nic, const Members& members,
                const Links& links) {
    if (out.causes.empty() || out.causes.back().kind != CauseKind::Nic || !out.causes.back().orHca.empty() ||
        static_cast<size_t>(out.causes.back().links) != members.size())
      return;
    RootCause& cause = out.causes.back();
    for (const auto& m : members) {
      const KeptLink& k = links.at(m);
      const bool atFrom = k.fromProcess.host == nic.first && k.link.fromHca == nic.second;
      const ProcessId& other = atFrom ? k.toProcess : k.fromProcess;  // the end that is not this NIC
      const ProcessId& self = atFrom ? k.fromProcess : k.toProcess;
      if (other.host != cause.nicHost || other.pid != cause.nicPid) return;
      cause.orNicRank = atFrom ? k.link.from : k.link.to, cause.orNicPid = self.pid;
    }
    cause.orNicHost = nic.first, cause.orHca = nic.second;
  }

  using LinkKey = std::pair<ProcessId, ProcessId>;     // sender's and receiver's processes
  using NicKey = std::pair<std::string, std::string>;  // host, HCA
  using KeptLinks = std::map<LinkKey, KeptLink>;

  KeptLinks keptLinks() {
    KeptLinks links;  // one per pair of processes, whatever the operations and channels that show it
    for (size_t i = 0; i < hung_.size(); ++i)
      for (const LinkCandidate& l : linksOf(hung_[i])) {
        KeptLink k{i, l, processOf(hung_[i], l.from), processOf(hung_[i], l.to)};
        const auto [it, added] = links.try_emplace({k.fromProcess, k.toProcess}, k);
        if (!added) it->second.link.send += l.send, it->second.link.recv += l.recv;
      }
    return links;
  }

  RootCause nicCause(const NicKey& nic, const std::vector<LinkKey>& members, const KeptLinks& links,
                     GraphAnswer& out) const {
    RootCause cause;
    cause.kind = CauseKind::Nic;
    cause.nicHost = nic.first, cause.hca = nic.second, cause.links = static_cast<int>(members.size());
    for (const LinkKey& m : members) {
      const KeptLink& k = links.at(m);
      const bool atFrom = k.fromProcess.host == nic.first && k.link.fromHca == nic.second;
      cause.nicRank = atFrom ? k.link.from : k.link.to;
      cause.nicPid = atFrom ? k.fromProcess.pid : k.toProcess.pid;
      cause.rail = atFrom ? k.link.fromRail : k.link.toRail;
      const HungCollective& h = hung_[k.hung];
      cause.hasComm = h.hasComm, cause.comm = h.comm;
      out.links.push_back(ChosenLink{k.hung, k.link.from, k.link.to});
    }
    return cause;
  }

  // A NIC shared by several such links went down: links grouped by each end's (host, NIC), the largest
  // groups first; each link belongs to one NIC cause at most. Returns the links used.
  std::set<LinkKey> addNicCauses(const KeptLinks& links, GraphAnswer& out) {
    std::map<NicKey, std::vector<LinkKey>> byNic;
    for (const auto& [key, k] : links) {
      if (isTree(hung_[k.hung])) continue;  // a tree's NIC shows as links stopped both ways (addTreeNics)
      if (!k.link.fromHca.empty()) byNic[{k.fromProcess.host, k.link.fromHca}].push_back(key);
      if (!k.link.toHca.empty()) byNic[{k.toProcess.host, k.link.toHca}].push_back(key);
    }
    std::vector<std::pair<NicKey, std::vector<LinkKey>>> nics(byNic.begin(), byNic.end());
    std::stable_sort(nics.begin(), nics.end(),
                     [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
    std::set<LinkKey> used;
    for (const auto& [nic, members] : nics) {
      if (members.size() < 2) break;
      if (std::any_of(members.begin(), members.end(), [&](const LinkKey& m) { return used.contains(m); })) {
        noteTwin(out, nic, members, links);
        continue;
      }
      used.insert(members.begin(), members.end());
      out.causes.push_back(nicCause(nic, members, links, out));
    }
    return used;
  }

  void addLinkCauses(const KeptLinks& links, const std::set<LinkKey>& used, GraphAnswer& out) {
    std::vector<const KeptLink*> rest;
    for (const auto& [key, k] : links)
      if (!used.contains(key)) rest.push_back(&k);
    std::stable_sort(rest.begin(), rest.end(),
                     [](const KeptLink* a, const KeptLink* b) { return a->link.score() > b->link.score(); });
    for (const KeptLink* k : rest) {
      RootCause cause;
      cause.kind = CauseKind::Link;
      const HungCollective& h = hung_[k->hung];
      cause.hasComm = h.hasComm, cause.comm = h.comm, cause.op = h.op, cause.seq = h.seq;
      cause.fromPid = k->fromProcess.pid, cause.toPid = k->toProcess.pid;
      cause.sendOutstanding = k->link.send, cause.recvOutstanding = k->link.recv;
      cause.linkFrom = LinkEnd{k->link.from, k->fromProcess.host, -1, k->link.fromRail, k->link.fromHca};
      cause.linkTo = LinkEnd{k->link.to, k->toProcess.host, -1, k->link.toRail, k->link.toHca};
      out.causes.push_back(std::move(cause));
      out.links.push_back(ChosenLink{k->hung, k->link.from, k->link.to});
    }
  }

  // A tree collective whose unexplained links through one rank show its NIC went down (hangs_tree.h).
  void addTreeNics(GraphAnswer& out) {
    for (size_t i = 0; i < hung_.size(); ++i) {
      const HungCollective& h = hung_[i];
      if (!isTree(h)) continue;
      const TreeEvidence tree = treeEvidence(h, usable(h));
      if (tree.nicRank < 0) continue;
      RootCause cause;
      cause.kind = CauseKind::Nic;
      cause.hasComm = h.hasComm, cause.comm = h.comm;
      const ProcessId process = processOf(h, tree.nicRank);
      cause.nicHost = process.host, cause.nicPid = process.pid, cause.nicRank = tree.nicRank;
      cause.links = static_cast<int>(tree.nicLinks.size());
      for (const StuckRank& s : h.stuck)
        for (const StuckFlow& f : s.flows)
          if (s.rank == tree.nicRank && cause.hca.empty() && !f.hca.empty() && f.outstanding > 0)
            cause.hca = f.hca, cause.rail = f.rail;  // the NIC its stuck flows went through
      for (const auto& [from, to] : tree.nicLinks) out.links.push_back(ChosenLink{i, from, to});
      out.causes.push_back(std::move(cause));
    }
  }

  // Processes that wait on these links: their ends, and every process that reaches an end.
  int linkWaiters(const std::vector<ChosenLink>& chosen) {
    std::set<int> waiting;
    for (const ChosenLink& c : chosen)
      for (const int rank : {c.from, c.to}) {
        const int end = nodeOf(hung_[c.hung], rank);
        waiting.insert(end);
        for (const int w : waitersOf(end, reverse_)) waiting.insert(w);
      }
    return static_cast<int>(waiting.size());
  }

  // NICs and links, the most waited on first: a link whose ends are themselves held up by another
  // operation's stalled link (they never entered the next one, so its ranks wait on them) comes after
  // that link, however many steps its own ends have outstanding. Ties keep NICs before links.
  void addLinks(GraphAnswer& out) {
    const size_t firstLink = out.causes.size(), firstChosen = out.links.size();
    addTreeNics(out);
    const KeptLinks links = keptLinks();
    addLinkCauses(links, addNicCauses(links, out), out);
    std::vector<ChosenLink> chosen(out.links.begin() + static_cast<std::ptrdiff_t>(firstChosen), out.links.end());
    size_t next = 0;
    for (size_t i = firstLink; i < out.causes.size(); ++i) {
      RootCause& cause = out.causes[i];
      const size_t count = cause.kind == CauseKind::Nic ? static_cast<size_t>(cause.links) : 1;
      cause.waiters = linkWaiters({chosen.begin() + static_cast<std::ptrdiff_t>(next),
                                   chosen.begin() + static_cast<std::ptrdiff_t>(next + count)});
      next += count;
    }
    std::stable_sort(out.causes.begin() + static_cast<std::ptrdiff_t>(firstLink), out.causes.end(),
                     [](const RootCause& a, const RootCause& b) { return a.waiters > b.waiters; });
  }

  const std::vector<HungCollective>& hung_;
  const RankProcesses& processes_;
  std::map<std::string, int> ids_;
  std::vector<Node> nodes_;
  std::vector<char> reachesSink_;
  std::vector<std::vector<int>> reverse_;  // who waits on each node
};

}  // namespace

GraphAnswer findRootCauses(const std::vector<HungCollective>& hung, const RankProcesses& processes) {
  return Graph(hung, processes).answer();
}

}  // namespace railtune::analysis::profile
