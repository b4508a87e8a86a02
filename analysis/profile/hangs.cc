// `profile hangs` (hangs.h). The operations looked at are those a watchdog record names and, per rank,
// the first operation others completed that it did not reach (progress.h). Each rank of such an
// operation is then completed, stuck (its hang record, or no completion and nothing after it), lost
// (it went past it, or its records were reported lost after its last completion) or silent (no
// records at all). It is hung when some rank is stuck; a hang record followed by a completion by its
// events resolved (slow, not hung); one followed by a completion closed at finalize did not.
#include "analysis/profile/hangs.h"

#include <algorithm>
#include <climits>
#include <map>
#include <set>

#include "analysis/profile/hangs_graph.h"
#include "analysis/profile/hangs_link.h"
#include "analysis/profile/hangs_render.h"
#include "analysis/profile/phase_causes.h"
#include "analysis/profile/progress.h"

namespace railtune::analysis::profile {
namespace {

using CommId = std::pair<bool, uint64_t>;
using OpId = std::pair<CommId, OpKey>;

struct Watched {
  StuckRank stuck;
  int64_t startNs = 0;
};

struct Completion {
  int64_t endNs = 0;
  formats::profile::CloseReason closedBy = formats::profile::CloseReason::Events;
};

// A transfer's key from either side's record: a Send of r to p and p's Recv from r are one.
OpKey keyOf(const formats::profile::OperationRecord& r, bool p2p) {
  if (!p2p) return OpKey{std::string(r.operation.view()), r.seq};
  const bool send = r.operation.view() == "Send";
  return OpKey{"p2p", r.seq, send ? r.rank : r.peer, send ? r.peer : r.rank};
}

class JobHangFinder {
 public:
  JobHangFinder(const ProfileLogs& logs, uint32_t job, const formats::RailMap* railMap)
      : logs_(logs), job_(job), railMap_(railMap), progress_(logs, job) {}

  JobHangs find() {
    JobHangs out;
    out.job = logs_.jobs[job_];
    out.losses = jobLosses(logs_, job_);
    collectRanks();
    collectWatchdog();
    collectStalls(&out);
    collectCompletions();
    for (const OpId& id : candidates_) classify(id, &out);
    addGaps(&out);
    addRootCauses(&out);
    return out;
  }

 private:
  void collectRanks() {
    for (const Stream& s : logs_.streams)
      if (s.job == job_) nRanks_[{s.hasComm, s.comm}] = std::max(nRanks_[{s.hasComm, s.comm}], s.nRanks);
    for (const auto& [who, host] : progress_.ranks()) hosts_[{who.hasComm, who.comm}][who.rank] = host;
    for (const Stream& s : logs_.streams)
      if (s.job == job_ && s.rank >= 0)
        processes_.try_emplace(CommRank{s.hasComm, s.comm, s.rank}, ProcessId{logs_.hosts[s.host], s.pid});
  }

  void collectWatchdog() {
    for (const HangRecord& h : logs_.hangs) {
      const formats::profile::OperationRecord& r = h.parsed.record;
      if (h.parsed.identity.job != logs_.jobs[job_] || r.rank < 0) continue;
      const bool p2p = r.operation.view() == "Send" || r.operation.view() == "Recv";
      if (p2p && r.peer < 0) continue;
      const CommId comm{r.comm.has_value(), r.comm.value_or(0)};
      nRanks_[comm] = std::max(nRanks_[comm], r.nRanks);
      hosts_[comm].try_emplace(r.rank, h.parsed.identity.host);
      processes_.try_emplace(CommRank{comm.first, comm.second, r.rank},
                             ProcessId{h.parsed.identity.host, h.parsed.identity.pid});
      StuckRank stuck{r.rank, h.parsed.identity.host, true, -1, static_cast<double>(r.stuckForNs) / 1000.0, false, {}};
      for (uint32_t i = 0; i < r.nFlows; ++i) {
        const formats::profile::NetFlow& f = r.flows[i];
        if (f.outstanding > 0)
          stuck.flows.push_back(
              StuckFlow{f.channel, f.peer, f.send, f.outstanding, std::string(f.hca.view()), f.device, f.rail});
      }
      const OpId id{comm, keyOf(r, p2p)};
      candidates_.insert(id);
      watchdog_[id][r.rank] = Watched{std::move(stuck), r.start.realtimeNs};
      if (!r.algorithm.view().empty()) algorithms_.try_emplace(id, std::string(r.algorithm.view()));
      if (r.userTag.value_or(0) != 0 || r.path != formats::profile::OperationPath::Tuned)
        traits_.try_emplace(id, CollectiveTrait{r.userTag.value_or(0) != 0, r.userTag.value_or(0), r.path, false});
      watchedRanks_.insert(CommRank{comm.first, comm.second, r.rank});
    }
  }

  // A rank's stall is looked at unless a hang record says where it is; when its records were reported
  // lost after its last completion, it is a gap of unknown outcome rather than a hang.
  void collectStalls(JobHangs* out) {
    for (const Stall& stall : progress_.stalls) {
      if (watchedRanks_.contains(stall.who)) continue;
      const CommRank& w = stall.who;
      if (!recordsLostAfter(logs_, job_, w.hasComm, w.comm, w.rank, progress_.lastEndNs(w))) {
        candidates_.insert({{w.hasComm, w.comm}, stall.key});
        continue;
      }
      RecordGap gap{w.hasComm,     w.comm,
                    w.rank,        progress_.host(w),
                    stall.key.op,  stall.key.from,
                    stall.key.to,  stall.key.seq,
                    stall.key.seq, 0,
                    true,          progress_.lastSeq(w, stall.key)};
      out->gaps.push_back(std::move(gap));
    }
  }

  // The completions of the operations looked at: one pass over the samples, one over the transfers.
  void collectCompletions() {
    if (candidates_.empty()) return;
    const SampleTraitIndex sampleTraits(logs_);
    size_t close = 0;
    for (uint32_t i = 0; i < logs_.samples.size(); ++i) {
      const Sample& sample = logs_.samples[i];
      while (close < logs_.unusualCloses.size() && logs_.unusualCloses[close].sample < i) ++close;
      const Stream& s = logs_.streams[sample.stream];
      if (s.job != job_ || s.rank < 0) continue;
      const OpId id{{s.hasComm, s.comm}, OpKey{logs_.ops[sample.op], sample.seq}};
      if (!candidates_.contains(id)) continue;
      const bool unusual = close < logs_.unusualCloses.size() && logs_.unusualCloses[close].sample == i;
      completions_[id][s.rank] = Completion{
          sample.endRealtimeNs, unusual ? logs_.unusualCloses[close].closedBy : formats::profile::CloseReason::Events};
      if (const SampleTraits* t = sampleTraits.of(i))
        traits_.try_emplace(id, CollectiveTrait{t->tagged, t->userTag, t->path, false});
    }
    for (const P2pSample& p : logs_.p2p) {
      const Stream& s = logs_.streams[p.stream];
      if (s.job != job_ || s.rank < 0) continue;
      const OpId id{{s.hasComm, s.comm}, OpKey{"p2p", p.seq, p.send ? s.rank : p.peer, p.send ? p.peer : s.rank}};
      if (candidates_.contains(id)) completions_[id][s.rank] = Completion{p.endRealtimeNs, p.closedBy};
    }
  }

  // The ranks an operation concerns: a transfer's two ends, else every rank of the communicator.
  std::vector<int> ranksOf(const OpId& id) const {
    if (id.second.p2p()) return {id.second.from, id.second.to};
    std::set<int> ranks;
    if (const auto it = hosts_.find(id.first); it != hosts_.end())
      for (const auto& [rank, host] : it->second) ranks.insert(rank);
    if (const auto it = nRanks_.find(id.first); it != nRanks_.end())
      for (int r = 0; r < it->second; ++r) ranks.insert(r);
    return {ranks.begin(), ranks.end()};
  }

  void classify(const OpId& id, JobHangs* out) {
    const auto [hasComm, comm] = id.first;
    const OpKey& key = id.second;
    HungCollective hung;
    hung.hasComm = hasComm, hung.comm = comm, hung.seq = key.seq, hung.op = key.op, hung.from = key.from;
    hung.to = key.to, hung.nRanks = nRanks_[id.first];
    if (const auto a = algorithms_.find(id); a != algorithms_.end()) hung.algorithm = a->second;
    if (const auto t = traits_.find(id); t != traits_.end()) hung.trait = t->second;
    const auto& watched = watchdog_[id];
    const auto& completed = completions_[id];
    for (const int rank : ranksOf(id)) {
      const CommRank who{hasComm, comm, rank};
      const auto w = watched.find(rank);
      const auto c = completed.find(rank);
      const bool finalized = c != completed.end() && c->second.closedBy == formats::profile::CloseReason::Finalize;
      if (w != watched.end() && c != completed.end() && !finalized) {
        out->resolved.push_back(ResolvedHang{hasComm, comm, key.seq, key.op, key.from, key.to, rank,
                                             w->second.stuck.host,
                                             formats::profile::closeReasonName(c->second.closedBy),
                                             static_cast<double>(c->second.endNs - w->second.startNs) / 1e9});
        hung.completed.push_back(rank);
      } else if (w != watched.end()) {
        StuckRank stuck = w->second.stuck;
        stuck.lastCompletedSeq = progress_.lastSeq(who, key), stuck.closedAtFinalize = finalized;
        hung.stuck.push_back(std::move(stuck));
      } else if (c != completed.end()) {
        hung.completed.push_back(rank);
      } else if (!progress_.wrote(who)) {
        hung.silent.push_back(rank);
      } else if (progress_.passed(who, key) ||
                 recordsLostAfter(logs_, job_, hasComm, comm, rank, progress_.lastEndNs(who))) {
        hung.lost.push_back(LostRank{rank, progress_.host(who), progress_.passed(who, key)});
      } else {
        hung.stuck.push_back(StuckRank{rank, progress_.host(who), false, progress_.lastSeq(who, key), 0, false, {}});
      }
    }
    if (hung.stuck.empty()) return;  // resolved, or only records lost: not a hang
    out->hung.push_back(std::move(hung));
  }

  void addGaps(JobHangs* out) const {
    for (const MissingRun& run : progress_.gaps)
      out->gaps.push_back(RecordGap{run.who.hasComm, run.who.comm, run.who.rank, progress_.host(run.who), run.first.op,
                                    run.first.from, run.first.to, run.first.seq, run.lastSeq, run.count, false,
                                    progress_.lastSeq(run.who, run.first)});
    std::sort(out->gaps.begin(), out->gaps.end(), [](const RecordGap& a, const RecordGap& b) {
      return std::tie(a.hasComm, a.comm, a.rank, a.op, a.from, a.to, a.firstSeq) <
             std::tie(b.hasComm, b.comm, b.rank, b.op, b.from, b.to, b.firstSeq);
    });
  }

  // The sinks of the waits-for graph; a hung operation's suspect link is a link (or a NIC's link) among
  // them, else none.
  // A rank silent in a communicator (its records of it lost: stopped or killed before its writer flushed
  // them) is the job's one process that wrote no record of that communicator and no hang record, when
  // there is exactly one: its ranks are then one node of the graph. A process whose log holds only its
  // header counts too.
  void attributeSilentRanks(const JobHangs& out) {
    std::set<ProcessId> all;
    std::map<CommId, std::set<ProcessId>> members;
    for (const auto& [who, process] : processes_) all.insert(process), members[{who.hasComm, who.comm}].insert(process);
    for (const WriterProcess& w : logs_.writers)
      if (w.job == logs_.jobs[job_]) all.insert(ProcessId{w.host, w.pid});
    std::map<CommId, std::set<int>> silent;
    std::set<ProcessId> alive;  // an unresolved hang record: waiting, not the silent one
    for (const HungCollective& h : out.hung) {
      silent[{h.hasComm, h.comm}].insert(h.silent.begin(), h.silent.end());
      for (const StuckRank& s : h.stuck)
        if (const auto p = processes_.find(CommRank{h.hasComm, h.comm, s.rank}); s.watchdog && p != processes_.end())
          alive.insert(p->second);
    }
    for (const auto& [comm, ranks] : silent) {
      if (ranks.size() != 1) continue;
      std::vector<ProcessId> outside;
      for (const ProcessId& p : all)
        if (!members[comm].contains(p) && !alive.contains(p)) outside.push_back(p);
      if (outside.size() == 1) processes_.try_emplace(CommRank{comm.first, comm.second, *ranks.begin()}, outside[0]);
    }
  }

  void addRootCauses(JobHangs* out) {
    attributeSilentRanks(*out);
    GraphAnswer answer = findRootCauses(out->hung, processes_);
    for (const ChosenLink& chosen : answer.links) {
      HungCollective& h = out->hung[chosen.hung];
      const SuspectLink link =
          describeLink(h, chosen.from, chosen.to, hosts_[{h.hasComm, h.comm}], logs_, job_, railMap_);
      if (!h.suspect) h.suspect = link;
      for (RootCause& cause : answer.causes)
        if (cause.kind == CauseKind::Link && cause.linkFrom && cause.linkFrom->rank == chosen.from &&
            cause.linkTo->rank == chosen.to && cause.comm == h.comm && cause.seq == h.seq)
          cause.linkFrom = link.from, cause.linkTo = link.to;
    }
    for (RootCause& cause : answer.causes) cause.text = rootCauseText(cause);
    out->causes = std::move(answer.causes);
  }

  const ProfileLogs& logs_;
  uint32_t job_;
  const formats::RailMap* railMap_;
  JobProgress progress_;
  std::map<CommId, int> nRanks_;
  std::map<CommId, std::map<int, std::string>> hosts_;
  RankProcesses processes_;
  std::set<OpId> candidates_;
  std::map<OpId, std::map<int, Watched>> watchdog_;
  std::map<OpId, std::string> algorithms_;
  std::map<OpId, CollectiveTrait> traits_;
  std::set<CommRank> watchedRanks_;
  std::map<OpId, std::map<int, Completion>> completions_;
};

}  // namespace

HangReport analyseHangs(const ProfileLogs& logs, const formats::RailMap* railMap,
                        const std::optional<std::string>& job) {
  HangReport report;
  std::vector<uint32_t> jobs(logs.jobs.size());
  for (uint32_t j = 0; j < jobs.size(); ++j) jobs[j] = j;
  std::sort(jobs.begin(), jobs.end(), [&](uint32_t a, uint32_t b) { return logs.jobs[a] < logs.jobs[b]; });
  for (uint32_t j : jobs)
    if (!job || logs.jobs[j] == *job) report.jobs.push_back(JobHangFinder(logs, j, railMap).find());
  return report;
}

}  // namespace railtune::analysis::profile
