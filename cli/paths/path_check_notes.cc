// The check's notes: asymmetric rail counts between two hosts, unused rails, hosts that logged nothing
// (path_check_internal.h). None of them fails the check.
#include <map>
#include <set>
#include <tuple>

#include "cli/paths/path_check_internal.h"
#include "cli/paths/path_check_text.h"

namespace railtune::cli::paths::detail {
namespace {

const ConnectionEnd& senderEnd(const JobPaths& job, const Logical& l) {
  if (l.send >= 0) return job.connections[static_cast<size_t>(l.send)].local;
  return job.connections[static_cast<size_t>(l.recv)].remote;
}

const ConnectionEnd& receiverEnd(const JobPaths& job, const Logical& l) {
  if (l.recv >= 0) return job.connections[static_cast<size_t>(l.recv)].local;
  return job.connections[static_cast<size_t>(l.send)].remote;
}

std::string times(int count) {
  return std::to_string(count) + (count == 1 ? " connection" : " connections");
}

}  // namespace

void findAsymmetricRails(const JobPaths& job, const std::vector<Logical>& logical, std::vector<Finding>* findings) {
  // (first host, second host, rail) in name order → connections first→second, second→first.
  std::map<std::tuple<std::string, std::string, int>, std::pair<int, int>> counts;
  std::map<std::tuple<std::string, std::string, int>, std::vector<long>> members;
  for (const Logical& l : logical) {
    const std::string& from = senderEnd(job, l).host;
    const std::string& to = receiverEnd(job, l).host;
    if (from == to) continue;
    const bool forward = from < to;
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
  std::map<std::string, std::vector<long>> missing;
  for (size_t i = 0; i < job.connections.size(); ++i) {
    const Connection& c = job.connections[i];
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

}  // namespace railtune::cli::paths::detail
