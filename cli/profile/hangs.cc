// `profile hangs` (hangs.h). A collective is hung when a watchdog record names it, or when a rank's
// completions stop below what other ranks of its communicator completed (it is stuck in the next
// one). Within a hung collective every rank is completed, stuck (a hang record, or no completion of
// it and none after it) or silent (no records at all). The suspect link is the directed rank pair
// most outstanding flows point at, a link both of whose ends report outstanding steps first.
#include "cli/profile/hangs.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace railtune::cli::profile {
namespace {

using CommId = std::pair<bool, uint64_t>;
using HangKey = std::tuple<bool, uint64_t, uint64_t>;  // comm, seq

struct RankInfo {
  std::string host;
  int64_t lastSeq = -1;
  std::set<uint64_t> completedOfInterest;
};

struct CommInfo {
  int nRanks = 0;
  int64_t maxSeq = -1;
  std::map<int, RankInfo> ranks;
  std::map<uint64_t, std::string> opOfSeq;  // for the seqs of interest
};

class JobHangFinder {
 public:
  JobHangFinder(const ProfileLogs& logs, uint32_t job, const fabric::RailMap* railMap)
      : logs_(logs), job_(job), railMap_(railMap) {}

  JobHangs find() {
    JobHangs out;
    out.job = logs_.jobs[job_];
    collectRanks();
    collectWatchdog();
    collectStalls();
    collectCompletions();
    for (auto& [key, hung] : hung_) {
      classify(key, hung);
      hung.suspect = suspectLink(hung);
      out.hung.push_back(std::move(hung));
    }
    return out;
  }

 private:
  void collectRanks() {
    for (const Stream& s : logs_.streams) {
      if (s.job != job_ || s.rank < 0) continue;
      CommInfo& comm = comms_[{s.hasComm, s.comm}];
      comm.nRanks = std::max(comm.nRanks, s.nRanks);
      comm.ranks[s.rank].host = logs_.hosts[s.host];
    }
    // Per stream first (one pass over millions of samples), then per communicator and rank.
    std::vector<int64_t> lastSeq(logs_.streams.size(), -1);
    for (const Sample& sample : logs_.samples)
      lastSeq[sample.stream] = std::max(lastSeq[sample.stream], static_cast<int64_t>(sample.seq));
    for (size_t i = 0; i < logs_.streams.size(); ++i) {
      const Stream& s = logs_.streams[i];
      if (s.job != job_ || s.rank < 0 || lastSeq[i] < 0) continue;
      CommInfo& comm = comms_[{s.hasComm, s.comm}];
      RankInfo& rank = comm.ranks[s.rank];
      rank.lastSeq = std::max(rank.lastSeq, lastSeq[i]);
      comm.maxSeq = std::max(comm.maxSeq, lastSeq[i]);
    }
  }

  HungCollective& hungAt(bool hasComm, uint64_t comm, uint64_t seq) {
    HungCollective& hung = hung_[{hasComm, comm, seq}];
    hung.hasComm = hasComm, hung.comm = comm, hung.seq = seq;
    return hung;
  }

  void collectWatchdog() {
    for (const HangRecord& h : logs_.hangs) {
      const profiler::OperationRecord& r = h.parsed.record;
      if (h.parsed.identity.job != logs_.jobs[job_] || r.rank < 0) continue;
      HungCollective& hung = hungAt(r.comm.has_value(), r.comm.value_or(0), r.seq);
      hung.op = std::string(r.operation.view());
      hung.nRanks = std::max(hung.nRanks, r.nRanks);
      CommInfo& comm = comms_[{r.comm.has_value(), r.comm.value_or(0)}];
      comm.nRanks = std::max(comm.nRanks, r.nRanks);
      if (comm.ranks[r.rank].host.empty()) comm.ranks[r.rank].host = h.parsed.identity.host;
      StuckRank stuck{r.rank, h.parsed.identity.host, true, -1, static_cast<double>(r.stuckForNs) / 1000.0, {}};
      for (uint32_t i = 0; i < r.nFlows; ++i) {
        const profiler::NetFlow& f = r.flows[i];
        if (f.outstanding == 0) continue;
        stuck.flows.push_back(
            StuckFlow{f.channel, f.peer, f.send, f.outstanding, std::string(f.hca.view()), f.device, f.rail});
      }
      watchdog_[{r.comm.has_value(), r.comm.value_or(0), r.seq}][r.rank] = std::move(stuck);
    }
  }

  // A rank whose completions stop below the communicator's highest is stuck in its next collective,
  // unless a hang record already says where it is stuck.
  void collectStalls() {
    std::set<std::pair<CommId, int>> watched;
    for (const auto& [key, ranks] : watchdog_)
      for (const auto& [rank, stuck] : ranks) watched.insert({{std::get<0>(key), std::get<1>(key)}, rank});
    for (const auto& [id, comm] : comms_)
      for (const auto& [rank, info] : comm.ranks)
        if (info.lastSeq < comm.maxSeq && !watched.contains({id, rank}))
          hungAt(id.first, id.second, static_cast<uint64_t>(info.lastSeq + 1));
  }

  void collectCompletions() {
    if (hung_.empty()) return;
    for (const Sample& sample : logs_.samples) {
      const Stream& s = logs_.streams[sample.stream];
      if (s.job != job_ || s.rank < 0 || !hung_.contains({s.hasComm, s.comm, sample.seq})) continue;
      CommInfo& comm = comms_[{s.hasComm, s.comm}];
      comm.ranks[s.rank].completedOfInterest.insert(sample.seq);
      comm.opOfSeq.try_emplace(sample.seq, logs_.ops[sample.op]);
    }
  }

  void classify(const HangKey& key, HungCollective& hung) {
    const auto& [hasComm, commId, seq] = key;
    CommInfo& comm = comms_[{hasComm, commId}];
    hung.nRanks = std::max(hung.nRanks, comm.nRanks);
    if (hung.op.empty() && comm.opOfSeq.contains(seq)) hung.op = comm.opOfSeq[seq];
    const auto watched = watchdog_.find(key);
    for (const auto& [rank, info] : comm.ranks) {
      if (info.completedOfInterest.contains(seq)) {
        hung.completed.push_back(rank);
      } else if (watched != watchdog_.end() && watched->second.contains(rank)) {
        StuckRank stuck = watched->second.at(rank);
        stuck.lastCompletedSeq = info.lastSeq;
        hung.stuck.push_back(std::move(stuck));
      } else if (info.lastSeq < static_cast<int64_t>(seq)) {
        hung.stuck.push_back(StuckRank{rank, info.host, false, info.lastSeq, 0, {}});
      } else {
        hung.silent.push_back(rank);  // completed later collectives: this record was lost
      }
    }
    for (int rank = 0; rank < hung.nRanks; ++rank)
      if (!comm.ranks.contains(rank)) hung.silent.push_back(rank);
    std::sort(hung.silent.begin(), hung.silent.end());
  }

  std::optional<SuspectLink> suspectLink(const HungCollective& hung) {
    std::map<std::pair<int, int>, std::pair<int, int>> votes;  // (from, to) -> (send flows, recv flows)
    int considered = 0;
    for (const StuckRank& stuck : hung.stuck) {
      for (const StuckFlow& flow : stuck.flows) {
        if (flow.peer < 0) continue;
        ++considered;
        if (flow.send)
          ++votes[{stuck.rank, flow.peer}].first;
        else
          ++votes[{flow.peer, stuck.rank}].second;
      }
    }
    if (votes.empty()) return std::nullopt;
    auto rankOf = [](const std::pair<int, int>& v) {
      return std::make_pair(v.first > 0 && v.second > 0, v.first + v.second);
    };
    auto best = votes.begin();
    for (auto it = votes.begin(); it != votes.end(); ++it)
      if (rankOf(it->second) > rankOf(best->second)) best = it;
    const CommInfo& comm = comms_[{hung.hasComm, hung.comm}];
    SuspectLink link;
    link.from = linkEnd(hung, comm, best->first.first, best->first.second, true);
    link.to = linkEnd(hung, comm, best->first.second, best->first.first, false);
    if (link.to.host.empty() && pathEnd(best->first.first, best->first.second, true) != nullptr)
      link.to.host = pathEnd(best->first.first, best->first.second, true)->peerHost;
    link.sendFlows = best->second.first, link.recvFlows = best->second.second, link.flowsConsidered = considered;
    return link;
  }

  // The end of the link at `rank`, talking to `peer`: its NIC from its own stuck flows, else from its
  // path log; its GPU from the path log, else the rail map's GPU for that NIC.
  LinkEnd linkEnd(const HungCollective& hung, const CommInfo& comm, int rank, int peer, bool send) const {
    LinkEnd end;
    end.rank = rank;
    if (const auto it = comm.ranks.find(rank); it != comm.ranks.end()) end.host = it->second.host;
    for (const StuckRank& stuck : hung.stuck) {
      if (stuck.rank != rank) continue;
      for (const StuckFlow& flow : stuck.flows)
        if (flow.peer == peer && flow.send == send && (!flow.hca.empty() || flow.rail >= 0) && end.hca.empty())
          end.hca = flow.hca, end.rail = flow.rail;
    }
    if (const PathEnd* path = pathEnd(rank, peer, send)) {
      if (end.host.empty()) end.host = path->host;
      if (end.hca.empty()) end.hca = path->hca, end.rail = path->rail;
      end.gpu = path->gpu;
    }
    if (end.gpu < 0) end.gpu = gpuOfNic(end.host, end.hca);
    return end;
  }

  const PathEnd* pathEnd(int rank, int peer, bool send) const {
    for (const PathEnd& p : logs_.pathEnds)
      if (p.job == logs_.jobs[job_] && p.rank == rank && p.peerRank == peer && p.send == send) return &p;
    return nullptr;
  }

  int gpuOfNic(const std::string& host, const std::string& hca) const {
    const fabric::RailMapHost* mapped = railMap_ != nullptr && !hca.empty() ? railMap_->findHost(host) : nullptr;
    if (mapped == nullptr) return -1;
    for (const fabric::RailMapGpu& gpu : mapped->gpus)
      for (const fabric::RailMapNic& nic : gpu.nics)
        if (nic.hca == hca) return gpu.index;
    return -1;
  }

  const ProfileLogs& logs_;
  uint32_t job_;
  const fabric::RailMap* railMap_;
  std::map<CommId, CommInfo> comms_;
  std::map<HangKey, HungCollective> hung_;
  std::map<HangKey, std::map<int, StuckRank>> watchdog_;
};

}  // namespace

HangReport analyseHangs(const ProfileLogs& logs, const fabric::RailMap* railMap,
                        const std::optional<std::string>& job) {
  HangReport report;
  std::vector<uint32_t> jobs(logs.jobs.size());
  for (uint32_t j = 0; j < jobs.size(); ++j) jobs[j] = j;
  std::sort(jobs.begin(), jobs.end(), [&](uint32_t a, uint32_t b) { return logs.jobs[a] < logs.jobs[b]; });
  for (uint32_t j : jobs)
    if (!job || logs.jobs[j] == *job) report.jobs.push_back(JobHangFinder(logs, j, railMap).find());
  return report;
}

}  // namespace railtune::cli::profile
