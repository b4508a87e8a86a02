// `railtune paths check` on ib connections (path_check_internal.h): the verbs facts each end logged, and a note
// when a connection's data went over some of its QPs and not others (NCCL splits each message across the
// connection's QPs, so an idle QP on a busy connection means a QP that never got work, or lost it).
#include <algorithm>
#include <cstdio>
#include <numeric>

#include "analysis/paths/path_check_internal.h"
#include "analysis/paths/path_check_text.h"

namespace railtune::analysis::paths::detail {
namespace {

std::string qpnText(uint32_t qpn) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%x", qpn);
  return text;
}

// The peer's end as the record says it, with the rank its own record knows when the record itself does not.
ConnectionEnd peerEnd(const JobPaths& job, const Connection& c) {
  ConnectionEnd end = c.remote;
  if (end.rank < 0 && c.peerIndex >= 0 && static_cast<size_t>(c.peerIndex) < job.connections.size())
    end.rank = job.connections[static_cast<size_t>(c.peerIndex)].local.rank;
  return end;
}

VerbsUse verbsOf(const JobPaths& job, const Connection& c, long index) {
  const formats::path_log::VerbsFacts& v = c.verbs;
  VerbsUse use;
  use.connection = index;
  use.host = c.local.host, use.hca = c.local.hca, use.pid = c.local.pid, use.rank = c.local.rank;
  use.send = c.send;
  use.port = v.port;
  use.linkLayer = std::string(v.linkLayer.view());
  use.gid = std::string(v.gid.view());
  use.gidIndex = v.gidIndex;
  use.mtu = v.mtu;
  use.adaptiveRouting = v.adaptiveRouting;
  use.peerHost = c.remote.host, use.peerHca = c.remote.hca, use.peerRank = peerEnd(job, c).rank;
  const int n = std::clamp(v.qpCount, 0, formats::path_log::kMaxQpsRecorded);
  use.qps.assign(v.localQpn, v.localQpn + n);
  use.peerQps.assign(v.remoteQpn, v.remoteQpn + n);
  use.bytesPerQp = c.traffic.bytesPerQp;
  return use;
}

}  // namespace

std::vector<VerbsUse> verbsUse(const JobPaths& job) {
  std::vector<VerbsUse> out;
  for (size_t i = 0; i < job.connections.size(); ++i)
    if (job.connections[i].verbs.present) out.push_back(verbsOf(job, job.connections[i], static_cast<long>(i)));
  return out;
}

void findIdleQps(const JobPaths& job, const std::vector<Logical>& logical, std::vector<Finding>* findings) {
  for (const Logical& l : logical) {
    const long index = l.send >= 0 ? l.send : l.recv;
    const Connection& c = job.connections[static_cast<size_t>(index)];
    const std::vector<uint64_t>& perQp = c.traffic.bytesPerQp;
    const uint64_t total = std::accumulate(perQp.begin(), perQp.end(), uint64_t{0});
    if (perQp.size() < 2 || total == 0) continue;
    std::string idle;
    int idleCount = 0;
    for (size_t q = 0; q < perQp.size(); ++q) {
      if (perQp[q] != 0) continue;
      const bool known = c.verbs.present && static_cast<int>(q) < c.verbs.qpCount;
      idle += (idleCount++ == 0 ? "" : ", ") + std::to_string(q) +
              (known ? " (qpn " + qpnText(c.verbs.localQpn[q]) + ")" : std::string());
    }
    if (idleCount == 0) continue;
    std::vector<long> records{index};
    const long other = l.send >= 0 ? l.recv : -1;
    if (other >= 0) records.push_back(other);
    findings->push_back(Finding{Severity::Note, FindingKind::IdleQp,
                                "idle QP: " + endText(c.local) + (c.send ? " -> " : " <- ") + endText(peerEnd(job, c)) +
                                    ": " + (idleCount == 1 ? "QP " : "QPs ") + idle + " of " +
                                    std::to_string(perQp.size()) + " carried no bytes while the connection carried " +
                                    std::to_string(total) + " bytes (" + c.source + ")",
                                std::move(records), c.local.host, c.remote.host, c.local.rail});
  }
}

}  // namespace railtune::analysis::paths::detail
