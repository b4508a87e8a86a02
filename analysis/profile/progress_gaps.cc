// The gaps and stalls of JobProgress (progress.h): every operation some ranks of a communicator
// completed and others did not. A rank that went past it lost its record (a gap); for a rank that did
// not, the earliest such operation in its communicator's order is where it stopped.
#include <algorithm>
#include <climits>

#include "analysis/profile/collectives.h"
#include "analysis/profile/progress.h"

namespace railtune::analysis::profile {

void JobProgress::findCollectiveGaps(const ProfileLogs& logs, uint32_t job) {
  const CollectiveIndex index = indexCollectives(logs, job);
  std::map<std::pair<bool, uint64_t>, std::vector<int>> commRanks;
  for (const auto& [who, host] : hosts_) commRanks[{who.hasComm, who.comm}].push_back(who.rank);
  std::map<CommRank, std::pair<int64_t, OpKey>> first;
  std::vector<char> present;
  for (const Collective& col : index.collectives) {
    const CommKey& comm = index.comms[col.commKey];
    const std::vector<int>& ranks = commRanks[{comm.hasComm, comm.comm}];
    if (col.end - col.begin >= ranks.size() || ranks.empty()) continue;
    present.assign(static_cast<size_t>(ranks.back()) + 1, 0);
    for (uint32_t i = col.begin; i < col.end; ++i) {
      const int rank = logs.streams[logs.samples[index.order[i]].stream].rank;
      if (rank >= 0 && static_cast<size_t>(rank) < present.size()) present[static_cast<size_t>(rank)] = 1;
    }
    const OpKey key{logs.ops[col.op], col.seq};
    for (const int rank : ranks)
      if (present[static_cast<size_t>(rank)] == 0) addMissing(CommRank{comm.hasComm, comm.comm, rank}, key, &first);
  }
  for (const auto& [who, entry] : first) stalls.push_back(Stall{who, entry.second});
}

// Both sides of every directed pair: a seq one side completed and the other did not.
void JobProgress::findTransferGaps() {
  std::map<CommRank, std::pair<int64_t, OpKey>> first;
  for (const auto& [side, seqs] : transfers_) {
    const auto& [who, peer, send] = side;
    const CommRank other{who.hasComm, who.comm, peer};
    if (!wrote(other)) continue;  // a peer without records is silent, not stalled
    const auto theirs = transfers_.find({other, who.rank, !send});
    for (const uint64_t seq : seqs) {
      if (theirs != transfers_.end() && std::binary_search(theirs->second.begin(), theirs->second.end(), seq)) continue;
      addMissing(other, OpKey{"p2p", seq, send ? who.rank : peer, send ? peer : who.rank}, &first);
    }
  }
  std::sort(gaps.begin(), gaps.end(), [](const MissingRun& a, const MissingRun& b) {
    return std::tie(a.who, a.first) < std::tie(b.who, b.first);
  });
  // A rank stopped in a collective is not also reported stopped in a transfer: it never got there.
  for (const auto& item : first) {
    const CommRank& who = item.first;  // a named variable: clang 14 cannot capture a structured binding
    if (std::none_of(stalls.begin(), stalls.end(), [&](const Stall& s) { return s.who == who; }))
      stalls.push_back(Stall{who, item.second.second});
  }
  std::sort(stalls.begin(), stalls.end(), [](const Stall& a, const Stall& b) { return a.who < b.who; });
}

void JobProgress::addMissing(const CommRank& who, const OpKey& key,
                             std::map<CommRank, std::pair<int64_t, OpKey>>* first) {
  if (passed(who, key)) {
    // Operations arrive by seq within each series, so a run grows at its end or a new one starts.
    const auto [run, added] = openRuns_.try_emplace({who, OpKey{key.op, 0, key.from, key.to}}, gaps.size());
    if (!added && gaps[run->second].lastSeq + 1 == key.seq) {
      gaps[run->second].lastSeq = key.seq, ++gaps[run->second].count;
      return;
    }
    run->second = gaps.size();
    gaps.push_back(MissingRun{who, key, key.seq, 1});
    return;
  }
  // Where it stopped: the earliest in its communicator's order (the references' clock), else by seq.
  int64_t order = INT64_MAX;
  for (const int ref : references_[{who.hasComm, who.comm}]) {
    const auto end = referenceEnds_.find({CommRank{who.hasComm, who.comm, ref}, key});
    if (ref != who.rank && end != referenceEnds_.end()) {
      order = end->second;
      break;
    }
  }
  const auto [it, added] = first->try_emplace(who, order, key);
  if (!added && std::tie(order, key.seq) < std::tie(it->second.first, it->second.second.seq)) it->second = {order, key};
}

}  // namespace railtune::analysis::profile
