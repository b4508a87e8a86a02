// The links of buildPathGraph: one per connection, the sender's record standing for both ends when both
// logged it, flagged with the check's violations against either end's record.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "analysis/paths/path_render.h"
#include "analysis/paths/path_render_links.h"
#include "analysis/paths/path_render_style.h"

namespace railtune::analysis::paths {
namespace {

constexpr uint8_t kCrossRail = 1, kDigestMismatch = 2;

std::vector<uint8_t> violationFlags(const CheckReport& report, size_t connections) {
  std::vector<uint8_t> flags(connections, 0);
  for (const Finding& f : report.findings) {
    if (f.severity != Severity::Violation) continue;
    const uint8_t flag = f.kind == FindingKind::CrossRail || f.kind == FindingKind::CrossPlane ? kCrossRail
                         : f.kind == FindingKind::DigestMismatch                               ? kDigestMismatch
                                                                                               : 0;
    for (const long index : f.connections)
      if (index >= 0 && static_cast<size_t>(index) < connections) flags[static_cast<size_t>(index)] |= flag;
  }
  return flags;
}

const Connection* peerOf(const JobPaths& job, const Connection& c) {
  if (c.peerIndex < 0 || static_cast<size_t>(c.peerIndex) >= job.connections.size()) return nullptr;
  return &job.connections[static_cast<size_t>(c.peerIndex)];
}

// Which of a logged pair is drawn: the sender's record (its bytes are what went over the wire), or the
// first when both claim the same direction.
bool drawn(const JobPaths& job, size_t index) {
  const Connection& c = job.connections[index];
  const Connection* peer = peerOf(job, c);
  if (peer == nullptr) return true;
  if (c.send != peer->send) return c.send;
  return static_cast<long>(index) < c.peerIndex;
}

// One line of an ib connection's verbs facts for the link's details (RenderLink::verbs).
std::string linkVerbsText(const Connection& c) {
  const formats::path_log::VerbsFacts& v = c.verbs;
  if (!v.present) return "";
  std::string out = c.local.hca + ":" + std::to_string(v.port) + " " + std::string(v.linkLayer.view()) +
                    (v.adaptiveRouting ? " (adaptive routing)" : "") + ", MTU " + std::to_string(v.mtu) + ", GID " +
                    std::string(v.gid.view());
  if (v.gidIndex >= 0) out += " (index " + std::to_string(v.gidIndex) + ")";
  out += ", " + std::to_string(v.qpCount) + (v.qpCount == 1 ? " QP" : " QPs");
  for (int q = 0; q < v.qpCount && q < formats::path_log::kMaxQpsRecorded; ++q) {
    char pair[32];
    std::snprintf(pair, sizeof(pair), " 0x%x->0x%x", v.localQpn[q], v.remoteQpn[q]);
    out += pair;
  }
  const std::vector<uint64_t>& perQp = c.traffic.bytesPerQp;
  for (size_t q = 0; q < perQp.size(); ++q) out += (q == 0 ? ", bytes per QP " : " / ") + style::bytesText(perQp[q]);
  return out;
}

}  // namespace

std::vector<RenderLink> buildLinks(const JobPaths& job, const CheckReport& report, const EndLocator& locate) {
  const std::vector<uint8_t> flags = violationFlags(report, job.connections.size());
  std::vector<RenderLink> links;
  for (size_t i = 0; i < job.connections.size(); ++i) {
    if (!drawn(job, i)) continue;
    const Connection& c = job.connections[i];
    const Connection* peer = peerOf(job, c);
    RenderLink link;
    link.connection = static_cast<long>(i);
    link.from = locate(c.local.host, c.local.hca, c.local.gpu, c.local.rank);
    const int peerRank = c.remote.rank >= 0 || peer == nullptr ? c.remote.rank : peer->local.rank;
    link.to = locate(c.remote.host, c.remote.hca, peer ? peer->local.gpu : -1, peerRank);
    link.rail = c.local.rail;
    link.plane = c.local.plane;
    link.bytes = c.send ? c.traffic.bytesSent : c.traffic.bytesReceived;
    link.messages = c.send ? c.traffic.messagesSent : c.traffic.messagesReceived;
    const uint8_t flag = flags[i] | (peer ? flags[static_cast<size_t>(c.peerIndex)] : 0);
    link.crossRail = (flag & kCrossRail) != 0;
    link.digestMismatch = (flag & kDigestMismatch) != 0;
    if (c.fromNcclLog) link.ncclLine = c.source;
    link.verbs = linkVerbsText(c);
    links.push_back(std::move(link));
  }
  // Violations last, so that they are drawn on top of everything else.
  std::stable_partition(links.begin(), links.end(), [](const RenderLink& l) { return !l.violation(); });
  return links;
}

}  // namespace railtune::analysis::paths
