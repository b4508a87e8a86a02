// JobProgress (progress.h). Samples are summed per stream first (one pass over millions of them with
// small integer keys), then per communicator and rank. Operations of one communicator run in the same
// order on every rank, so a rank that completed an operation its communicator's reference rank (the one
// with the most completions) completed after `key` went past `key`, whatever their types.
#include "analysis/profile/progress.h"

#include <algorithm>
#include <climits>

namespace railtune::analysis::profile {
namespace {

CommRank whoOf(const Stream& s) {
  return CommRank{s.hasComm, s.comm, s.rank};
}

struct StreamTally {
  std::map<uint32_t, int64_t> maxSeq;  // by op
  int64_t lastEndNs = INT64_MIN;
  uint32_t lastOp = 0;
  uint64_t lastSeq = 0, samples = 0;
};

}  // namespace

JobProgress::JobProgress(const ProfileLogs& logs, uint32_t job) {
  readSamples(logs, job);
  readTransfers(logs, job);
  chooseReferences();
  // The references' own completions, to order any two operations of their communicator.
  for (const Sample& sample : logs.samples) {
    const Stream& s = logs.streams[sample.stream];
    if (s.job != job || s.rank < 0) continue;
    const auto refs = references_.find({s.hasComm, s.comm});
    if (refs != references_.end() && std::find(refs->second.begin(), refs->second.end(), s.rank) != refs->second.end())
      referenceEnds_[{whoOf(s), OpKey{logs.ops[sample.op], sample.seq}}] = sample.endRealtimeNs;
  }
  findCollectiveGaps(logs, job);
  findTransferGaps();
}

void JobProgress::readSamples(const ProfileLogs& logs, uint32_t job) {
  std::vector<StreamTally> tally(logs.streams.size());
  for (const Sample& sample : logs.samples) {
    StreamTally& t = tally[sample.stream];
    int64_t& seq = t.maxSeq.try_emplace(sample.op, -1).first->second;
    seq = std::max(seq, static_cast<int64_t>(sample.seq));
    ++t.samples;
    if (sample.endRealtimeNs > t.lastEndNs)
      t.lastEndNs = sample.endRealtimeNs, t.lastOp = sample.op, t.lastSeq = sample.seq;
  }
  for (size_t i = 0; i < logs.streams.size(); ++i) {
    const Stream& s = logs.streams[i];
    if (s.job != job || s.rank < 0) continue;
    const CommRank who = whoOf(s);
    hosts_.try_emplace(who, logs.hosts[s.host]);
    for (const auto& [op, seq] : tally[i].maxSeq) {
      int64_t& known = maxSeq_.try_emplace({who, logs.ops[op]}, -1).first->second;
      known = std::max(known, seq);
    }
    auto& last = last_.try_emplace(who, std::make_pair(INT64_MIN, OpKey{})).first->second;
    if (tally[i].samples > 0 && tally[i].lastEndNs > last.first)
      last = {tally[i].lastEndNs, OpKey{logs.ops[tally[i].lastOp], tally[i].lastSeq}};
  }
}

void JobProgress::readTransfers(const ProfileLogs& logs, uint32_t job) {
  for (const P2pSample& p : logs.p2p) {
    const Stream& s = logs.streams[p.stream];
    if (s.job != job || s.rank < 0 || p.peer < 0) continue;
    const CommRank who = whoOf(s);
    hosts_.try_emplace(who, logs.hosts[s.host]);
    transfers_[{who, p.peer, p.send}].push_back(p.seq);
    auto& last = last_.try_emplace(who, std::make_pair(INT64_MIN, OpKey{})).first->second;
    const OpKey key{"p2p", p.seq, p.send ? s.rank : p.peer, p.send ? p.peer : s.rank};
    if (p.endRealtimeNs > last.first) last = {p.endRealtimeNs, key};
  }
  for (auto& [key, seqs] : transfers_) std::sort(seqs.begin(), seqs.end());
}

// The two ranks with the most completions per communicator: a rank is never its own reference.
void JobProgress::chooseReferences() {
  std::map<std::pair<bool, uint64_t>, std::vector<std::pair<int64_t, int>>> counts;
  for (const auto& [key, seq] : maxSeq_) counts[{key.first.hasComm, key.first.comm}];
  std::map<CommRank, int64_t> completed;
  for (const auto& [key, seq] : maxSeq_) completed[key.first] += seq + 1;
  for (const auto& [who, n] : completed) counts[{who.hasComm, who.comm}].push_back({-n, who.rank});
  for (auto& [comm, ranks] : counts) {
    std::sort(ranks.begin(), ranks.end());
    for (size_t i = 0; i < ranks.size() && i < 2; ++i) references_[comm].push_back(ranks[i].second);
  }
}

int64_t JobProgress::lastSeq(const CommRank& who, const OpKey& key) const {
  if (!key.p2p()) {
    const auto it = maxSeq_.find({who, key.op});
    return it == maxSeq_.end() ? -1 : it->second;
  }
  const bool send = who.rank == key.from;
  const auto it = transfers_.find({who, send ? key.to : key.from, send});
  return it == transfers_.end() || it->second.empty() ? -1 : static_cast<int64_t>(it->second.back());
}

bool JobProgress::passed(const CommRank& who, const OpKey& key) const {
  if (lastSeq(who, key) > static_cast<int64_t>(key.seq)) return true;
  const auto last = last_.find(who);
  const auto refs = references_.find({who.hasComm, who.comm});
  if (last == last_.end() || last->second.first == INT64_MIN || refs == references_.end()) return false;
  for (const int ref : refs->second) {
    if (ref == who.rank) continue;
    const CommRank r{who.hasComm, who.comm, ref};
    const auto keyEnd = referenceEnds_.find({r, key}), lastEnd = referenceEnds_.find({r, last->second.second});
    if (keyEnd != referenceEnds_.end() && lastEnd != referenceEnds_.end()) return lastEnd->second > keyEnd->second;
  }
  return false;
}

int64_t JobProgress::lastEndNs(const CommRank& who) const {
  const auto it = last_.find(who);
  return it == last_.end() ? INT64_MIN : it->second.first;
}

const std::string& JobProgress::host(const CommRank& who) const {
  static const std::string kUnknown;
  const auto it = hosts_.find(who);
  return it == hosts_.end() ? kUnknown : it->second;
}

}  // namespace railtune::analysis::profile
