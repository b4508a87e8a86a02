// `railtune paths check --json` (path_report.h; docs/formats/paths-check.schema.json).
#include <nlohmann/json.hpp>

#include "analysis/paths/path_report.h"

namespace railtune::analysis::paths {
namespace {

using nlohmann::json;

json diagnosticsJson(const std::vector<InputDiagnostic>& diagnostics) {
  json out = json::array();
  for (const InputDiagnostic& d : diagnostics) out.push_back({{"where", d.where}, {"message", d.message}});
  return out;
}

json findingJson(const Finding& f, const JobPaths* paths) {
  json records = json::array();
  for (long index : f.connections) {
    const bool known = paths != nullptr && index >= 0 && static_cast<size_t>(index) < paths->connections.size();
    records.push_back(known ? paths->connections[static_cast<size_t>(index)].source : std::string("?"));
  }
  return {{"severity", severityName(f.severity)},
          {"kind", findingKindName(f.kind)},
          {"message", f.message},
          {"records", std::move(records)},
          {"host", f.host},
          {"peer_host", f.peerHost},
          {"rail", f.rail}};
}

json verbsJson(const VerbsUse& v, const JobPaths* paths) {
  const bool known =
      paths != nullptr && v.connection >= 0 && static_cast<size_t>(v.connection) < paths->connections.size();
  return {{"record", known ? paths->connections[static_cast<size_t>(v.connection)].source : std::string("?")},
          {"host", v.host},
          {"pid", v.pid},
          {"rank", v.rank},
          {"direction", v.send ? "send" : "recv"},
          {"hca", v.hca},
          {"port", v.port},
          {"link_layer", v.linkLayer},
          {"gid", v.gid},
          {"gid_index", v.gidIndex},
          {"mtu", v.mtu},
          {"adaptive_routing", v.adaptiveRouting},
          {"qps", v.qps},
          {"peer_host", v.peerHost},
          {"peer_hca", v.peerHca},
          {"peer_rank", v.peerRank},
          {"peer_qps", v.peerQps},
          {"bytes_per_qp", v.bytesPerQp}};
}

json jobJson(const CheckedJob& job) {
  const CheckReport& r = job.report;
  json rails = json::array();
  for (const RailUse& u : r.rails)
    rails.push_back({{"rail", u.rail}, {"plane", u.plane}, {"connections", u.connections}, {"bytes", u.bytes}});
  json nics = json::array();
  for (const NicUse& n : r.nics)
    nics.push_back({{"host", n.host},
                    {"hca", n.hca},
                    {"rail", n.rail},
                    {"plane", n.plane},
                    {"connections", n.connections},
                    {"bytes_sent", n.bytesSent},
                    {"bytes_received", n.bytesReceived}});
  json findings = json::array();
  for (const Finding& f : r.findings) findings.push_back(findingJson(f, job.paths));
  json unclosed = json::array();
  for (const UnclosedProcess& p : r.unclosed)
    unclosed.push_back({{"host", p.host},
                        {"pid", p.pid},
                        {"open_connections", p.open},
                        {"connections", p.connections},
                        {"last_heard_us", p.lastHeardUs}});
  const int violations = r.violations();
  json out = {
      {"job", r.job},
      {"hosts", r.hosts},
      {"connections", r.connections},
      {"connection_ends", r.connectionEnds},
      {"rails_unchecked", r.railsUnchecked},
      {"violations", violations},
      {"notes", static_cast<int>(r.findings.size()) - violations},
      {"rails", std::move(rails)},
      {"nics", std::move(nics)},
      {"findings", std::move(findings)},
      {"unclosed", std::move(unclosed)},
      {"diagnostics", diagnosticsJson(job.paths != nullptr ? job.paths->diagnostics : std::vector<InputDiagnostic>{})}};
  if (r.fromNcclLog > 0) out["from_nccl_log"] = r.fromNcclLog;
  if (!r.verbs.empty()) {  // ib connections only: a report of socket connections has no "verbs"
    json verbs = json::array();
    for (const VerbsUse& v : r.verbs) verbs.push_back(verbsJson(v, job.paths));
    out["verbs"] = std::move(verbs);
  }
  return out;
}

}  // namespace

const char* severityName(Severity severity) {
  return severity == Severity::Violation ? "violation" : "note";
}

const char* findingKindName(FindingKind kind) {
  switch (kind) {
    case FindingKind::CrossRail:
      return "cross_rail";
    case FindingKind::CrossPlane:
      return "cross_plane";
    case FindingKind::DigestMismatch:
      return "digest_mismatch";
    case FindingKind::AsymmetricRails:
      return "asymmetric_rails";
    case FindingKind::UnusedRail:
      return "unused_rail";
    case FindingKind::MissingHost:
      return "missing_host";
    case FindingKind::NeverClosed:
      return "never_closed";
    case FindingKind::IdleQp:
      return "idle_qp";
  }
  return "unknown";
}

std::string renderCheckJson(const std::vector<CheckedJob>& jobs,
                            const std::vector<InputDiagnostic>& folderDiagnostics) {
  json out;
  out["schema"] = formats::kPathsCheckSchema;
  out["jobs"] = json::array();
  int violations = 0, unchecked = 0;
  for (const CheckedJob& job : jobs) {
    out["jobs"].push_back(jobJson(job));
    violations += job.report.violations();
    unchecked += job.report.railsUnchecked;
  }
  out["violations"] = violations;
  out["rails_unchecked"] = unchecked;
  out["diagnostics"] = diagnosticsJson(folderDiagnostics);
  return out.dump(2) + "\n";
}

}  // namespace railtune::analysis::paths
