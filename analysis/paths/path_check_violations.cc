// The check's violations: cross-rail connections and configuration digest mismatches, one finding per
// logical connection naming both ends' records (path_check_internal.h).
#include <algorithm>

#include "analysis/paths/path_check_internal.h"
#include "analysis/paths/path_check_text.h"

namespace railtune::analysis::paths::detail {
namespace {

// Whether one end's own NIC is on another rail than the GPU it serves, and by whose account.
struct EndVerdict {
  bool judged = false;  // the end's NIC rail and its GPU's rail were both known
  bool wrong = false;
  int expected = -1, actual = -1;
  bool byRailMap = false;  // the rail map given says so (the writer's own map may be stale)
};

EndVerdict judgeEnd(const Connection& c, const RailMapIndex& map) {
  const bool byRecord = c.expectedRail >= 0 && c.local.rail >= 0;
  if (byRecord && c.expectedRail != c.local.rail) return EndVerdict{true, true, c.expectedRail, c.local.rail, false};
  // A PXN send leaves through the proxy GPU's NIC: its expected rail is the proxy GPU's, which the import
  // computed (with this rail map when given); the sending GPU's own rail is not the one to hold it to.
  if (!map.present() || c.proxyRank >= 0) return EndVerdict{byRecord};
  const std::optional<int> nic = map.nicRail(c.local.host, c.local.hca);
  const std::vector<int>* gpu = map.gpuRails(c.local.host, c.local.gpu);
  if (!nic || gpu == nullptr) return EndVerdict{byRecord};
  if (std::find(gpu->begin(), gpu->end(), *nic) != gpu->end()) return EndVerdict{true};
  return EndVerdict{true, true, gpu->front(), *nic, true};
}

const Connection* recordAt(const JobPaths& job, long index) {
  return index >= 0 ? &job.connections[static_cast<size_t>(index)] : nullptr;
}

// The other end of `c`: its own record's view when it logged, else what the handshake said.
const ConnectionEnd& otherEnd(const JobPaths& job, const Connection& c) {
  const Connection* peer = recordAt(job, c.peerIndex);
  return peer != nullptr ? peer->local : c.remote;
}

std::string wrongEndMessage(const JobPaths& job, const Connection& c, const EndVerdict& v) {
  std::string text = "cross-rail: " + rankText(c.local.rank) + " on " + c.local.host;
  if (c.local.gpu >= 0) text += " GPU " + std::to_string(c.local.gpu);
  text += " (" + railText(v.expected) + ") " + (c.send ? "sends through " : "receives through ") + c.local.hca + " (" +
          railText(v.actual) + ") " + (c.send ? "to " : "from ") + endText(otherEnd(job, c));
  if (v.byRailMap) text += " (rails from the rail map given; the writer's own record did not flag it)";
  return text;
}

std::vector<long> indicesOf(const Logical& l) {
  std::vector<long> out;
  if (l.send >= 0) out.push_back(l.send);
  if (l.recv >= 0) out.push_back(l.recv);
  return out;
}

Finding violation(FindingKind kind, std::string message, const Logical& l, const ConnectionEnd& at,
                  const ConnectionEnd& peer, int rail) {
  return Finding{Severity::Violation, kind, std::move(message), indicesOf(l), at.host, peer.host, rail};
}

const ConnectionEnd& senderOf(const JobPaths& job, const Logical& l) {
  const Connection& c = job.connections[static_cast<size_t>(l.send >= 0 ? l.send : l.recv)];
  return c.send ? c.local : otherEnd(job, c);
}

const ConnectionEnd& receiverOf(const JobPaths& job, const Logical& l) {
  const Connection& c = job.connections[static_cast<size_t>(l.send >= 0 ? l.send : l.recv)];
  return c.send ? otherEnd(job, c) : c.local;
}

// An end's rail: what its record says, else the rail map's for its host's HCA (a writer without a rail map logs none).
int railOf(const ConnectionEnd& end, const RailMapIndex& map) {
  if (end.rail >= 0 || !map.present()) return end.rail;
  return map.nicRail(end.host, end.hca).value_or(-1);
}

std::string planeEndText(const ConnectionEnd& end) {
  return endText(end) + " plane " + std::to_string(end.plane);
}

// Both ends on one rail but on different planes: a multi-plane fabric's planes are separate networks (a NIC per
// plane per GPU), so the traffic leaves its plane. Unknown planes (-1: single plane) are not compared.
void findCrossPlane(const JobPaths& job, const Logical& l, std::vector<Finding>* findings) {
  const ConnectionEnd& sender = senderOf(job, l);
  const ConnectionEnd& receiver = receiverOf(job, l);
  if (sender.plane < 0 || receiver.plane < 0 || sender.plane == receiver.plane) return;
  findings->push_back(violation(FindingKind::CrossPlane,
                                "cross-plane: " + planeEndText(sender) + " sends to " + planeEndText(receiver) +
                                    ": one rail, two planes, so the traffic leaves its plane",
                                l, sender, receiver, sender.rail));
}

}  // namespace

int findCrossRail(const JobPaths& job, const std::vector<Logical>& logical, const RailMapIndex& map,
                  std::vector<Finding>* findings) {
  int unchecked = 0;
  for (const Logical& l : logical) {
    bool found = false, judged = false;
    for (const Connection* c : {recordAt(job, l.send), recordAt(job, l.recv)}) {
      if (c == nullptr || found) continue;
      const EndVerdict verdict = judgeEnd(*c, map);
      judged = judged || verdict.judged;
      if (!verdict.wrong) continue;
      findings->push_back(violation(FindingKind::CrossRail, wrongEndMessage(job, *c, verdict), l, c->local,
                                    otherEnd(job, *c), verdict.actual));
      found = true;
    }
    const int from = railOf(senderOf(job, l), map), to = railOf(receiverOf(job, l), map);
    // Both ends' rails known is a check too (the traffic stays on one rail or crosses the spine); a connection
    // with neither that nor one end's NIC held to its GPU's rail was not checked at all.
    if (!judged && (from < 0 || to < 0)) ++unchecked;
    if (found || from < 0 || to < 0) continue;
    if (from == to) {
      findCrossPlane(job, l, findings);
      continue;
    }
    // Both NICs sit on their GPUs' rails, but not on the same one: the traffic goes through the spine.
    ConnectionEnd sender = senderOf(job, l), receiver = receiverOf(job, l);
    sender.rail = from;  // the rail map's where the records named none
    receiver.rail = to;
    findings->push_back(violation(FindingKind::CrossRail,
                                  "cross-rail: " + endText(sender) + " sends to " + endText(receiver) +
                                      ": the two ends are on different rails, so the traffic crosses the spine",
                                  l, sender, receiver, from));
  }
  return unchecked;
}

void findDigestMismatches(const JobPaths& job, const std::vector<Logical>& logical, std::vector<Finding>* findings) {
  for (const Logical& l : logical) {
    for (const Connection* c : {recordAt(job, l.send), recordAt(job, l.recv)}) {
      if (c == nullptr || c->localDigest == c->remoteDigest) continue;
      const ConnectionEnd& other = otherEnd(job, *c);
      findings->push_back(violation(
          FindingKind::DigestMismatch,
          "digest mismatch: " + rankText(c->local.rank) + " on " + c->local.host + " (configuration " +
              hexDigest(c->localDigest) + ") and " + rankText(other.rank) + " on " + other.host + " (configuration " +
              hexDigest(c->remoteDigest) + ") were started with different rules, rail map or environment",
          l, c->local, other, c->local.rail));
      break;
    }
  }
}

}  // namespace railtune::analysis::paths::detail
