// `railtune paths check` (path_check.h): usage tables, then findings, violations first.
#include "analysis/paths/path_check.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

#include "analysis/paths/path_check_internal.h"
#include "analysis/paths/path_check_text.h"
#include "common/natural_order.h"

namespace railtune::analysis::paths {
namespace detail {

std::string rankText(int rank) {
  return rank >= 0 ? "rank " + std::to_string(rank) : "rank ?";
}

std::string railText(int rail) {
  return rail >= 0 ? "rail " + std::to_string(rail) : "rail ?";
}

std::string hexDigest(uint64_t digest) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(digest));
  return text;
}

std::string endText(const ConnectionEnd& end) {
  return rankText(end.rank) + " on " + end.host + " " +
         (end.hca.empty() ? "device " + std::to_string(end.device) : end.hca) + " (" + railText(end.rail) + ")";
}

std::vector<Logical> logicalConnections(const JobPaths& job) {
  std::vector<Logical> out;
  out.reserve(job.connections.size());
  for (size_t i = 0; i < job.connections.size(); ++i) {
    const Connection& c = job.connections[i];
    const long index = static_cast<long>(i);
    if (c.send) out.push_back(Logical{index, c.peerIndex});
    if (!c.send && c.peerIndex < 0) out.push_back(Logical{-1, index});
  }
  return out;
}

int senderRail(const JobPaths& job, const Logical& l) {
  if (l.send >= 0) return job.connections[static_cast<size_t>(l.send)].local.rail;
  return job.connections[static_cast<size_t>(l.recv)].remote.rail;
}

int receiverRail(const JobPaths& job, const Logical& l) {
  if (l.recv >= 0) return job.connections[static_cast<size_t>(l.recv)].local.rail;
  return job.connections[static_cast<size_t>(l.send)].remote.rail;
}

}  // namespace detail

namespace {

using detail::Logical;

// Traffic per (rail, plane) of the sender's NIC (the receiver's when only it logged).
std::vector<RailUse> railUse(const JobPaths& job, const std::vector<Logical>& logical) {
  std::map<std::pair<int, int>, RailUse> rails;
  for (const Logical& l : logical) {
    const Connection& c = job.connections[static_cast<size_t>(l.send >= 0 ? l.send : l.recv)];
    RailUse& use = rails[{c.local.rail, c.local.plane}];
    use.rail = c.local.rail;
    use.plane = c.local.plane;
    ++use.connections;
    use.bytes += c.send ? c.traffic.bytesSent : c.traffic.bytesReceived;
  }
  std::vector<RailUse> out;
  for (const auto& [key, use] : rails) out.push_back(use);
  return out;
}

// Host, then HCA, in natural order (mlx5_2 before mlx5_11).
struct HostHcaLess {
  bool operator()(const std::pair<std::string, std::string>& a, const std::pair<std::string, std::string>& b) const {
    const int host = naturalCompare(a.first, b.first);
    return host != 0 ? host < 0 : naturalLess(a.second, b.second);
  }
};

// Every record counts at its own NIC: a connection between two logged hosts shows at both.
std::vector<NicUse> nicUse(const JobPaths& job) {
  std::map<std::pair<std::string, std::string>, NicUse, HostHcaLess> nics;
  for (const Connection& c : job.connections) {
    NicUse& use = nics[{c.local.host, c.local.hca}];
    use.host = c.local.host;
    use.hca = c.local.hca;
    use.rail = c.local.rail;
    use.plane = c.local.plane;
    ++use.connections;
    use.bytesSent += c.traffic.bytesSent;
    use.bytesReceived += c.traffic.bytesReceived;
  }
  std::vector<NicUse> out;
  out.reserve(nics.size());
  for (auto& [key, use] : nics) out.push_back(std::move(use));
  return out;
}

}  // namespace

int CheckReport::violations() const {
  return static_cast<int>(std::count_if(findings.begin(), findings.end(),
                                        [](const Finding& f) { return f.severity == Severity::Violation; }));
}

CheckReport checkPaths(const JobPaths& job, const formats::RailMap* railMap) {
  CheckReport report;
  report.job = job.job;
  report.hosts = static_cast<int>(job.hosts.size());
  const std::vector<Logical> logical = detail::logicalConnections(job);
  const detail::RailMapIndex map(railMap);
  report.connections = static_cast<int>(logical.size());
  report.connectionEnds = static_cast<int>(job.connections.size());
  report.fromNcclLog = static_cast<int>(std::count_if(logical.begin(), logical.end(), [&job](const Logical& l) {
    return job.connections[static_cast<size_t>(l.send >= 0 ? l.send : l.recv)].fromNcclLog;
  }));
  report.rails = railUse(job, logical);
  report.nics = nicUse(job);
  report.railsUnchecked = detail::findCrossRail(job, logical, map, &report.findings);
  detail::findDigestMismatches(job, logical, &report.findings);
  detail::findAsymmetricRails(job, logical, &report.findings);
  detail::findUnusedRails(job, map, &report.findings);
  detail::findMissingHosts(job, &report.findings);
  detail::findNeverClosed(job, &report.unclosed, &report.findings);
  detail::findIdleQps(job, logical, &report.findings);
  report.verbs = detail::verbsUse(job);
  std::stable_sort(report.findings.begin(), report.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.severity < b.severity; });
  return report;
}

}  // namespace railtune::analysis::paths
