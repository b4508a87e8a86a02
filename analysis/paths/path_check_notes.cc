// The check's notes: asymmetric rail counts between two hosts, unused rails, hosts that logged nothing,
// connections never closed (path_check_internal.h). None of them fails the check.
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <set>
#include <tuple>

#include "analysis/paths/path_check_internal.h"
#include "analysis/paths/path_check_text.h"
#include "common/natural_order.h"

namespace railtune::analysis::paths::detail {
namespace {

const ConnectionEnd& senderEnd(const JobPaths& job, const Logical& l) {
  if (l.send >= 0) return job.connections[static_cast<size_t>(l.send)].local;
  return job.connections[static_cast<size_t>(l.recv)].remote;
}

const ConnectionEnd& receiverEnd(const JobPaths& job, const Logical& l) {
  if (l.recv >= 0) return job.connections[static_cast<size_t>(l.recv)].local;
  return job.connections[static_cast<size_t>(l.send)].remote;
}

// Two hosts and a rail, hosts in natural order (r2 before r10).
struct HostsRailLess {
  bool operator()(const std::tuple<std::string, std::string, int>& a,
                  const std::tuple<std::string, std::string, int>& b) const {
    if (const int c = naturalCompare(std::get<0>(a), std::get<0>(b)); c != 0) return c < 0;
    if (const int c = naturalCompare(std::get<1>(a), std::get<1>(b)); c != 0) return c < 0;
    return std::get<2>(a) < std::get<2>(b);
  }
};

struct HostPidLess {
  bool operator()(const std::pair<std::string, int>& a, const std::pair<std::string, int>& b) const {
    const int c = naturalCompare(a.first, b.first);
    return c != 0 ? c < 0 : a.second < b.second;
  }
};

// A process's own records: each is its end of a connection (docs/paths.md, "What is counted").
std::string ends(int count) {
  return std::to_string(count) + (count == 1 ? " connection end" : " connection ends");
}

std::string times(int count) {
  return std::to_string(count) + (count == 1 ? " connection" : " connections");
}

// "2026-12-02T05:41:07.123Z": a record's time_us (microseconds since the epoch, UTC).
std::string utcTimeText(int64_t timeUs) {
  const auto seconds = static_cast<time_t>(timeUs / 1000000);
  std::tm tm{};
  if (timeUs < 0 || ::gmtime_r(&seconds, &tm) == nullptr) return "time_us " + std::to_string(timeUs);
  char text[96];  // room for any int fields, so the compiler sees no truncation
  std::snprintf(text, sizeof(text), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(timeUs % 1000000 / 1000));
  return text;
}

// "12.5 s before", "at the time of": how long before the job's last record a process fell silent.
std::string silenceText(int64_t lastHeardUs, int64_t jobLastUs) {
  if (lastHeardUs >= jobLastUs) return "at the job's last record";
  char text[64];
  std::snprintf(text, sizeof(text), "%.3f s before the job's last record",
                static_cast<double>(jobLastUs - lastHeardUs) / 1e6);
  return text;
}

}  // namespace

void findAsymmetricRails(const JobPaths& job, const std::vector<Logical>& logical, std::vector<Finding>* findings) {
  // (first host, second host, rail) in name order → connections first→second, second→first.
  std::map<std::tuple<std::string, std::string, int>, std::pair<int, int>, HostsRailLess> counts;
  std::map<std::tuple<std::string, std::string, int>, std::vector<long>, HostsRailLess> members;
  for (const Logical& l : logical) {
    const std::string& from = senderEnd(job, l).host;
    const std::string& to = receiverEnd(job, l).host;
    if (from == to) continue;
    const bool forward = naturalLess(from, to);
    const auto key =
        forward ? std::make_tuple(from, to, senderRail(job, l)) : std::make_tuple(to, from, senderRail(job, l));
    (forward ? counts[key].first : counts[key].second) += 1;
    members[key].push_back(l.send >= 0 ? l.send : l.recv);
  }
  // Pairs that talk one way only (a ring's neighbours, a pipeline) are one-directional by design: what
  // can be compared is the rails used each way between hosts that talk both ways.
  std::set<std::pair<std::string, std::string>> forward, backward;
  for (const auto& [key, count] : counts) {
    if (count.first > 0) forward.emplace(std::get<0>(key), std::get<1>(key));
    if (count.second > 0) backward.emplace(std::get<0>(key), std::get<1>(key));
  }
  for (const auto& [key, count] : counts) {
    const std::pair<std::string, std::string> hosts(std::get<0>(key), std::get<1>(key));
    if (count.first == count.second || !forward.contains(hosts) || !backward.contains(hosts)) continue;
    const auto& [a, b, rail] = key;
    findings->push_back(Finding{Severity::Note, FindingKind::AsymmetricRails,
                                "asymmetric rails: " + a + " -> " + b + " uses " + railText(rail) + " for " +
                                    times(count.first) + ", " + b + " -> " + a + " for " + times(count.second) +
                                    " (tree algorithms are asymmetric in small jobs, so this is a note)",
                                members.at(key), a, b, rail});
  }
}

void findUnusedRails(const JobPaths& job, const RailMapIndex& map, std::vector<Finding>* findings) {
  std::set<int> used;
  for (const Connection& c : job.connections) {
    used.insert(c.local.rail);
    used.insert(c.remote.rail);
  }
  std::vector<int> plan = map.rails();
  std::string why = "a rail of the rail map";
  if (!map.present()) {
    const int highest = used.empty() ? -1 : *used.rbegin();
    for (int r = 0; r < highest; ++r) plan.push_back(r);
    why = "below the highest rail seen (" + railText(highest) + ")";
  }
  for (int rail : plan) {
    if (used.contains(rail)) continue;
    findings->push_back(Finding{Severity::Note,
                                FindingKind::UnusedRail,
                                "unused rail: " + railText(rail) + " (" + why + ") carried no connection in this job",
                                {},
                                "",
                                "",
                                rail});
  }
}

void findMissingHosts(const JobPaths& job, std::vector<Finding>* findings) {
  const std::set<std::string> logged(job.hosts.begin(), job.hosts.end());
  std::map<std::string, std::vector<long>, NaturalLess> missing;
  for (size_t i = 0; i < job.connections.size(); ++i) {
    const Connection& c = job.connections[i];
    // An imported connection whose peer's NCCL log is absent names no host: the loader says how many.
    if (c.fromNcclLog && c.remote.host.empty()) continue;
    if (!logged.contains(c.remote.host)) missing[c.remote.host].push_back(static_cast<long>(i));
  }
  for (auto& [host, connections] : missing) {
    const int n = static_cast<int>(connections.size());
    findings->push_back(Finding{Severity::Note, FindingKind::MissingHost,
                                "missing host: " + host + " wrote no path log for this job, though " + times(n) +
                                    (n == 1 ? " names it as its peer (its end is unchecked)"
                                            : " name it as their peer (its ends are unchecked)"),
                                std::move(connections), host, "", -1});
  }
}

// NCCL's proxy closes a connection's end when its communicator is destroyed or aborted (nccl
// src/transport/net.cc:1240 closeSend in sendProxyFree, :1291 closeRecv in recvProxyFree), and the net
// plugin writes a close record then. A connection with a connect record and no close therefore belongs
// to a process that was killed, crashed, or was still running when the logs were collected: its
// counters are those of its last snapshot (0 B when it had none). One note per process, with when it
// was last heard of. Connections imported from NCCL's logs are left out: NCCL logs no close.
void findNeverClosed(const JobPaths& job, std::vector<UnclosedProcess>* unclosed, std::vector<Finding>* findings) {
  struct Process {
    UnclosedProcess summary;
    std::vector<long> open;
  };
  std::map<std::pair<std::string, int>, Process, HostPidLess> processes;
  int64_t jobLast = 0;
  for (size_t i = 0; i < job.connections.size(); ++i) {
    const Connection& c = job.connections[i];
    if (c.fromNcclLog) continue;
    jobLast = std::max(jobLast, c.lastTimeUs);
    Process& p = processes[{c.local.host, c.local.pid}];
    p.summary.host = c.local.host, p.summary.pid = c.local.pid;
    ++p.summary.connections;
    p.summary.lastHeardUs = std::max(p.summary.lastHeardUs, c.lastTimeUs);
    if (!c.closed) p.open.push_back(static_cast<long>(i));
  }
  for (auto& [key, p] : processes) {
    if (p.open.empty()) continue;
    p.summary.open = static_cast<int>(p.open.size());
    const UnclosedProcess& s = p.summary;
    const std::string& first = job.connections[static_cast<size_t>(p.open.front())].source;
    findings->push_back(Finding{Severity::Note, FindingKind::NeverClosed,
                                "never closed: pid " + std::to_string(s.pid) + " on " + s.host + " left " +
                                    std::to_string(s.open) + " of its " + ends(s.connections) +
                                    " without a close record (first at " + first + "); last heard of at " +
                                    utcTimeText(s.lastHeardUs) + ", " + silenceText(s.lastHeardUs, jobLast) +
                                    ": killed, or still running when the logs were collected",
                                std::move(p.open), s.host, "", -1});
    unclosed->push_back(s);
  }
}

}  // namespace railtune::analysis::paths::detail
