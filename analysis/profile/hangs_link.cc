// The ends of a link (hangs_link.h). Every outstanding flow of a stuck rank points along a directed
// link: a send from A to B at A -> B, a receive at B from A at the same A -> B.
#include "analysis/profile/hangs_link.h"

namespace railtune::analysis::profile {
namespace {

class LinkFinder {
 public:
  LinkFinder(const std::map<int, std::string>& hosts, const ProfileLogs& logs, uint32_t job,
             const formats::RailMap* railMap)
      : hosts_(hosts), logs_(logs), job_(job), railMap_(railMap) {}

  SuspectLink describe(const HungCollective& hung, int from, int to) const {
    SuspectLink link;
    for (const StuckRank& stuck : hung.stuck)
      for (const StuckFlow& flow : stuck.flows) {
        if (flow.peer < 0 || flow.outstanding == 0) continue;
        ++link.flowsConsidered;
        if (flow.send && stuck.rank == from && flow.peer == to) ++link.sendFlows;
        if (!flow.send && stuck.rank == to && flow.peer == from) ++link.recvFlows;
      }
    link.from = linkEnd(hung, from, to, true);
    link.to = linkEnd(hung, to, from, false);
    if (link.to.host.empty() && pathEnd(from, to, true) != nullptr) link.to.host = pathEnd(from, to, true)->peerHost;
    return link;
  }

  // The end of the link at `rank`, talking to `peer`: its NIC from its own stuck flows, else from its
  // path log; its GPU from the path log, else the rail map's GPU for that NIC.
  LinkEnd linkEnd(const HungCollective& hung, int rank, int peer, bool send) const {
    LinkEnd end;
    end.rank = rank;
    if (const auto it = hosts_.find(rank); it != hosts_.end()) end.host = it->second;
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
    const formats::RailMapHost* mapped = railMap_ != nullptr && !hca.empty() ? railMap_->findHost(host) : nullptr;
    if (mapped == nullptr) return -1;
    for (const formats::RailMapGpu& gpu : mapped->gpus)
      for (const formats::RailMapNic& nic : gpu.nics)
        if (nic.hca == hca) return gpu.index;
    return -1;
  }

  const std::map<int, std::string>& hosts_;
  const ProfileLogs& logs_;
  uint32_t job_;
  const formats::RailMap* railMap_;
};

}  // namespace

SuspectLink describeLink(const HungCollective& hung, int from, int to, const std::map<int, std::string>& hosts,
                         const ProfileLogs& logs, uint32_t job, const formats::RailMap* railMap) {
  return LinkFinder(hosts, logs, job, railMap).describe(hung, from, to);
}

}  // namespace railtune::analysis::profile
