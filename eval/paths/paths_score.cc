// See paths_score.h.
#include "eval/paths/paths_score.h"

#include <map>
#include <regex>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "analysis/paths/path_check.h"
#include "analysis/paths/path_load.h"
#include "analysis/paths/path_render.h"
#include "analysis/paths/path_report.h"

namespace railtune::eval::paths {
namespace {

namespace rp = analysis::paths;

// What survived the mangling.
struct Truth {
  std::set<int> connections, violations;  // logical connections
  std::set<long> ends;
  std::set<std::string> hosts;
  std::vector<std::string> damaged;  // "DIR/FILE:LINE:" of each damaged line, as a diagnostic must begin
  long lostEnds = 0;                 // connect records no intact line carries (damaged, or cut off a file's tail)
};

Truth survivors(const GeneratedJob& job, const std::vector<OutFile>& files, const std::string& dir) {
  Truth t;
  for (const OutFile& f : files) {
    for (size_t i = 0; i < f.lines.size(); ++i) {
      const OutLine& line = f.lines[i];
      if (!line.intact) {
        t.damaged.push_back(dir + "/" + f.path + ":" + std::to_string(i + 1) + ":");
        continue;
      }
      t.hosts.insert(job.writers[static_cast<size_t>(line.writer)].identity.host);
      if (line.end < 0) continue;
      t.ends.insert(line.end);
      const int logical = job.endConnection[static_cast<size_t>(line.end)];
      t.connections.insert(logical);
      if (job.violating[static_cast<size_t>(logical)]) t.violations.insert(logical);
    }
  }
  t.lostEnds = static_cast<long>(job.endConnection.size() - t.ends.size());
  return t;
}

// The logical connection of each record of the joined job (-1: a record the generator did not write).
std::vector<int> logicalOf(const GeneratedJob& job, const rp::JobPaths& paths) {
  std::map<std::tuple<std::string, int, uint64_t>, int> byKey;
  for (size_t e = 0; e < job.endKey.size(); ++e) {
    const Identity& who = job.writers[static_cast<size_t>(job.endKey[e].first)].identity;
    byKey[{who.host, who.pid, job.endKey[e].second}] = job.endConnection[e];
  }
  std::vector<int> out;
  for (const rp::Connection& c : paths.connections) {
    const auto it = byKey.find({c.local.host, c.local.pid, c.id});
    out.push_back(it == byKey.end() ? -1 : it->second);
  }
  return out;
}

class Scorer {
 public:
  Scorer(const GeneratedJob& job, Truth truth) : job_(job), truth_(std::move(truth)) {}
  void findings(const rp::JobPaths& paths, const rp::CheckReport& report);
  void counts(const std::string& what, long got, long want);
  void connections(const std::string& what, long got, long want);
  void diagnostics(const rp::LoadedPaths& loaded);
  Score take() { return std::move(score_); }

 private:
  void miss(std::string text) { score_.misses.push_back(std::move(text)); }
  const GeneratedJob& job_;
  Truth truth_;
  Score score_;
};

// Every injected violation found (by a finding naming either end's record), no finding about a connection that
// did not violate, and one finding per violating connection.
void Scorer::findings(const rp::JobPaths& paths, const rp::CheckReport& report) {
  const std::vector<int> logical = logicalOf(job_, paths);
  std::set<int> found;
  int falses = 0;
  for (const rp::Finding& f : report.findings) {
    if (f.severity != rp::Severity::Violation) continue;
    bool truthful = false;
    for (const long index : f.connections) {
      const int l =
          index >= 0 && static_cast<size_t>(index) < logical.size() ? logical[static_cast<size_t>(index)] : -1;
      if (l < 0 || !truth_.violations.contains(l)) continue;
      found.insert(l);
      truthful = true;
    }
    if (!truthful) {
      ++falses;
      if (falses <= 3) miss("false violation: " + f.message);
    }
  }
  const int injected = static_cast<int>(truth_.violations.size()), hits = static_cast<int>(found.size());
  score_.counters["injected_violations"] += injected;
  score_.counters["found_violations"] += hits;
  score_.counters["false_violations"] += falses;
  score_.counters["pxn_connections"] += job_.pxn;  // each one a chance of a false violation
  if (hits < injected)
    miss("found " + std::to_string(hits) + " of " + std::to_string(injected) + " injected violations (" +
         job_.injected + ")");
  connections("check violations", report.violations(), injected);  // a violating connection merged as above
  const bool unknownSaid = report.railsUnknown();
  if (job_.railsUnknown) score_.counters["rails_unknown_scenarios"] += 1;
  if (job_.railsUnknown && unknownSaid) score_.counters["rails_unknown_said"] += 1;
  if (unknownSaid != job_.railsUnknown || (!job_.railsUnknown && report.railsUnchecked != 0))
    miss("rails unchecked: " + std::to_string(report.railsUnchecked) + " of " + std::to_string(report.connections) +
         (job_.railsUnknown ? " (every rail was unknown)" : " (every rail was known)"));
}

void Scorer::counts(const std::string& what, long got, long want) {
  score_.counters["counts_compared"] += 1;
  if (got == want) return;
  score_.counters["count_mismatches"] += 1;
  miss(what + ": " + std::to_string(got) + ", truth " + std::to_string(want));
}

// Logical connections. When connect records were lost, two connections between the same two NICs of the same
// processes that each lost one end (on different channels) leave one send and one receive record that nothing tells
// apart from the two ends of one connection (the net plugin's records carry no channel): the check then counts one.
// The same holds for violating connections. Exact when nothing was lost; else at most the truth and at least the truth
// less the records lost (each merge needs two lost records, so this bound is loose).
void Scorer::connections(const std::string& what, long got, long want) {
  if (truth_.lostEnds == 0 || got == want) return counts(what, got, want);
  score_.counters["counts_compared"] += 1;
  score_.counters["connections_merged"] += static_cast<double>(want - got);
  if (got < want && got >= want - truth_.lostEnds) return;
  score_.counters["count_mismatches"] += 1;
  miss(what + ": " + std::to_string(got) + ", truth " + std::to_string(want) + " (" + std::to_string(truth_.lostEnds) +
       " connect records lost)");
}

// Every damaged line named by a diagnostic at its FILE:LINE.
void Scorer::diagnostics(const rp::LoadedPaths& loaded) {
  std::vector<std::string> wheres;
  for (const rp::InputDiagnostic& d : loaded.diagnostics) wheres.push_back(d.where);
  for (const rp::JobPaths& j : loaded.jobs)
    for (const rp::InputDiagnostic& d : j.diagnostics) wheres.push_back(d.where + ":");
  int named = 0;
  for (const std::string& line : truth_.damaged) {
    const bool said =
        std::any_of(wheres.begin(), wheres.end(), [&](const std::string& w) { return w.starts_with(line); });
    named += said ? 1 : 0;
    if (!said) miss("damaged line not named: " + line);
  }
  score_.counters["damaged_lines"] += static_cast<double>(truth_.damaged.size());
  score_.counters["damaged_lines_named"] += named;
}

// The picture's heading: "job J: H hosts logged, C connections, E connection ends, V violations".
struct Heading {
  long hosts = -1, connections = -1, ends = -1, violations = -1;
};

Heading headingOf(const std::string& svg) {
  static const std::regex pattern(
      R"(<title>railtune paths: job [^:]*: (\d+) hosts? logged, (\d+) connections?(?: \(\d+ from NCCL[^)]*\))?, (\d+) connection ends?, (\d+) violations?)");
  std::smatch m;
  if (!std::regex_search(svg, m, pattern)) return {};
  return Heading{std::stol(m[1]), std::stol(m[2]), std::stol(m[3]), std::stol(m[4])};
}

long occurrences(const std::string& text, const std::string& what) {
  long n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

Score scoreScenario(const GeneratedJob& job, const std::vector<OutFile>& files, const std::string& dir) {
  Truth truth = survivors(job, files, dir);
  const long connections = static_cast<long>(truth.connections.size()), ends = static_cast<long>(truth.ends.size());
  const long hosts = static_cast<long>(truth.hosts.size());
  Scorer scorer(job, std::move(truth));
  rp::LoadOptions options;
  options.railMap = job.giveRailMap ? job.map.get() : nullptr;
  const rp::LoadedPaths loaded = rp::loadPathLogs(dir, options);
  scorer.counts("jobs found", static_cast<long>(loaded.jobs.size()), 1);
  scorer.diagnostics(loaded);
  if (loaded.jobs.size() != 1) return scorer.take();
  const rp::JobPaths& paths = loaded.jobs.front();
  const rp::CheckReport report = rp::checkPaths(paths, options.railMap);
  scorer.findings(paths, report);
  // What `paths check --json` prints.
  const nlohmann::json printed =
      nlohmann::json::parse(rp::renderCheckJson({rp::CheckedJob{&paths, report}}, loaded.diagnostics))["jobs"][0];
  const long checked = printed["connections"].get<long>();
  scorer.connections("check connections", checked, connections);
  scorer.counts("check connection ends", printed["connection_ends"].get<long>(), ends);
  scorer.counts("check hosts", printed["hosts"].get<long>(), hosts);
  // What `paths render` draws and heads its picture with: detail view up to 48 hosts, racks beyond.
  const rp::PathGraph graph = rp::buildPathGraph(paths, report, options.railMap);
  const std::string svg = rp::renderPaths(graph, report, rp::RenderOptions{rp::RenderFormat::Svg, 48});
  const Heading heading = headingOf(svg);
  scorer.counts("render heading hosts", heading.hosts, hosts);
  scorer.counts("render heading connections (check's)", heading.connections, checked);
  scorer.counts("render heading connection ends", heading.ends, ends);
  scorer.counts("render heading violations (check's)", heading.violations, report.violations());
  if (graph.hostCount() <= 48) {
    scorer.counts("render links drawn (check's connections)", occurrences(svg, "<path class=\"link"), checked);
    scorer.counts("render violation links (check's)", occurrences(svg, "<path class=\"link violation\""),
                  report.violations());
  }
  return scorer.take();
}

}  // namespace railtune::eval::paths
