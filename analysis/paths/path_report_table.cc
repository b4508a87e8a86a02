// The table `railtune paths check` prints by default (path_report.h).
#include <algorithm>
#include <cstdio>
#include <map>

#include "analysis/paths/path_report.h"
#include "common/natural_order.h"

namespace railtune::analysis::paths {
namespace {

using Rows = std::vector<std::vector<std::string>>;

// Columns padded to their widest cell, two spaces apart, each line indented by two.
std::string formatRows(const Rows& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) line += "  " + row[i] + std::string(widths[i] - row[i].size(), ' ');
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

std::string bytesText(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return text;
}

std::string number(int64_t value, bool unknownWhenNegative = true) {
  return unknownWhenNegative && value < 0 ? "-" : std::to_string(value);
}

std::string plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

std::string railsUncheckedText(const CheckReport& r) {
  if (r.railsUnknown())
    return "rails unknown: " + plural(static_cast<size_t>(r.connections), "connection", "connections") +
           " not checked (pass --rail-map)";
  return "rails unknown: " + std::to_string(r.railsUnchecked) + " of " +
         plural(static_cast<size_t>(r.connections), "connection", "connections") + " not checked (pass --rail-map)";
}

namespace {

// What the summary's counts are: the logical connections and the ends logged of them, and what was not checked.
std::string countsLine(const CheckReport& r) {
  std::string out = "  " + plural(static_cast<size_t>(r.connections), "connection", "connections") + " (" +
                    plural(static_cast<size_t>(r.connectionEnds), "connection end", "connection ends") +
                    " logged: a connection's sender and receiver each log one)";
  if (r.railsUnchecked > 0) out += "; " + railsUncheckedText(r);
  return out + "\n";
}

std::string railsTable(const CheckReport& r) {
  Rows rows{{"rail", "plane", "connections", "bytes"}};
  for (const RailUse& use : r.rails)
    rows.push_back({number(use.rail), number(use.plane), std::to_string(use.connections), bytesText(use.bytes)});
  return "Traffic per rail (each connection once, at its sender's NIC):\n" + formatRows(rows);
}

std::string nicTable(const CheckReport& r) {
  Rows rows{{"host", "hca", "rail", "plane", "connections", "sent", "received"}};
  for (const NicUse& n : r.nics)
    rows.push_back({n.host, n.hca, number(n.rail), number(n.plane), std::to_string(n.connections),
                    bytesText(n.bytesSent), bytesText(n.bytesReceived)});
  return "NIC use per host:\n" + formatRows(rows);
}

std::string qpsText(const VerbsUse& v) {
  std::string out;
  for (size_t i = 0; i < v.qps.size(); ++i) {
    char pair[40];
    std::snprintf(pair, sizeof(pair), "%s0x%x->0x%x", i == 0 ? "" : " ", v.qps[i],
                  i < v.peerQps.size() ? v.peerQps[i] : 0u);
    out += pair;
  }
  return out;
}

std::string perQpText(const VerbsUse& v) {
  if (v.bytesPerQp.empty()) return "-";
  std::string out;
  for (size_t i = 0; i < v.bytesPerQp.size(); ++i) out += (i == 0 ? "" : " / ") + bytesText(v.bytesPerQp[i]);
  return out;
}

// ib connections: one row per record (each end logs its own QPs), the first limits.verbsRows.
std::string verbsTable(const CheckReport& r, const TableLimits& limits) {
  if (r.verbs.empty()) return "";
  Rows rows{{"host", "rank", "dir", "hca:port", "link", "mtu", "gid", "peer", "qps (local->peer)", "bytes per qp"}};
  const size_t shown = std::min(r.verbs.size(), static_cast<size_t>(limits.verbsRows));
  for (size_t i = 0; i < shown; ++i) {
    const VerbsUse& v = r.verbs[i];
    rows.push_back({v.host, number(v.rank), v.send ? "send" : "recv", v.hca + ":" + std::to_string(v.port),
                    v.linkLayer + (v.adaptiveRouting ? " AR" : ""), std::to_string(v.mtu),
                    v.gid + (v.gidIndex >= 0 ? " [" + std::to_string(v.gidIndex) + "]" : ""),
                    v.peerHost + " " + v.peerHca, qpsText(v), perQpText(v)});
  }
  std::string out = "Verbs (ib) connections, as each end logged them:\n" + formatRows(rows);
  if (r.verbs.size() > shown)
    out += "  ... and " + plural(r.verbs.size() - shown, "more record", "more records") + " (--json lists all)\n";
  return out + "\n";
}

// Large jobs: one row per host (all its NICs together), the busiest first.
std::string hostTable(const CheckReport& r, const TableLimits& limits) {
  struct HostUse {
    std::string host;
    int nics = 0, connections = 0;
    uint64_t sent = 0, received = 0;
  };
  std::map<std::string, HostUse, NaturalLess> byHost;  // ties in bytes keep natural order
  for (const NicUse& n : r.nics) {
    HostUse& h = byHost[n.host];
    h.host = n.host;
    ++h.nics;
    h.connections += n.connections;
    h.sent += n.bytesSent;
    h.received += n.bytesReceived;
  }
  std::vector<HostUse> hosts;
  for (auto& [name, use] : byHost) hosts.push_back(use);
  std::stable_sort(hosts.begin(), hosts.end(),
                   [](const HostUse& a, const HostUse& b) { return a.sent + a.received > b.sent + b.received; });
  Rows rows{{"host", "nics", "connections", "sent", "received"}};
  const size_t shown = std::min(hosts.size(), static_cast<size_t>(limits.busiestHosts));
  for (size_t i = 0; i < shown; ++i)
    rows.push_back({hosts[i].host, std::to_string(hosts[i].nics), std::to_string(hosts[i].connections),
                    bytesText(hosts[i].sent), bytesText(hosts[i].received)});
  std::string out = "NIC use per host (" + std::to_string(hosts.size()) + " hosts: the " + std::to_string(shown) +
                    " busiest, all NICs of a host together):\n" + formatRows(rows);
  if (hosts.size() > shown) out += "  ... and " + plural(hosts.size() - shown, "more host", "more hosts") + "\n";
  return out;
}

std::string findingsSection(const CheckReport& r, Severity severity, const char* title, const TableLimits& limits) {
  std::map<FindingKind, size_t> listed;
  std::map<FindingKind, size_t> hidden;
  std::string lines;
  size_t total = 0;
  for (const Finding& f : r.findings) {
    if (f.severity != severity) continue;
    ++total;
    if (listed[f.kind]++ < static_cast<size_t>(limits.findingsPerKind)) {
      lines += "  " + f.message + "\n";
    } else {
      ++hidden[f.kind];
    }
  }
  if (total == 0) return "";
  for (const auto& [kind, count] : hidden)
    lines += "  ... and " + std::to_string(count) + " more " + findingKindName(kind) + " (--json lists all)\n";
  return std::string(title) + " (" + std::to_string(total) + "):\n" + lines;
}

std::string jobSection(const CheckedJob& job, const TableLimits& limits) {
  const CheckReport& r = job.report;
  const size_t violations = static_cast<size_t>(r.violations());
  const size_t notes = r.findings.size() - violations;
  std::string out = "job " + r.job + ": " + plural(static_cast<size_t>(r.hosts), "host", "hosts") + " logged, " +
                    plural(static_cast<size_t>(r.connections), "connection", "connections");
  if (r.fromNcclLog > 0) {
    out += " (" + std::to_string(r.fromNcclLog) + " from NCCL's logs, " +
           std::to_string(r.connections - r.fromNcclLog) + " from railtune's net plugin)";
  }
  out += ", " + plural(violations, "violation", "violations") + ", " + plural(notes, "note", "notes");
  if (job.paths != nullptr && !job.paths->diagnostics.empty())
    out += ", " + plural(job.paths->diagnostics.size(), "input problem", "input problems") + " (on stderr)";
  out += "\n" + countsLine(r) + "\n" + railsTable(r) + "\n";
  std::map<std::string, int> nicHosts;
  for (const NicUse& n : r.nics) nicHosts[n.host] = 1;
  out += (nicHosts.size() > static_cast<size_t>(limits.nicHosts) ? hostTable(r, limits) : nicTable(r)) + "\n";
  out += verbsTable(r, limits);
  out += findingsSection(r, Severity::Violation, "Violations", limits);
  out += findingsSection(r, Severity::Note, "Notes", limits);
  if (r.railsUnchecked > 0) {
    out += railsUncheckedText(r) + ".\n";
  } else if (r.findings.empty()) {
    out += "No findings: every connection stayed on its rail.\n";
  }
  return out;
}

}  // namespace

std::string renderCheckTable(const std::vector<CheckedJob>& jobs, const TableLimits& limits) {
  std::string out;
  for (const CheckedJob& job : jobs) out += (out.empty() ? "" : "\n") + jobSection(job, limits);
  return out;
}

std::string renderDiagnostics(const std::vector<CheckedJob>& jobs,
                              const std::vector<InputDiagnostic>& folderDiagnostics, size_t limit) {
  std::vector<const InputDiagnostic*> all;
  for (const InputDiagnostic& d : folderDiagnostics) all.push_back(&d);
  for (const CheckedJob& job : jobs)
    if (job.paths != nullptr)
      for (const InputDiagnostic& d : job.paths->diagnostics) all.push_back(&d);
  std::string out;
  for (size_t i = 0; i < all.size() && i < limit; ++i)
    out += "warning: " + (all[i]->where.empty() ? "" : all[i]->where + ": ") + all[i]->message + "\n";
  if (all.size() > limit)
    out += "warning: ... and " + plural(all.size() - limit, "more input problem", "more input problems") +
           " (--json lists all)\n";
  return out;
}

}  // namespace railtune::analysis::paths
